package cdpproxy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
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
	for i := 0; i < b.N; i++ {
		if err := c.call(cmd); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
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
