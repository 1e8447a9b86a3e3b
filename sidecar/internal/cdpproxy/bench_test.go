package cdpproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
)

// The proxy's hot path, measured without a browser's own time or a
// client's: a client's command read from its WebSocket, read strictly,
// written anew to the pipe; the browser's answer routed and written back.
// Both ends are played here with fixed buffers (they allocate nothing), so
// -benchmem counts the proxy's allocations alone:
//
//	go test -run '^$' -bench RoundTrip -benchmem ./sidecar/internal/cdpproxy/
//
// Where wall time is noisy (a shared, loaded machine), count instructions:
// valgrind --tool=callgrind on the test binary with -test.benchtime=2000x.

// fakeBrowser answers on a pipe as Chromium does: an attach with a
// session, anything else with answer (the session appended as Chromium
// writes it).
type fakeBrowser struct {
	in     *bufio.Reader // what the proxy writes
	out    *os.File      // what the proxy reads
	answer []byte        // the result member, e.g. {"result":{...}}
	buf    []byte
}

const benchSession = "6D4E2A7C1F0B3E5D9A8C7B6E5D4C3B2A"

func newFakeBrowser(b *testing.B, answer string) *cdp.Conn {
	toR, toW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	f := &fakeBrowser{in: bufio.NewReaderSize(toR, 1<<20), out: fromW, answer: []byte(answer)}
	go f.serve()
	c := cdp.NewConn(cdp.Pipe(fromR, toW), cdp.Options{})
	b.Cleanup(func() { c.Close(); toR.Close(); fromW.Close() })
	return c
}

func (f *fakeBrowser) serve() {
	for {
		msg, err := f.in.ReadSlice(0)
		if err != nil {
			return
		}
		// {"id":N,"method":"…", as the proxy writes its commands
		end := bytes.IndexByte(msg, ',')
		if !bytes.HasPrefix(msg, []byte(`{"id":`)) || end < 0 {
			panic("unexpected command: " + string(msg))
		}
		f.buf = append(f.buf[:0], msg[:end]...)
		if bytes.Contains(msg, []byte(`"method":"Target.attachTo`)) {
			f.buf = append(f.buf, `,"result":{"sessionId":"`+benchSession+`"}}`...)
		} else {
			f.buf = append(f.buf, ',')
			f.buf = append(f.buf, f.answer...)
			f.buf = append(f.buf, `,"sessionId":"`+benchSession+`"}`...)
		}
		f.buf = append(f.buf, 0)
		if _, err := f.out.Write(f.buf); err != nil {
			return
		}
	}
}

// wsClient is a WebSocket client of fixed buffers.
type wsClient struct {
	c    net.Conn
	r    *bufio.Reader
	out  []byte
	in   []byte
	head [8]byte
}

func dialBench(b *testing.B, url string) *wsClient {
	u := strings.TrimPrefix(url, "ws://")
	host, path, _ := strings.Cut(u, "/")
	c, err := net.Dial("tcp", host)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(c, "GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", path, host)
	r := bufio.NewReaderSize(c, 1<<20)
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, " 101 ") {
		b.Fatalf("handshake: %q %v", status, err)
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		if line == "\r\n" {
			break
		}
	}
	b.Cleanup(func() { c.Close() })
	return &wsClient{c: c, r: r}
}

// call sends one text frame (masked with a zero key: the text as it is)
// and reads the next text frame into w.in.
func (w *wsClient) call(msg []byte) error {
	w.out = append(w.out[:0], 0x81)
	switch n := len(msg); {
	case n < 126:
		w.out = append(w.out, 0x80|byte(n))
	case n < 1<<16:
		w.out = append(w.out, 0x80|126, byte(n>>8), byte(n))
	default:
		w.out = append(w.out, 0x80|127)
		w.out = binary.BigEndian.AppendUint64(w.out, uint64(n))
	}
	w.out = append(w.out, 0, 0, 0, 0)
	w.out = append(w.out, msg...)
	if _, err := w.c.Write(w.out); err != nil {
		return err
	}
	head := w.head[:2]
	if _, err := io.ReadFull(w.r, head); err != nil {
		return err
	}
	if head[0] != 0x81 {
		return fmt.Errorf("frame %#x: want one whole text frame", head[0])
	}
	n := uint64(head[1] & 0x7f)
	switch n {
	case 126:
		if _, err := io.ReadFull(w.r, w.head[:2]); err != nil {
			return err
		}
		n = uint64(binary.BigEndian.Uint16(w.head[:2]))
	case 127:
		if _, err := io.ReadFull(w.r, w.head[:8]); err != nil {
			return err
		}
		n = binary.BigEndian.Uint64(w.head[:8])
	}
	if uint64(cap(w.in)) < n {
		w.in = make([]byte, n)
	}
	w.in = w.in[:n]
	_, err := io.ReadFull(w.r, w.in)
	return err
}

