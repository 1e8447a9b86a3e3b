//go:build linux

// Integration tests against a real Chromium (see testutil.BrowserPath).
package launcher

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
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

func jsonVersion(t *testing.T, addr string) map[string]string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestLaunchAndStop(t *testing.T) {
	b := launch(t, Options{})
	if b.Port <= 0 || !strings.HasPrefix(b.WSPath, "/devtools/browser/") {
		t.Fatalf("endpoint = %d %q", b.Port, b.WSPath)
	}
	v := jsonVersion(t, b.Addr())
	if !strings.HasSuffix(v["webSocketDebuggerUrl"], b.WSPath) || b.Product == "" || v["Browser"] != b.Product {
		t.Fatalf("/json/version = %v, browser = %+v", v, b)
	}
	st, err := os.Stat(b.UserDataDir)
	if err != nil || st.Mode().Perm() != 0o700 || !b.Temporary() {
		t.Fatalf("temporary profile %s: %v %v", b.UserDataDir, st.Mode(), err)
	}
	if !slices.Contains(b.Argv, "--remote-debugging-port=0") || !slices.Contains(b.Argv, "--headless") {
		t.Fatalf("argv = %v", b.Argv)
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
	if err := b.Stop(context.Background()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

func TestPersistentProfileWithStaleActivePort(t *testing.T) {
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
	if b.Port == 1 || strings.Contains(b.WSPath, "dead-beef") {
		t.Fatalf("launcher believed the stale DevToolsActivePort: %d %s", b.Port, b.WSPath)
	}
	jsonVersion(t, b.Addr())
	if err := b.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("persistent profile removed: %v", err)
	}
}

func TestStopKillsUnresponsiveBrowser(t *testing.T) {
	b := launch(t, Options{StopTimeout: 200 * time.Millisecond})
	// A frozen browser ignores Browser.close; the group kill must end it.
	if err := b.cmd.Process.Signal(stopSignal()); err != nil {
		t.Skip("cannot freeze a process on this OS")
	}
	start := time.Now()
	if err := b.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if proc.Alive(b.PID) {
		t.Fatal("frozen browser survived Stop")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Stop took %v with a 200ms timeout", d)
	}
}

func TestContextCancelStopsBrowser(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b, err := Launch(ctx, Options{Path: testutil.BrowserPath(t), Headless: true, ProfileRoot: shortTempDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-b.Done():
	case <-time.After(10 * time.Second):
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
	t.Run("never opens its port", func(t *testing.T) {
		path := writeScript(t, `exec sleep 60`)
		_, err := Launch(context.Background(), Options{Path: path, ProfileRoot: t.TempDir(), LaunchTimeout: 300 * time.Millisecond})
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v; want ErrTimeout", err)
		}
	})
	t.Run("profile in use", func(t *testing.T) {
		path := writeScript(t, `echo "Opening in existing browser session." >&2; exit 0`)
		_, err := Launch(context.Background(), Options{Path: path, ProfileRoot: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "in use by another browser") {
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
