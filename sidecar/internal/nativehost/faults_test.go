package nativehost

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

// Faults injected on the host's two sides, each once a way to stall or
// exhaust it: the host runs in the test process (Run, as the binary runs
// it) so that the stalls can be short.

// inProcess is a host run by Run, with the test as the browser.
type inProcess struct {
	t      *testing.T
	toHost *io.PipeWriter
	frames chan []byte // what the host wrote to the extension, frame by frame
	done   chan error
	state  string
}

func runHost(t *testing.T, stall time.Duration) *inProcess {
	t.Helper()
	state := t.TempDir()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &inProcess{t: t, toHost: inW, frames: make(chan []byte), done: make(chan error, 1), state: state}
	go func() {
		h.done <- Run(context.Background(), Options{
			Origin: "chrome-extension://" + extensionID + "/", StateDir: state, In: inR, Out: outW,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), FrameStall: stall, HelloTimeout: testutil.Guard,
		})
		outW.Close()
	}()
	go func() { // the browser reads everything the host writes, as Chrome does
		defer close(h.frames)
		for {
			raw, err := nativemsg.ReadFrame(outR, binary.NativeEndian, nativemsg.MaxToExtension)
			if err != nil {
				return
			}
			h.frames <- raw
		}
	}()
	t.Cleanup(func() {
		go func() { // what the host still writes is read, as Chrome would
			for range h.frames {
			}
		}()
		inW.Close()
		select {
		case <-h.done:
		case <-time.After(testutil.Guard):
			t.Error("the host did not end when the browser closed its stdin")
		}
	})
	return h
}

func (h *inProcess) send(v any) {
	h.t.Helper()
	b, _ := json.Marshal(v)
	if err := nativemsg.WriteFrame(h.toHost, binary.NativeEndian, b); err != nil {
		h.t.Fatal(err)
	}
}

// next is the next message the host wrote to the extension.
func (h *inProcess) next() []byte {
	h.t.Helper()
	select {
	case raw, ok := <-h.frames:
		if !ok {
			h.t.Fatal("the host stopped writing to the extension")
		}
		return raw
	case <-time.After(testutil.Guard):
		h.t.Fatal("the host wrote nothing to the extension")
	}
	return nil
}

// nextOf skips to the next message of type typ.
func (h *inProcess) nextOf(typ string) nativemsg.Fields {
	h.t.Helper()
	for {
		if f := scan(h.t, h.next()); f.Type == typ {
			return f
		}
	}
}

// serving says hello as the extension and returns the host's socket.
func (h *inProcess) serving() string {
	h.t.Helper()
	h.send(extensionHello(nativemsg.Protocol))
	h.nextOf("hello")
	hosts := nativemsg.LiveHosts(nativemsg.Dir(h.state))
	if len(hosts) != 1 {
		h.t.Fatalf("announcements: %+v", hosts)
	}
	return hosts[0].Socket
}

// coordinator connects as a coordinator and reads the host's hello.
func (h *inProcess) coordinator(socket string) (net.Conn, string) {
	h.t.Helper()
	conn := dialCoordinator(h.t, socket, nativemsg.Protocol, nil)
	if f := scan(h.t, readSocket(h.t, conn)); f.Type != "hello" {
		h.t.Fatalf("the host's hello: %+v", f)
	}
	return conn, h.nextOf("clientConnected").Client
}

func readSocket(t *testing.T, conn net.Conn) []byte {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(testutil.Guard))
	raw, err := nativemsg.ReadFrame(conn, binary.LittleEndian, nativemsg.MaxSocketMessage)
	if err != nil {
		t.Fatalf("read from the host: %v", err)
	}
	return raw
}

