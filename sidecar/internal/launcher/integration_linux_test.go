//go:build linux

// Integration tests against a real Chromium (see testutil.BrowserPath).
package launcher

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func launch(t *testing.T, o Options) *Browser {
	t.Helper()
	if o.Path == "" {
		o.Path = testutil.BrowserPath(t)
	}
	o.Headless = true
	if o.ProfileRoot == "" {
		o.ProfileRoot = shortTempDir(t)
	}
	b, err := Launch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Stop(context.Background()) })
	return b
}

// shortTempDir is a folder with a path short enough for a browser's temp
// files to live inside its profile (see browserTempDir); t.TempDir is not.
func shortTempDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "p")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func TestLaunchAndStop(t *testing.T) {
	b := launch(t, Options{})
	res, err := b.Conn.Call(context.Background(), "", "Browser.getVersion", nil)
	var v struct{ Product string }
	if err != nil || json.Unmarshal(res, &v) != nil || v.Product == "" || v.Product != b.Version.Product {
		t.Fatalf("Browser.getVersion on the pipe: %s %v; browser = %+v", res, err, b)
	}
	st, err := os.Stat(b.UserDataDir)
	if err != nil || st.Mode().Perm() != 0o700 || !b.Temporary() {
		t.Fatalf("temporary profile %s: %v %v", b.UserDataDir, st.Mode(), err)
	}
	if !slices.Contains(b.Argv, "--remote-debugging-pipe") || !slices.Contains(b.Argv, "--headless") || slices.ContainsFunc(b.Argv, func(a string) bool { return strings.HasPrefix(a, "--remote-debugging-port") }) {
		t.Fatalf("argv = %v", b.Argv)
	}
	// No port: no other program can reach the browser.
	if ports := testutil.ListeningTCP(t, b.PID); len(ports) != 0 {
		t.Fatalf("the launched browser listens on TCP ports %v", ports)
	}
	if _, err := os.Stat(filepath.Join(b.UserDataDir, ActivePortFile)); !os.IsNotExist(err) {
		t.Fatalf("a DevToolsActivePort was written: %v", err)
	}
	// Chromium's crash handler leaves the browser's group; it names the
	// profile's crash folder, which tells it apart from any other browser's.
	crashDir := filepath.Join(b.UserDataDir, "Crash Reports")
	if handlers := testutil.ProcessesWith(crashDir); len(handlers) == 0 {
		t.Log("no crash handler started (a Chromium built without crashpad): the test of its end proves nothing here")
	} else {
		t.Logf("%d crash handler processes run outside the group", len(handlers))
	}

	if err := b.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-b.Done():
	default:
		t.Fatal("Stop returned before the browser was reaped")
	}
	if proc.Alive(b.PID) {
		t.Fatal("browser still alive after Stop")
	}
	if _, err := os.Stat(b.UserDataDir); !os.IsNotExist(err) {
		t.Fatalf("temporary profile not removed: %v", err)
	}
	if left := testutil.ProcessesWith(b.UserDataDir); len(left) != 0 {
		t.Fatalf("processes of the browser outlived Stop (a crash handler?): %v", left)
	}
	if err := b.Stop(context.Background()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

func TestPersistentProfileLeftWithoutAnActivePort(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "profile")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// A file left by an earlier browser, pointing at a dead port.
	stale := "1\n/devtools/browser/00000000-dead-beef-0000-000000000000\n"
	if err := os.WriteFile(filepath.Join(dir, ActivePortFile), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	b := launch(t, Options{UserDataDir: dir})
	if _, err := b.Conn.Call(context.Background(), "", "Browser.getVersion", nil); err != nil {
		t.Fatal(err)
	}
	// The stale file is gone, and the browser on its pipe writes none: no
	// tool of ours or of anyone else reads a dead port from this profile.
	if _, err := os.Stat(filepath.Join(dir, ActivePortFile)); !os.IsNotExist(err) {
		t.Fatalf("DevToolsActivePort in the profile: %v", err)
	}
	if err := b.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("persistent profile removed: %v", err)
	}
}

