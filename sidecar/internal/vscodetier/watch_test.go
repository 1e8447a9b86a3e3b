package vscodetier

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
	"github.com/fsnotify/fsnotify"
)

func tempDir(t *testing.T, prefix string) string {
	t.Helper()
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// standIn is a Chromium standing in for VS Code's Electron; its one page
// (an "integrated browser") has title as its title.
func standIn(t *testing.T, title string) *testbrowser.Browser {
	t.Helper()
	return testbrowser.Launch(t, "data:text/html,<title>"+title+"</title><h1>"+title+"</h1>")
}

type fixture struct {
	c        *coordinator.Coordinator
	portFile string
	states   <-chan state.File
	reads    chan string // what each of the watcher's reads of the port file returned
}

// read waits until the watcher has read the port file and found content in
// it: after that read, a recheck that cannot parse it returns, changing
// nothing.
func (f *fixture) read(t *testing.T, content string) {
	t.Helper()
	guard := time.After(testutil.Guard)
	for {
		select {
		case got := <-f.reads:
			if got == content {
				return
			}
		case <-guard:
			t.Fatalf("the watcher never read %q from the port file", content)
		}
	}
}

func startFixture(t *testing.T) *fixture {
	t.Helper()
	dir := tempDir(t, "s")
	c, err := coordinator.New(coordinator.Config{StateDir: dir, Options: coordinator.Options{BrowserPath: testutil.BrowserPath(t), Headless: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tmp := tempDir(t, "t")
	env := System(dir)
	env.Getenv = func(k string) string {
		if k == "TERM_PROGRAM" {
			return "vscode"
		}
		return ""
	}
	env.PortFiles = []string{filepath.Join(tmp, PortFileName)}
	env.Ancestors = nil
	f := &fixture{c: c, portFile: env.PortFiles[0], states: watchStates(t, c.StatePath()), reads: make(chan string, 64)}
	read := env.ReadFile
	env.ReadFile = func(path string) ([]byte, error) {
		data, err := read(path)
		if err == nil {
			select {
			case f.reads <- string(data):
			default:
			}
		}
		return data, err
	}
	w, err := Start(context.Background(), c, env, false, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return f
}

// watchStates delivers the coordinator's state file each time it is written.
func watchStates(t *testing.T, path string) <-chan state.File {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	w.Add(filepath.Dir(path))
	out := make(chan state.File, 256)
	go func() {
		for ev := range w.Events {
			if ev.Name == path {
				if f, err := state.Read(path); err == nil {
					out <- f
				}
			}
		}
	}()
	t.Cleanup(func() { w.Close() })
	return out
}

func (f *fixture) waitBackend(t *testing.T, backend string) time.Duration {
	t.Helper()
	start := time.Now()
	timeout := time.After(testutil.Guard)
	for {
		select {
		case s := <-f.states:
			if s.Backend == backend {
				return time.Since(start)
			}
		case <-timeout:
			t.Fatalf("backend never became %s (status %+v)", backend, f.c.Status())
		}
	}
}

func writeAtomic(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// seen lists the titles of the pages a client sees through the proxy.
func seen(t *testing.T, c *coordinator.Coordinator) []string {
	t.Helper()
	ctx := testutil.Context(t) // a dial may wait for a launch: long on a busy machine
	conn, err := cdp.Dial(ctx, c.Proxy().WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	res, err := conn.Call(ctx, "", "Target.getTargets", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		TargetInfos []struct{ Type, Title string }
	}
	json.Unmarshal(res, &got)
	var titles []string
	for _, ti := range got.TargetInfos {
		if ti.Type == "page" {
			titles = append(titles, ti.Title)
		}
	}
	return titles
}

func TestPortFileSwitchesTheBackendLive(t *testing.T) {
	vscode := standIn(t, "vscode-one")
	other := standIn(t, "vscode-two")
	f := startFixture(t)
	if s := f.c.Status(); s.VSCode == nil || s.VSCode.Tier != 1 || !s.VSCode.Inside {
		t.Fatalf("no port file: %+v", s.VSCode)
	}
	// A client of the launched browser, to be moved.
	if _, err := f.c.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	client, err := cdp.Dial(context.Background(), f.c.Proxy().WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("atomic replace", func(t *testing.T) {
		writeAtomic(t, f.portFile, strconv.Itoa(vscode.Port)+"\n")
		took := f.waitBackend(t, state.BackendTier2)
		t.Logf("port file → backend switched: %v", took)
		select {
		case <-client.Done():
		case <-time.After(testutil.Guard):
			t.Fatal("the launched browser's client was not disconnected")
		}
		if got := seen(t, f.c); len(got) != 1 || got[0] != "vscode-one" {
			t.Fatalf("clients see %q, want only VS Code's browser view", got)
		}
		if s := f.c.Status(); s.VSCode.Tier != 2 || s.VSCode.Port != vscode.Port || s.VSCode.Source != SourcePortFile {
			t.Fatalf("status: %+v", s.VSCode)
		}
	})
	t.Run("in-place write, seen half-written", func(t *testing.T) {
		fh, err := os.OpenFile(f.portFile, os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fh.Sync()
		f.read(t, "") // the truncated, empty file is seen on its own, and ignored
		if s := f.c.Status(); s.Backend != state.BackendTier2 || s.VSCode.Port != vscode.Port {
			t.Fatalf("a half-written port file switched the backend: %+v", s.VSCode)
		}
		fh.WriteString(strconv.Itoa(other.Port))
		fh.Close()
		guard := time.After(testutil.Guard)
		for f.c.Status().VSCode.Port != other.Port {
			select {
			case <-f.states:
			case <-guard:
				t.Fatalf("never switched to the new port: %+v", f.c.Status().VSCode)
			}
		}
		if got := seen(t, f.c); len(got) != 1 || got[0] != "vscode-two" {
			t.Fatalf("clients see %q", got)
		}
	})
	t.Run("garbage changes nothing", func(t *testing.T) {
		writeAtomic(t, f.portFile, "not a port")
		f.read(t, "not a port") // seen, and ignored
		if s := f.c.Status(); s.Backend != state.BackendTier2 || s.VSCode.Port != other.Port {
			t.Fatalf("garbage switched the backend: %+v", s.VSCode)
		}
	})
	t.Run("delete", func(t *testing.T) {
		os.Remove(f.portFile)
		f.waitBackend(t, state.BackendTier1)
		if got := seen(t, f.c); len(got) == 0 || strings.HasPrefix(got[0], "vscode-") {
			t.Fatalf("after the port file went, clients see %q", got)
		}
	})
	t.Run("recreate", func(t *testing.T) {
		writeAtomic(t, f.portFile, strconv.Itoa(vscode.Port))
		f.waitBackend(t, state.BackendTier2)
		if got := seen(t, f.c); len(got) != 1 || got[0] != "vscode-one" {
			t.Fatalf("clients see %q", got)
		}
	})
	t.Run("VS Code quits: the next need falls back", func(t *testing.T) {
		vscode.Stop(context.Background())
		s, err := f.c.Ensure(context.Background())
		if err != nil && !strings.Contains(err.Error(), "lost") {
			t.Fatal(err)
		}
		// The loss may be noticed first (crashed); the next need falls back.
		if s, err = f.c.Ensure(context.Background()); err != nil || s.Backend != state.BackendTier1 || s.State != coordinator.Running {
			t.Fatalf("after VS Code quit: %+v %v", s, err)
		}
		// The watcher learns of the fallback from the coordinator's event
		// and says so in the state file.
		guard := time.After(testutil.Guard)
		for v := f.c.Status().VSCode; v.Tier != 1 || !strings.Contains(v.Reason, "stopped answering"); v = f.c.Status().VSCode {
			select {
			case <-f.states:
			case <-guard:
				t.Fatalf("status: %+v", v)
			}
		}
	})
}

func TestLateFallBackChangesNothing(t *testing.T) {
	c, err := coordinator.New(coordinator.Config{StateDir: tempDir(t, "s")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	now := coordinator.VSCodeStatus{Inside: true, Tier: 2, Port: 2222, Reason: "port file"}
	w := &Watcher{c: c, log: slog.Default(), current: now}
	c.SetVSCodeStatus(&now)

	// The fallback of a start on port 1111 lands after the watcher moved to 2222.
	w.fellBack(coordinator.Event{Kind: coordinator.FellBack, Source: sourceKey(1111), Reason: "unreachable"})
	if s := c.Status().VSCode; s == nil || *s != now || w.current != now {
		t.Fatalf("a late fallback for another port changed the status: %+v", s)
	}
	w.fellBack(coordinator.Event{Kind: coordinator.FellBack, Source: sourceKey(2222), Reason: "unreachable"})
	if s := c.Status().VSCode; s == nil || s.Tier != 1 || !s.Inside || !strings.Contains(s.Reason, "2222 stopped answering") {
		t.Fatalf("after the current port fell back: %+v", s)
	}
}

// VS Code quit and another user took its port: the next connect (the
// coordinator's reconnect) is refused before a byte goes to that port.
func TestConnectRefusesAPortOfAnotherUser(t *testing.T) {
	ln := testutil.ListenAs(t, 65534)
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	_, err := connector{port: ln.Addr().(*net.TCPAddr).Port, log: slog.Default()}.Connect(context.Background(), backend.Options{})
	if err == nil || !strings.Contains(err.Error(), "uid 65534") {
		t.Fatalf("Connect to another user's port: %v", err)
	}
	select {
	case <-accepted:
		t.Fatal("Connect reached another user's port")
	case <-time.After(100 * time.Millisecond):
	}
}
