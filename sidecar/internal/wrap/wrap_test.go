package wrap

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

func live(ws string, port int) *state.File {
	return &state.File{PID: os.Getpid(), ProxyPort: port, Workspace: ws, StartedAt: time.Now(),
		CDPEndpoint: "http://127.0.0.1:" + itoa(port), WSEndpoint: "ws://127.0.0.1:" + itoa(port) + "/devtools/browser"}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestExpand(t *testing.T) {
	f := *live("/w", 4242)
	got := Expand([]string{"npx", "@playwright/mcp", "--cdp-endpoint", "{cdp_endpoint}", "--port={cdp_port}", "{ws_endpoint}", "{unknown}"}, f)
	want := []string{"npx", "@playwright/mcp", "--cdp-endpoint", "http://127.0.0.1:4242", "--port=4242", "ws://127.0.0.1:4242/devtools/browser/coordinator", "{unknown}"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
}

func TestHasTemplateAndNamesEndpoint(t *testing.T) {
	for _, tc := range []struct {
		args               string
		template, endpoint bool
	}{
		{"npx @playwright/mcp --cdp-endpoint {cdp_endpoint}", true, true},
		{"my-mcp --port={cdp_port}", true, false},
		{"npx chrome-devtools-mcp --browserUrl http://10.0.0.5:9222", false, true},
		{"npx chrome-devtools-mcp --browser-url=http://10.0.0.5:9222", false, true},
		{"my-mcp --wsEndpoint ws://h/x", false, true},
		{"my-mcp --ws-endpoint=ws://h/x", false, true},
		{"my-mcp --cdp-endpoint-file x --flag", false, false},
		{"python -u server.py", false, false},
	} {
		args := strings.Fields(tc.args)
		if got := HasTemplate(args); got != tc.template {
			t.Errorf("HasTemplate(%s) = %v", tc.args, got)
		}
		if got := NamesEndpoint(args); got != tc.endpoint {
			t.Errorf("NamesEndpoint(%s) = %v", tc.args, got)
		}
	}
}

// waiter runs Wait in the background; blocked receives once each time it
// has looked and waits for the folder to change.
type waiter struct {
	blocked chan struct{}
	found   chan state.File
	err     chan error
}

func startWait(o Options) *waiter {
	w := &waiter{blocked: make(chan struct{}, 16), found: make(chan state.File, 1), err: make(chan error, 1)}
	o.waiting = func() { w.blocked <- struct{}{} }
	go func() {
		f, err := Wait(context.Background(), o)
		w.found <- f
		w.err <- err
	}()
	return w
}

// guard bounds a wait that only a failure would make long.
const guard = 30 * time.Second

func (w *waiter) block(t *testing.T) {
	t.Helper()
	select {
	case <-w.blocked:
	case f := <-w.found:
		t.Fatalf("Wait returned %+v, %v before the file was written", f, <-w.err)
	case <-time.After(guard):
		t.Fatal("Wait never blocked")
	}
}

func (w *waiter) result(t *testing.T) state.File {
	t.Helper()
	select {
	case f := <-w.found:
		if err := <-w.err; err != nil {
			t.Fatal(err)
		}
		return f
	case <-time.After(guard):
		t.Fatal("Wait did not wake")
		return state.File{}
	}
}

// Wait wakes on the file: with the grace period and the timeout far away,
// the folder's change is the only thing that can wake it.
func TestWaitWakesOnTheStateFile(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	w := startWait(Options{StateDir: dir, Workspace: ws, Grace: time.Hour, Timeout: time.Hour})
	w.block(t) // it looked, found nothing, and waits
	if err := state.Write(state.Path(dir, "c1"), live(ws, 5001)); err != nil {
		t.Fatal(err)
	}
	if f := w.result(t); f.ProxyPort != 5001 {
		t.Fatalf("Wait = %+v", f)
	}
}

func TestWaitPrefersItsWorkspace(t *testing.T) {
	dir, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	state.Write(state.Path(dir, "other"), live(other, 6000))
	w := startWait(Options{StateDir: dir, Workspace: ws, Grace: time.Hour, Timeout: time.Hour})
	w.block(t) // the other workspace's coordinator is there, and not taken
	state.Write(state.Path(dir, "mine"), live(ws, 6001))
	if f := w.result(t); f.ProxyPort != 6001 {
		t.Fatalf("took the other workspace's coordinator (%d) over its own", f.ProxyPort)
	}
}

func TestWaitFallsBackAfterGrace(t *testing.T) {
	dir, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	state.Write(state.Path(dir, "other"), live(other, 7000))
	start := time.Now()
	f, err := Wait(context.Background(), Options{StateDir: dir, Workspace: ws, Grace: 200 * time.Millisecond, Timeout: time.Hour})
	if err != nil || f.ProxyPort != 7000 {
		t.Fatalf("Wait = %+v, %v", f, err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("fell back after %v, before the grace period", d)
	}
}

func TestWaitIgnoresStaleAndBrokenFiles(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	cmd := exec.Command("true")
	cmd.Run()
	dead := live(ws, 8000)
	dead.PID = cmd.Process.Pid
	state.Write(state.Path(dir, "dead"), dead)
	os.WriteFile(filepath.Join(dir, "corrupt.json"), []byte("{"), 0o600)

	w := startWait(Options{StateDir: dir, Workspace: ws, Grace: time.Hour, Timeout: time.Hour})
	w.block(t)
	// A writer that does not write atomically: Wait sees half a file first,
	// and goes on waiting.
	p := state.Path(dir, "inplace")
	os.WriteFile(p, []byte(`{"pid": `), 0o600)
	w.block(t)
	os.WriteFile(p, []byte(`{"pid": `+itoa(os.Getpid())+`, "proxyPort": 8001, "workspace": "`+ws+`"}`), 0o600)
	if f := w.result(t); f.ProxyPort != 8001 {
		t.Fatalf("got %+v", f)
	}
}

func TestWaitTimesOutWithAdvice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not-yet-created")
	_, err := Wait(context.Background(), Options{StateDir: dir, Timeout: 150 * time.Millisecond})
	if !errors.Is(err, ErrNoCoordinator) || !strings.Contains(err.Error(), "Start one") || !remedy.Has(err, remedy.WaitLonger) {
		t.Fatalf("err = %v", err)
	}
}