func writeSocket(t *testing.T, conn net.Conn, msg string) {
	t.Helper()
	if err := nativemsg.WriteFrame(conn, binary.LittleEndian, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

// One coordinator's large message does not hold up another's: the host
// passes the bystander's message between the pieces of the large one.
// (Before, the large message went out whole under one lock: every other
// coordinator waited for all of it; at 8 MiB a bystander's call took 9 s.)
func TestALargeMessageHoldsUpNoOne(t *testing.T) {
	h := runHost(t, 0)
	socket := h.serving()
	big, bigClient := h.coordinator(socket)
	small, smallClient := h.coordinator(socket)

	script := strings.Repeat("a", 15<<20)
	go func() { // the large one, written as fast as the host takes it
		b, _ := json.Marshal(map[string]any{"type": "command", "id": 1, "tabId": 1, "method": "Runtime.evaluate", "params": map[string]string{"expression": script}})
		_ = nativemsg.WriteFrame(big, binary.LittleEndian, b)
	}()
	first := scan(t, h.next())
	if first.Type != "chunk" || first.Client != bigClient {
		t.Fatalf("the large message's first piece: %+v", first)
	}
	// While it crosses, the bystander sends a request.
	writeSocket(t, small, `{"type":"focusTab","id":9,"tabId":2}`)
	pieces := 1
	for {
		raw := h.next()
		f := scan(t, raw)
		if f.Type == "focusTab" {
			if f.Client != smallClient || f.ID != 9 {
				t.Fatalf("the bystander's request: %s", raw)
			}
			break
		}
		if f.Type != "chunk" || f.Client != bigClient {
			t.Fatalf("between the pieces: %.200s", raw)
		}
		var head struct{ Last bool }
		_ = json.Unmarshal(f.Chunk, &head)
		if head.Last {
			t.Fatalf("the bystander's request waited for all %d pieces of the large message", pieces+1)
		}
		pieces++
	}
	t.Logf("the bystander's request passed after %d of about %d pieces", pieces, (15<<20)/nativemsg.ChunkRoom(nativemsg.MaxToExtension))
}

// A message over the cap is not passed on: its sender gets an error that
// names its request and the limit, and its connection goes on.
func TestAMessageOverTheCapIsRefused(t *testing.T) {
	h := runHost(t, 0)
	socket := h.serving()
	conn, client := h.coordinator(socket)
	go func() {
		b := []byte(`{"type":"command","id":42,"tabId":1,"method":"Runtime.evaluate","params":{"expression":"` + strings.Repeat("a", nativemsg.MaxRequest) + `"}}`)
		_ = nativemsg.WriteFrame(conn, binary.LittleEndian, b)
	}()
	raw := readSocket(t, conn)
	f := scan(t, raw)
	if f.Type != "error" || f.ID != 42 || !strings.Contains(nativemsg.ErrorMessage(f.Error), "at most 16 MiB") {
		t.Fatalf("the answer to a message over the cap: %s", raw)
	}
	writeSocket(t, conn, `{"type":"focusTab","id":43,"tabId":2}`)
	got := scan(t, h.next())
	if got.Type != "focusTab" || got.ID != 43 || got.Client != client {
		t.Fatalf("the extension got %+v; nothing of the refused message may reach it, and the next one must", got)
	}
}

// Before the extension's hello nothing large is read: a frame claiming
// 64 MiB is refused on its length, at once, and the extension told why.
func TestAHugeFrameBeforeHelloIsRefusedUnread(t *testing.T) {
	h := runHost(t, 0)
	if _, err := h.toHost.Write(binary.NativeEndian.AppendUint32(nil, nativemsg.MaxFromExtension)); err != nil {
		t.Fatal(err)
	}
	f := h.nextOf("error")
	if f.Code != nativemsg.CodeInvalid || !strings.Contains(f.Message, "hello") {
		t.Fatalf("the extension was told %+v", f)
	}
	select {
	case err := <-h.done:
		if !errors.Is(err, nativemsg.ErrTooLarge) {
			t.Fatalf("the host ended with %v", err)
		}
		h.done <- err // for the cleanup
	case <-time.After(testutil.Guard):
		t.Fatal("the host waited for the body of a 64 MiB hello")
	}
}

// The same on a coordinator's connection: a first message claiming 64 MiB
// is refused on its length.
func TestAHugeCoordinatorHelloIsRefusedUnread(t *testing.T) {
	h := runHost(t, 0)
	socket := h.serving()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write(binary.LittleEndian.AppendUint32(nil, 64<<20)); err != nil {
		t.Fatal(err)
	}
	f := scan(t, readSocket(t, conn))
	if f.Type != "error" || !strings.Contains(f.Message, "a hello is at most") {
		t.Fatalf("the answer to a 64 MiB hello: %+v", f)
	}
	if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("the connection stayed open: %v", err)
	}
}

// A frame that stops before its length is whole, or after it, ends its
// connection after the stall; the extension hears that the coordinator left.
func TestAStalledFrameEndsItsConnection(t *testing.T) {
	for _, sent := range [][]byte{{0x10, 0}, binary.LittleEndian.AppendUint32(nil, 100)} {
		t.Run(strconv.Itoa(len(sent))+" bytes", func(t *testing.T) {
			h := runHost(t, 100*time.Millisecond)
			socket := h.serving()
			conn, client := h.coordinator(socket)
			if _, err := conn.Write(sent); err != nil {
				t.Fatal(err)
			}
			if left := h.nextOf("clientDisconnected"); left.Client != client {
				t.Fatalf("the extension was told %+v", left)
			}
			_ = conn.SetReadDeadline(time.Now().Add(testutil.Guard))
			if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
				t.Fatalf("the connection stayed open: %v", err)
			}
		})
	}
}

