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
	want := []string{"npx", "@playwright/mcp", "--cdp-endpoint", "http://127.0.0.1:4242", "--port=4242", "ws://127.0.0.1:4242/devtools/browser", "{unknown}"}
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

func TestWaitWakesOnTheStateFile(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	found := make(chan state.File, 1)
	errs := make(chan error, 1)
	go func() {
		f, err := Wait(context.Background(), Options{StateDir: dir, Workspace: ws, Timeout: 10 * time.Second})
		found <- f
		errs <- err
	}()
	time.Sleep(100 * time.Millisecond) // let Wait start watching; it must not need the file yet
	written := time.Now()
	if err := state.Write(state.Path(dir, "c1"), live(ws, 5001)); err != nil {
		t.Fatal(err)
	}
	f := <-found
	if err := <-errs; err != nil || f.ProxyPort != 5001 {
		t.Fatalf("Wait = %+v, %v", f, err)
	}
	if d := time.Since(written); d > time.Second {
		t.Fatalf("Wait woke %v after the file appeared", d)
	}
}

func TestWaitPrefersItsWorkspace(t *testing.T) {
	dir, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	state.Write(state.Path(dir, "other"), live(other, 6000))
	done := make(chan state.File, 1)
	go func() {
		f, _ := Wait(context.Background(), Options{StateDir: dir, Workspace: ws, Grace: 5 * time.Second, Timeout: 10 * time.Second})
		done <- f
	}()
	time.Sleep(100 * time.Millisecond)
	state.Write(state.Path(dir, "mine"), live(ws, 6001))
	if f := <-done; f.ProxyPort != 6001 {
		t.Fatalf("took the other workspace's coordinator (%d) over its own", f.ProxyPort)
	}
}

func TestWaitFallsBackAfterGrace(t *testing.T) {
	dir, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	state.Write(state.Path(dir, "other"), live(other, 7000))
	start := time.Now()
	f, err := Wait(context.Background(), Options{StateDir: dir, Workspace: ws, Grace: 200 * time.Millisecond, Timeout: 10 * time.Second})
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

	done := make(chan state.File, 1)
	go func() {
		f, _ := Wait(context.Background(), Options{StateDir: dir, Workspace: ws, Timeout: 10 * time.Second})
		done <- f
	}()
	time.Sleep(100 * time.Millisecond)
	// A writer that does not write atomically: Wait sees half a file first.
	p := state.Path(dir, "inplace")
	os.WriteFile(p, []byte(`{"pid": `), 0o600)
	time.Sleep(50 * time.Millisecond)
	os.WriteFile(p, []byte(`{"pid": `+itoa(os.Getpid())+`, "proxyPort": 8001, "workspace": "`+ws+`"}`), 0o600)
	if f := <-done; f.ProxyPort != 8001 {
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
