package cdp

import (
	"testing"
)

// What isolation adds per message, measured on the code alone (go test
// -bench Isolation ./sidecar/internal/cdp): a client's page command passes
// the policy's prefix checks; a page's event passes undecoded (the hook
// sees the Target domain only); a Target event is decoded and judged.

var (
	pageEvent       = []byte(`{"method":"Runtime.consoleAPICalled","params":{"type":"log","args":[{"type":"string","value":"event"},{"type":"number","value":12345,"description":"12345"}],"executionContextId":1,"timestamp":1764201600000.123,"stackTrace":{"callFrames":[{"functionName":"","scriptId":"5","url":"","lineNumber":0,"columnNumber":40}]}},"sessionId":"5F3A9C0D2B6E4A1F8C7D9E0A1B2C3D4E"}`)
	targetInfoEvent = []byte(`{"method":"Target.targetInfoChanged","params":{"targetInfo":{"targetId":"A1B2C3D4E5F60718293A4B5C6D7E8F90","type":"page","title":"Page","url":"http://127.0.0.1:8080/page","attached":true,"canAccessOpener":false,"browserContextId":"0F1E2D3C4B5A69788796A5B4C3D2E1F0"}},"sessionId":"B0"}`)
)

// benchPeer is a browser-level peer whose client takes everything, with
// policy (nil: none) as its relay's.
func benchPeer(policy Policy) *Peer {
	r := NewRelay(policy)
	o := r.Options(PeerOptions{Mode: Browser})
	o.deliver = func(parts) error { return nil } // the relay's own delivery, to no client
	p := &Peer{mode: Browser, root: "B0", o: o, sessions: map[string]bool{}}
	r.peerP.Store(p)
	return p
}

func BenchmarkIsolationEvent(b *testing.B) {
	iso := NewIsolation(NewAgentContexts("0F1E2D3C4B5A69788796A5B4C3D2E1F0"))
	for _, tc := range []struct {
		name   string
		policy Policy
		event  []byte
	}{
		{"page event/shared", nil, pageEvent},
		{"page event/isolated", iso, pageEvent},
		{"Target event/shared", nil, targetInfoEvent},
		{"Target event/isolated", iso, targetInfoEvent},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := benchPeer(tc.policy)
			env := peekBrowser(tc.event)
			b.ReportAllocs()
			for b.Loop() {
				p.event(tc.event, env)
			}
		})
	}
}

func BenchmarkIsolationCommand(b *testing.B) {
	iso := NewIsolation(NewAgentContexts("0F1E2D3C4B5A69788796A5B4C3D2E1F0"))
	r := NewRelay(iso)
	for _, tc := range []struct{ name, msg string }{
		{"page command", `{"id":7,"method":"Runtime.evaluate","params":{"expression":"1+1"},"sessionId":"5F3A9C0D2B6E4A1F8C7D9E0A1B2C3D4E"}`},
		{"Target.createTarget", `{"id":8,"method":"Target.createTarget","params":{"url":"about:blank"}}`},
	} {
		parsed, err := ParseCommand([]byte(tc.msg)) // as every client's command is, isolated or not
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m := parsed
				iso.Command(r, &m)
			}
		})
	}
}
