package cdp_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/tidwall/gjson"
)

// memBrowser is a browser in memory, answering each command at once: a
// session for an attach, result for anything else. What it costs is the
// same on both roads the benchmark compares.
type memBrowser struct {
	result string
	out    chan []byte
	mu     sync.Mutex
	closed bool
	n      int
}

func (b *memBrowser) ReadMessage() ([]byte, error) {
	m, ok := <-b.out
	if !ok {
		return nil, cdp.ErrClosed
	}
	return m, nil
}

func (b *memBrowser) WriteMessage(_ context.Context, msg []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return cdp.ErrClosed
	}
	r := gjson.GetManyBytes(msg, "id", "method", "sessionId")
	result := b.result
	switch r[1].String() {
	case "Target.attachToTarget", "Target.attachToBrowserTarget":
		b.n++
		result = `{"sessionId":"S` + strconv.Itoa(b.n) + `"}`
	case "Target.setDiscoverTargets", "Runtime.runIfWaitingForDebugger", "Target.detachFromTarget":
		result = `{}`
	}
	answer := `{"id":` + r[0].Raw + `,"result":` + result
	if s := r[2].String(); s != "" {
		answer += `,"sessionId":"` + s + `"`
	}
	b.out <- []byte(answer + "}")
	return nil
}

func (b *memBrowser) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.out)
	}
	return nil
}

// BenchmarkRoundTrip is one command and its answer through the proxy's
// core, for a page-level client: straight on the browser's connection (a
// launched browser's road) and through the virtual browser (a TargetHost
// showing the page: Tier 2's road), with a small answer and a
// screenshot-sized one.
func BenchmarkRoundTrip(b *testing.B) {
	for _, size := range []struct {
		name   string
		result string
	}{
		{"small", `{"result":{"type":"number","value":2,"description":"2"}}`},
		{"4MiB", `{"data":"` + strings.Repeat("A", 4<<20) + `"}`},
	} {
		for _, road := range []string{"straight", "virtual"} {
			b.Run(road+"/"+size.name, func(b *testing.B) {
				browser := cdp.NewConn(&memBrowser{result: size.result, out: make(chan []byte, 16)}, cdp.Options{})
				defer browser.Close()
				conn := browser
				if road == "virtual" {
					host := cdp.NewTargetHost(cdp.TargetHostOptions{Conn: browser, Version: cdp.Version{Product: "Chrome/1"}})
					v := cdp.NewVirtual(cdp.VirtualOptions{Host: host})
					conn = cdp.NewConn(v, cdp.Options{})
					host.Show(cdp.Target{ID: "PAGE", Type: "page"})
					defer func() {
						host.Shutdown()
						conn.Close()
					}()
				}
				answers := make(chan []byte, 1)
				client, err := conn.Open(context.Background(), cdp.PeerOptions{Mode: cdp.Page, Target: "PAGE", Deliver: func(m []byte) error {
					answers <- m
					return nil
				}})
				if err != nil {
					b.Fatal(err)
				}
				defer client.Close()
				cmd := []byte(`{"id":1,"method":"Runtime.evaluate","params":{"expression":"1+1","returnByValue":true}}`)
				b.SetBytes(int64(len(size.result)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := client.Send(context.Background(), cmd); err != nil {
						b.Fatal(err)
					}
					<-answers
				}
			})
		}
	}
}