func TestStopKillsUnresponsiveBrowser(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) }), nil))
	b := launch(t, Options{StopTimeout: 200 * time.Millisecond, Logger: log})
	// A frozen browser ignores Browser.close and never exits by itself: only
	// the group kill, after the configured timeout, can end it.
	if err := b.cmd.Process.Signal(stopSignal()); err != nil {
		t.Skip("cannot freeze a process on this OS")
	}
	if err := b.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if proc.Alive(b.PID) {
		t.Fatal("frozen browser survived Stop")
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "killing its process group") || !strings.Contains(logs.String(), "timeout=200ms") {
		t.Fatalf("Stop did not kill the group after the 200ms timeout:\n%s", logs.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestContextCancelStopsBrowser(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b, err := Launch(ctx, Options{Path: testutil.BrowserPath(t), Headless: true, ProfileRoot: shortTempDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-b.Done():
	case <-time.After(testutil.Guard):
		t.Fatal("browser outlived its context")
	}
	_ = b.Stop(context.Background()) // waits for the profile removal started by the cancel
	if _, err := os.Stat(b.UserDataDir); !os.IsNotExist(err) {
		t.Fatalf("profile left after cancel: %v", err)
	}
}

func writeScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-browser")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLaunchFailures(t *testing.T) {
	t.Run("exits at once", func(t *testing.T) {
		root := t.TempDir()
		path := writeScript(t, `echo "boom: no display" >&2; exit 3`)
		_, err := Launch(context.Background(), Options{Path: path, ProfileRoot: root})
		if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "boom: no display") {
			t.Fatalf("err = %v; want ErrExited with the browser's stderr", err)
		}
		if entries, _ := os.ReadDir(root); len(entries) != 0 {
			t.Fatalf("failed launch left a profile: %v", entries)
		}
	})
	t.Run("never answers on its pipe", func(t *testing.T) {
		path := writeScript(t, `exec sleep 60`)
		_, err := Launch(context.Background(), Options{Path: path, ProfileRoot: t.TempDir(), LaunchTimeout: 300 * time.Millisecond})
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v; want ErrTimeout", err)
		}
	})
	t.Run("profile in use", func(t *testing.T) {
		path := writeScript(t, `echo "Opening in existing browser session." >&2; exit 0`)
		_, err := Launch(context.Background(), Options{Path: path, ProfileRoot: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "in use by another browser") || !remedy.Has(err, remedy.UserDataDir) {
			t.Fatalf("err = %v; want a hint about the profile in use", err)
		}
	})
	t.Run("not executable", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "plain-file")
		os.WriteFile(p, []byte("x"), 0o644)
		if _, err := Launch(context.Background(), Options{Path: p, ProfileRoot: t.TempDir()}); err == nil {
			t.Fatal("launching a non-executable file succeeded")
		}
	})
}

func TestBrowserDiesWithKilledCoordinator(t *testing.T) {
	browser := testutil.BrowserPath(t)
	profiles := shortTempDir(t)
	pid, profile := startFakeCoordinator(t, browser, profiles, nil)

	if !proc.Alive(pid) {
		t.Fatal("browser not running")
	}
	if n := SweepProfiles(profiles, proc.Alive); n != 0 {
		t.Fatalf("sweep removed %d profiles of a live coordinator", n)
	}
	killFakeCoordinator(t)
	testutil.WaitGroupExit(t, pid, 10*time.Second) // the browser leads its own group
	if _, err := os.Stat(profile); err != nil {
		t.Fatalf("profile should remain for the next start's sweep: %v", err)
	}
	if n := SweepProfiles(profiles, proc.Alive); n != 1 {
		t.Fatalf("sweep removed %d profiles, want 1", n)
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Fatal("sweep left the dead coordinator's profile")
	}
}

func TestStopEndsProcessesThatLeftTheGroup(t *testing.T) {
	// A crash handler that would not exit by itself: a process in a session
	// of its own given --database=<the browser's crash folder>, as the crash
	// handler is; beside it, a process that merely names a file there (an
	// editor on a dump), which must be left alone.
	marker := filepath.Join(shortTempDir(t), "Crash Reports")
	start := func(arg0 string) (*exec.Cmd, chan struct{}) {
		cmd := exec.Command("sleep", "60")
		cmd.Args[0] = arg0 // its command line starts with arg0
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
		return cmd, exited
	}
	_, handler := start("--database=" + marker)
	_, editor := start(filepath.Join(marker, "pending", "x.dmp"))
	endStragglers(marker, slog.Default())
	select {
	case <-handler:
	case <-time.After(testutil.Guard):
		t.Fatal("a process that left the browser's group outlived endStragglers")
	}
	select {
	case <-editor:
		t.Fatal("endStragglers ended a process that only names a file in the crash folder")
	case <-time.After(200 * time.Millisecond):
	}
}
