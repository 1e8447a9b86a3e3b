package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

// The virtual browser's own logic, with an in-memory TabHost (the real
// one, the browser extension over native messaging, is tested with a real
// Chromium in package everyday and the coordinator's tests).

type memTabs struct {
	mu   sync.Mutex
	v    *Virtual
	sent []string // tab commands, as "method"
	next int
}

func (h *memTabs) Version() (string, string, error) { return "Chrome/1", "UA", nil }
func (h *memTabs) Attach(int) error                 { return nil }
func (h *memTabs) Detach(int)                       {}
func (h *memTabs) Close(int, func(error))           {}
func (h *memTabs) Focus(tab int, done func(error))  { h.v.TabFocused(tab); done(nil) }
func (h *memTabs) Send(_ int, _, method string, _ json.RawMessage, done func(json.RawMessage, error)) {
	h.mu.Lock()
	h.sent = append(h.sent, method)
	h.mu.Unlock()
	if method == "Page.topOnly" { // what an iframe answers, as the browser's own error
		done(nil, &Error{Code: ServerError, Message: "Command can only be executed on top-level targets"})
		return
	}
	done(json.RawMessage(`{"frameId":"F"}`), nil)
}
func (h *memTabs) Open(url string, _ bool) (int, error) {
	h.mu.Lock()
	h.next++
	id := 100 + h.next
	h.mu.Unlock()
	if url == "about:fail" {
		return 0, errors.New("no tab for you")
	}
	h.v.TabChanged(VirtualTab{ID: id, TargetID: "P" + url, URL: url, Agent: true})
	return id, nil
}

// virtualUnderTest is a Virtual on memTabs; its client's messages arrive,
// decoded, in out.
func virtualUnderTest(t *testing.T, policy func(Place, *Message) Verdict) (*Virtual, *memTabs, func() Message) {
	t.Helper()
	var mu sync.Mutex
	var out []Message
	h := &memTabs{}
	h.v = NewVirtual(VirtualOptions{
		Host: h, Policy: policy, Words: VirtualWords{Browser: "a test browser", Backend: "the test backend"},
		Out: func(b []byte) {
			var m Message
			if err := json.Unmarshal(b, &m); err != nil {
				t.Errorf("the virtual browser wrote %s: %v", b, err)
			}
			mu.Lock()
			out = append(out, m)
			mu.Unlock()
		},
		Go: func(fn func()) { fn() },
	})
	next := func() Message {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if len(out) == 0 {
			t.Fatal("the virtual browser wrote nothing more")
		}
		m := out[0]
		out = out[1:]
		return m
	}
	return h.v, h, next
}

func TestVirtualPolicyDecidesBeforeTheTabs(t *testing.T) {
	var seen []Place
	policy := func(at Place, m *Message) Verdict {
		seen = append(seen, at)
		switch m.Method {
		case "Page.navigate":
			return Verdict{Reply: Fail(m, "not there")}
		case "Page.reload":
			return Verdict{Then: func(a *Message) *Message { a.Result = json.RawMessage(`{"rewritten":true}`); return a }}
		}
		return Verdict{}
	}
	v, h, next := virtualUnderTest(t, policy)
	v.Connected([]VirtualTab{{ID: 1, TargetID: "P1", URL: "https://a.test/", Agent: true}})
	v.Command([]byte(`{"id":1,"method":"Target.attachToTarget","params":{"targetId":"P1","flatten":true}}`))
	attached := next()
	session := gjsonString(t, attached.Params, "sessionId")
	if attached.Method != "Target.attachedToTarget" || session == "" {
		t.Fatalf("attach: %+v", attached)
	}
	next() // the answer

	v.Command([]byte(`{"id":2,"sessionId":"` + session + `","method":"Page.navigate","params":{"url":"file:///etc/passwd"}}`))
	if a := next(); a.Error == nil || a.Error.Message != "not there" {
		t.Fatalf("a refused command was answered %+v", a)
	}
	v.Command([]byte(`{"id":3,"sessionId":"` + session + `","method":"Page.reload"}`))
	if a := next(); string(a.Result) != `{"rewritten":true}` || string(a.ID) != "3" || a.SessionID != session {
		t.Fatalf("the policy's rewrite was not what the client got: %+v", a)
	}
	if strings.Join(h.sent, ",") != "Page.reload" {
		t.Fatalf("the tab got %v; want only Page.reload (the refused navigation must never reach it)", h.sent)
	}
	if len(seen) != 3 || seen[0].Page || !seen[2].Page || !seen[2].AgentTab || strings.Join(seen[2].Tabs, ",") != "https://a.test/" {
		t.Fatalf("the policy saw %+v; want the browser session's attach, then two commands on the agent's page of https://a.test/", seen)
	}
}