// Relaying large messages costs the host pieces of memory, not their size:
// the binary's peak resident memory stays small after three 15 MiB
// messages each way. (Before, it kept 280 MB after one 64 MiB message.)
func TestRelayingLargeMessagesKeepsMemorySmall(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("peak memory is read from /proc")
	}
	bin := buildBinary(t)
	h := startHost(t, bin, "chrome-extension://"+extensionID+"/")
	h.send(extensionHello(nativemsg.Protocol))
	h.read()
	socket := nativemsg.LiveHosts(nativemsg.Dir(h.state))[0].Socket
	conn := dialCoordinator(t, socket, nativemsg.Protocol, nil)
	readSocket(t, conn)
	joined := h.read()

	payload := strings.Repeat("é", 15<<19) // 15 MiB of two-byte characters
	j := nativemsg.NewJoiner(nativemsg.MaxSocketMessage)
	for i := range 3 {
		b, _ := json.Marshal(map[string]any{"type": "command", "id": i + 1, "tabId": 1, "method": "Runtime.evaluate", "params": map[string]string{"expression": payload}})
		go func() { _ = nativemsg.WriteFrame(conn, binary.LittleEndian, b) }()
		for {
			f := h.read()
			if whole, ok, err := j.Add(f); err != nil {
				t.Fatal(err)
			} else if ok {
				if !bytes.Equal(whole, b) {
					t.Fatal("the message did not come whole")
				}
				break
			}
		}
		answer := []byte(`{"client":"` + joined.Client + `","type":"result","id":` + strconv.Itoa(i+1) + `,"result":{"data":"` + strings.Repeat("b", 15<<20) + `"}}`)
		if err := nativemsg.WriteFrame(h.stdin, binary.NativeEndian, answer); err != nil {
			t.Fatal(err)
		}
		if got := readSocket(t, conn); !bytes.Equal(got, answer) {
			t.Fatal("the answer did not come whole")
		}
	}
	// A message from the extension is read whole (Chrome frames it so):
	// one 15 MiB answer at a time, plus the Go runtime; given back after the
	// answer is sent, so the test waits until it is seen given back (the
	// host hands the answer on first, and a fast reader gets here before).
	var peak, now int
	testutil.Poll(t, "the host's memory given back after a large answer", func() bool {
		status, err := os.ReadFile("/proc/" + strconv.Itoa(h.cmd.Process.Pid) + "/status")
		if err != nil {
			t.Fatal(err)
		}
		peak, now = statusKB(string(status), "VmHWM:"), statusKB(string(status), "VmRSS:")
		return now <= 24<<10
	})
	t.Logf("resident memory after relaying 90 MiB: %d KB, at most %d KB", now, peak)
	if peak > 48<<10 || now > 24<<10 {
		t.Fatalf("the host's resident memory: %d KB, at most %d KB", now, peak)
	}
}

func statusKB(status, key string) int {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}
