package nativehost

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

// These tests run the built binary exactly as Chrome runs a native host:
// `browser-coordinator chrome-extension://<id>/` with the extension's
// messages on stdin and its answers on stdout. The test plays the browser's
// part of the pipe (the real browser is in the everyday package's tests).

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

func buildBinary(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "browser-coordinator")
	b, err := exec.Command("go", "build", "-o", out, "github.com/browser-coordinator/browser-coordinator/sidecar/cmd/browser-coordinator").CombinedOutput()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	return out
}

type chromeSide struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	stderr *bytes.Buffer
	state  string
}

func startHost(t *testing.T, bin, origin string) *chromeSide {
	t.Helper()
	state, err := os.MkdirTemp("", "st")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	cmd := exec.Command(bin, origin)
	cmd.Env = append(os.Environ(), "BROWSER_COORDINATOR_STATE_DIR="+state)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &chromeSide{t: t, cmd: cmd, stdin: stdin, stdout: stdout, stderr: &stderr, state: state}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	return h
}

func (h *chromeSide) send(v any) {
	h.t.Helper()
	b, _ := json.Marshal(v)
	if err := nativemsg.WriteFrame(h.stdin, binary.NativeEndian, b); err != nil {
		h.t.Fatal(err)
	}
}

func (h *chromeSide) read() nativemsg.Fields {
	h.t.Helper()
	return scan(h.t, h.readRaw())
}

// scan reads a message's fields; a message that is not the protocol fails the test.
func scan(t *testing.T, raw []byte) nativemsg.Fields {
	t.Helper()
	f, err := nativemsg.Scan(raw)
	if err != nil {
		t.Fatalf("%v: %.300s", err, raw)
	}
	return f
}

func (h *chromeSide) readRaw() []byte {
	h.t.Helper()
	raw, err := nativemsg.ReadFrame(h.stdout, binary.NativeEndian, nativemsg.MaxToExtension)
	if err != nil {
		h.t.Fatalf("read from the host: %v (stderr: %s)", err, h.stderr)
	}
	return raw
}

func extensionHello(protocol int) map[string]any {
	return map[string]any{"type": "hello", "protocol": protocol,
		"extension": map[string]string{"id": extensionID, "version": "1.0"},
		"browser":   map[string]string{"name": "Chromium", "version": "156.0.1.2", "userAgent": "UA"}}
}

func TestRefusesAnotherExtension(t *testing.T) {
	bin := buildBinary(t)
	h := startHost(t, bin, "chrome-extension://abcdefghijklmnopabcdefghijklmnop/")
	err := h.cmd.Wait()
	if err == nil || !strings.Contains(h.stderr.String(), "does not serve") {
		t.Fatalf("a host for another extension: %v, %s", err, h.stderr)
	}
	if entries, _ := os.ReadDir(nativemsg.Dir(h.state)); len(entries) > 0 {
		t.Fatal("a refused host left files")
	}
}

func TestProtocolMismatchWithTheExtension(t *testing.T) {
	bin := buildBinary(t)
	h := startHost(t, bin, "chrome-extension://"+extensionID+"/")
	h.send(extensionHello(nativemsg.Protocol + 1))
	env := h.read()
	if env.Type != "error" || env.Code != nativemsg.CodeProtocol || !strings.Contains(env.Message, "update browser-coordinator") {
		t.Fatalf("answer to a newer extension: %+v", env)
	}
	if err := h.cmd.Wait(); err == nil {
		t.Fatal("the host stayed up after a protocol mismatch")
	}
}