// A policy may answer later (Async), or let the command go on once it has
// run (an Async that answers nil); its rewrite sees the tab's errors, as
// the browser wrote them.
func TestVirtualPolicyAnswersLaterOrLetsGoOn(t *testing.T) {
	var ran []string
	policy := func(at Place, m *Message) Verdict {
		switch m.Method {
		case "Page.later":
			return Verdict{Async: func(context.Context) *Message { return Reply(m, map[string]bool{"later": true}) }}
		case "Page.afterwards":
			return Verdict{Async: func(context.Context) *Message { ran = append(ran, m.Method); return nil }}
		case "Page.topOnly":
			return Verdict{Then: func(a *Message) *Message {
				if a.Error != nil && a.Error.Message == "Command can only be executed on top-level targets" && at.Target == "P1" && !at.Child {
					return Reply(m, struct{}{})
				}
				return a
			}}
		}
		return Verdict{}
	}
	v, h, next := virtualUnderTest(t, policy)
	v.Connected([]VirtualTab{{ID: 1, TargetID: "P1", URL: "https://a.test/"}})
	v.Command([]byte(`{"id":1,"method":"Target.attachToTarget","params":{"targetId":"P1","flatten":true}}`))
	session := gjsonString(t, next().Params, "sessionId")
	next() // the answer
	v.Command([]byte(`{"id":2,"sessionId":"` + session + `","method":"Page.later"}`))
	if a := next(); string(a.Result) != `{"later":true}` || string(a.ID) != "2" {
		t.Fatalf("the policy's later answer: %+v", a)
	}
	v.Command([]byte(`{"id":3,"sessionId":"` + session + `","method":"Page.afterwards"}`))
	if a := next(); string(a.ID) != "3" || a.Error != nil || len(ran) != 1 {
		t.Fatalf("a command let go on after the policy ran: %+v (ran %v)", a, ran)
	}
	v.Command([]byte(`{"id":4,"sessionId":"` + session + `","method":"Page.topOnly"}`))
	if a := next(); a.Error != nil || string(a.Result) != `{}` {
		t.Fatalf("the tab's error, rewritten by the policy: %+v", a)
	}
	if got := strings.Join(h.sent, ","); got != "Page.afterwards,Page.topOnly" {
		t.Fatalf("the tab got %s; want the command let go on and the one rewritten, not the one answered later", got)
	}
}

func TestVirtualTargetsComeInTheOrderOfActivity(t *testing.T) {
	v, _, next := virtualUnderTest(t, nil)
	// On a first connection, the tab the browser shows comes last.
	v.Connected([]VirtualTab{{ID: 1, TargetID: "P1", URL: "https://a.test/"}, {ID: 2, TargetID: "P2", URL: "https://b.test/", Active: true}, {ID: 3, TargetID: "P3", URL: "https://c.test/"}})
	order := func() string {
		t.Helper()
		v.Command([]byte(`{"id":9,"method":"Target.getTargets"}`))
		var r struct {
			TargetInfos []Target `json:"targetInfos"`
		}
		if err := json.Unmarshal(next().Result, &r); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, ti := range r.TargetInfos {
			ids = append(ids, ti.ID)
		}
		return strings.Join(ids, " ")
	}
	if got := order(); got != "P1 P3 P2" {
		t.Fatalf("first connection: %s; want P1 P3 P2", got)
	}
	v.TabFocused(1)
	// A tab the agent opens in the background stays behind while it loads
	// its first page.
	v.Command([]byte(`{"id":4,"method":"Target.createTarget","params":{"url":"about:blank","background":true}}`))
	if a := next(); gjsonString(t, a.Result, "targetId") != "Pabout:blank" {
		t.Fatalf("createTarget: %+v", a)
	}
	v.TabChanged(VirtualTab{ID: 101, TargetID: "Pabout:blank", URL: "https://d.test/", Agent: true})
	if got := order(); got != "Pabout:blank P3 P2 P1" {
		t.Fatalf("after a focus and a background open: %s; want the held tab first, the focused one last", got)
	}
	// A disconnection keeps the order for when the tabs come back.
	v.Disconnected()
	v.Connected([]VirtualTab{{ID: 3, TargetID: "P3"}, {ID: 1, TargetID: "P1"}, {ID: 2, TargetID: "P2", Active: true}})
	if got := order(); got != "P3 P2 P1" {
		t.Fatalf("after reconnecting: %s; want P3 P2 P1 (the order they left in)", got)
	}
	if v.Active() != "" {
		t.Fatalf("Active after a reconnection: %q; want none until the browser says", v.Active())
	}
}

func TestVirtualRefusesWhatItDoesNotOffer(t *testing.T) {
	v, _, next := virtualUnderTest(t, nil)
	v.Command([]byte(`{"id":1,"method":"Target.setRemoteLocations","params":{}}`))
	if a := next(); a.Error == nil || a.Error.Message != "Target.setRemoteLocations is not available in a test browser (the test backend)" {
		t.Fatalf("got %+v", a)
	}
	v.Command([]byte(`{"id":2,"method":"Target.attachToTarget","params":{"targetId":"X"}}`))
	if a := next(); a.Error == nil || !strings.Contains(a.Error.Message, "pass flatten: true") {
		t.Fatalf("got %+v", a)
	}
	v.Command([]byte(`{"id":3,"sessionId":"nope","method":"Page.enable"}`))
	if a := next(); a.Error == nil || a.Error.Code != SessionNotFound {
		t.Fatalf("got %+v", a)
	}
	v.Command([]byte(`[1,2]`))
	if a := next(); a.Error == nil || a.Error.Code != ParseError {
		t.Fatalf("got %+v", a)
	}
}

func gjsonString(t *testing.T, raw json.RawMessage, key string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	s, _ := m[key].(string)
	return s
}