func benchRoundTrip(b *testing.B, answer string, wantLen int) {
	conn := newFakeBrowser(b, answer)
	p, err := Listen(Config{Resolver: static(Backend{Conn: conn, Version: cdp.Version{Product: "Bench/1"}}), Secret: secret})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	c := dialBench(b, fmt.Sprintf("ws://127.0.0.1:%d/%s/devtools/page/T", p.Port(), secret))
	cmd := []byte(`{"id":1,"method":"Runtime.evaluate","params":{"expression":"1+1","includeCommandLineAPI":true,"returnByValue":false}}`)
	// The id grows: an answer of the right length proves the round trip.
	for i := 0; i < 100; i++ {
		if err := c.call(cmd); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(wantLen))
	b.ReportAllocs()
	b.ResetTimer()
	u := startUsage()
	for i := 0; i < b.N; i++ {
		if err := c.call(cmd); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	u.report(b)
	if len(c.in) != wantLen {
		b.Fatalf("the answer has %d bytes, want %d: %.200s", len(c.in), wantLen, c.in)
	}
}

func BenchmarkRoundTrip(b *testing.B) {
	evaluate := `"result":{"result":{"type":"number","value":2,"description":"2"}}`
	b.Run("evaluate", func(b *testing.B) {
		benchRoundTrip(b, evaluate, len(`{"id":1,`)+len(evaluate)+1)
	})
	// A 15 MB screenshot's answer: copied once on its way.
	shot := `"result":{"data":"` + strings.Repeat("iVBORw0K", 15<<20/8) + `"}`
	b.Run("screenshot", func(b *testing.B) {
		benchRoundTrip(b, shot, len(`{"id":1,`)+len(shot)+1)
	})
}

// BenchmarkChromiumRoundTrip is npm run bench's CDP round trip in Go, on
// real Chromiums with the same command line: through the proxy to one on
// its pipe ("proxy"), and straight to one on a debugging port ("direct":
// what a client of a port-launched browser gets). "pipe" is the proxy's
// browser reached from inside this process, on the same connection and
// route the proxy uses, without the client's WebSocket hop: proxy − pipe
// is that hop, direct − pipe what Chromium's own WebSocket costs over its
// pipe. "alternate" runs the three in turn, so that all see the same
// machine, and reports their medians and the proxy's ratio to direct; on
// a loaded machine read that, and the counts each road reports (CPU time
// and context switches of this process a round trip), not ns/op:
//
//	go test -run '^$' -bench ChromiumRoundTrip -benchtime 2000x ./sidecar/internal/cdpproxy/
func BenchmarkChromiumRoundTrip(b *testing.B) {
	pipe, port := testbrowser.OnPipe(b), testbrowser.Launch(b, "")
	p, err := Listen(Config{Resolver: static(backendOf(pipe)), Secret: secret})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	page := func(c *cdp.Conn) string {
		res, err := c.Call(context.Background(), "", "Target.createTarget", map[string]string{"url": "about:blank"})
		if err != nil {
			b.Fatal(err)
		}
		var t struct{ TargetID string }
		if err := json.Unmarshal(res, &t); err != nil || t.TargetID == "" {
			b.Fatalf("Target.createTarget: %s %v", res, err)
		}
		return t.TargetID
	}
	proxied := dialBench(b, fmt.Sprintf("ws://127.0.0.1:%d/%s/devtools/page/%s", p.Port(), secret, page(pipe.Conn)))
	direct := dialBench(b, fmt.Sprintf("ws://%s/devtools/page/%s", port.Addr(), page(port.Conn)))
	answers := make(chan []byte, 1)
	inProcess, err := pipe.Conn.Open(context.Background(), cdp.PeerOptions{Mode: cdp.Page, Target: page(pipe.Conn), Deliver: func(m []byte) error {
		answers <- m
		return nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(inProcess.Close)
	cmd := []byte(`{"id":1,"method":"Runtime.evaluate","params":{"expression":"1+1"}}`)
	const want = `{"id":1,"result":{"result":{"type":"number","value":2,"description":"2"}}}`
	roads := []struct {
		name string
		call func() ([]byte, error)
	}{
		{"proxy", func() ([]byte, error) { err := proxied.call(cmd); return proxied.in, err }},
		{"direct", func() ([]byte, error) { err := direct.call(cmd); return direct.in, err }},
		{"pipe", func() ([]byte, error) {
			if err := inProcess.Send(context.Background(), cmd); err != nil {
				return nil, err
			}
			return <-answers, nil
		}},
	}
	roundTrip := func(b *testing.B, k int) time.Duration {
		t := time.Now()
		_, err := roads[k].call()
		d := time.Since(t)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	for k := range roads { // warm up each, and check its answer
		for range 200 {
			roundTrip(b, k)
		}
		if got, err := roads[k].call(); err != nil || string(got) != want {
			b.Fatalf("%s: answer %q (%v), want %q", roads[k].name, got, err, want)
		}
	}
	for k, road := range roads {
		b.Run(road.name, func(b *testing.B) {
			u := startUsage()
			for b.Loop() {
				roundTrip(b, k)
			}
			u.report(b)
		})
	}
	b.Run("alternate", func(b *testing.B) {
		took := make([][]time.Duration, len(roads))
		for i := 0; b.Loop(); i++ {
			for k := range roads {
				j := (i + k) % len(roads)
				took[j] = append(took[j], roundTrip(b, j))
			}
		}
		median := make([]float64, len(roads))
		for k, d := range took {
			slices.Sort(d)
			median[k] = float64(d[len(d)/2].Nanoseconds()) / 1e3
			b.ReportMetric(median[k], roads[k].name+"-µs")
		}
		b.ReportMetric(median[0]/median[1], "ratio")
	})
}