// The host relays between the extension and coordinators: it stamps each
// coordinator's messages with its client id, routes answers back by it,
// splits what is over Chrome's 1 MB limit, answers what is not the
// protocol with an error, and cleans up when the browser closes stdin.
func TestRelay(t *testing.T) {
	bin := buildBinary(t)
	h := startHost(t, bin, "chrome-extension://"+extensionID+"/")
	h.send(extensionHello(nativemsg.Protocol))
	if env := h.read(); env.Type != "hello" {
		t.Fatalf("the host's answer to hello: %+v", env)
	}
	dir := nativemsg.Dir(h.state)
	hosts := nativemsg.LiveHosts(dir) // announced before the hello's answer
	if len(hosts) != 1 {
		t.Fatalf("announcements: %+v", hosts)
	}
	host := hosts[0]
	if host.Browser.Version != "156.0.1.2" || host.Extension.ID != extensionID || host.PID != h.cmd.Process.Pid {
		t.Fatalf("announcement: %+v", host)
	}
	if fi, err := os.Stat(host.Socket); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %s: %v %v", host.Socket, fi.Mode(), err)
	}

	offer := &nativemsg.Channel{URL: "ws://127.0.0.1:1/x", Secret: "s", Proof: "p"}
	dial := func(protocol int) (net.Conn, nativemsg.Fields, nativemsg.Hello) {
		conn := dialCoordinator(t, host.Socket, protocol, offer)
		raw, err := nativemsg.ReadFrame(conn, binary.LittleEndian, nativemsg.MaxSocketMessage)
		if err != nil {
			t.Fatal(err)
		}
		var hello nativemsg.Hello
		_ = json.Unmarshal(raw, &hello)
		return conn, scan(t, raw), hello
	}
	if _, env, _ := dial(nativemsg.Protocol + 1); env.Type != "error" || env.Code != nativemsg.CodeProtocol {
		t.Fatalf("a coordinator of another protocol: %+v", env)
	}
	conn, env, hello := dial(nativemsg.Protocol)
	if env.Type != "hello" || hello.Browser == nil || hello.Browser.Name != "Chromium" {
		t.Fatalf("the host's hello to a coordinator: %+v", env)
	}
	if hello.Extension == nil || hello.Extension.ID != extensionID {
		t.Fatalf("the host names the extension Chrome started it for: %+v", hello.Extension)
	}
	rawJoined := h.readRaw()
	joined := scan(t, rawJoined)
	if joined.Type != "clientConnected" || joined.Client == "" {
		t.Fatalf("the extension was told %+v", joined)
	}
	var told struct{ Channel *nativemsg.Channel }
	if json.Unmarshal(rawJoined, &told); told.Channel == nil || *told.Channel != *offer {
		t.Fatalf("the coordinator's channel offer did not reach the extension: %s", rawJoined)
	}
	readConn := func() nativemsg.Fields {
		raw, err := nativemsg.ReadFrame(conn, binary.LittleEndian, nativemsg.MaxSocketMessage)
		if err != nil {
			t.Fatal(err)
		}
		return scan(t, raw)
	}

	// Not the protocol: an error back, and the connection stays.
	_ = nativemsg.WriteFrame(conn, binary.LittleEndian, []byte("nonsense"))
	if env := readConn(); env.Type != "error" || env.Code != nativemsg.CodeInvalid {
		t.Fatalf("answer to nonsense: %+v", env)
	}
	// A request, stamped with the client (even when it claims another).
	_ = nativemsg.WriteFrame(conn, binary.LittleEndian, []byte(`{"type":"connect","id":1,"client":"c99"}`))
	if req := h.read(); req.Type != "connect" || req.ID != 1 || req.Client != joined.Client {
		t.Fatalf("the extension got %+v", req)
	}
	h.send(map[string]any{"type": "connected", "id": 1, "client": joined.Client, "tabs": []any{}})
	if env := readConn(); env.Type != "connected" || env.ID != 1 {
		t.Fatalf("the coordinator got %+v", env)
	}
	// Over 1 MB toward the extension: chunks, each within the limit,
	// each naming the client.
	big := strings.Repeat("x", 1_500_000)
	b, _ := json.Marshal(map[string]any{"type": "command", "id": 2, "tabId": 1, "method": "Runtime.evaluate", "params": map[string]string{"expression": big}})
	go func() { _ = nativemsg.WriteFrame(conn, binary.LittleEndian, b) }() // the host reads it as it passes it on
	j := nativemsg.NewJoiner(nativemsg.MaxSocketMessage)
	var whole []byte
	for n := 0; whole == nil; n++ {
		raw := h.readRaw()
		if len(raw) > nativemsg.MaxToExtension {
			t.Fatalf("a %d-byte message to the extension", len(raw))
		}
		f := scan(t, raw)
		if f.Type != "chunk" || f.Client != joined.Client {
			t.Fatalf("a piece of a large message: %.200s", raw)
		}
		if w, ok, err := j.Add(f); err != nil {
			t.Fatal(err)
		} else if ok {
			whole = w
			if n == 0 {
				t.Fatal("a 1.5 MB message was not split")
			}
		}
	}
	if !bytes.Equal(whole, b) {
		t.Fatal("the joined command is not the coordinator's")
	}
	// An event for every coordinator (no client) reaches this one.
	h.send(map[string]any{"type": "disconnected", "reason": "bye"})
	if env := readConn(); env.Type != "disconnected" || env.Reason != "bye" {
		t.Fatalf("broadcast: %+v", env)
	}

	// The coordinator leaves: the extension hears of it.
	conn.Close()
	if left := h.read(); left.Type != "clientDisconnected" || left.Client != joined.Client {
		t.Fatalf("after the coordinator left the extension got %+v", left)
	}
	// The browser closes the host's stdin: it exits cleanly and cleans up.
	h.stdin.Close()
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("the host's exit: %v (%s)", err, h.stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Fatalf("the host left %v", entries)
	}
}

// dialCoordinator connects to a host's socket and says hello as a coordinator.
func dialCoordinator(t *testing.T, socket string, protocol int, offer *nativemsg.Channel) net.Conn {
	t.Helper()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	b, _ := json.Marshal(nativemsg.Hello{Type: "hello", Protocol: protocol, Coordinator: &nativemsg.Coordinator{Folder: "/p", PID: 1}, Channel: offer})
	if err := nativemsg.WriteFrame(conn, binary.LittleEndian, b); err != nil {
		t.Fatal(err)
	}
	return conn
}
