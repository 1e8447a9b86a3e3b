package coordinator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
)

// otherBrowser is a browser the coordinator did not start.
func otherBrowser(t *testing.T) *testbrowser.Browser {
	t.Helper()
	return testbrowser.Launch(t, "data:text/html,<title>other-browser</title>")
}

func attachTo(b *testbrowser.Browser) *Source {
	return AttachSource("http://"+b.Addr(), nil)
}

// pagesSeen lists the page URLs a client sees through the proxy.
func pagesSeen(t *testing.T, c *Coordinator) string {
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
	return string(res)
}

func TestAttach(t *testing.T) {
	other := otherBrowser(t)
	c := newCoordinator(t, Config{})
	c.SetSource(attachTo(other))
	ctx := context.Background()

	s, err := c.Ensure(ctx)
	if err != nil || s.State != Running || s.Backend != state.BackendAttach || s.Browser.Type != state.BackendAttach || s.Browser.PID != 0 {
		t.Fatalf("attached: %+v %v", s, err)
	}
	if c.read().launches != 1 || !strings.Contains(pagesSeen(t, c), "other-browser") {
		t.Fatal("clients do not reach the attached browser")
	}
	if f := readState(t, c); f.Backend != state.BackendAttach || f.State != "running" {
		t.Fatalf("state file: %+v", f)
	}

	// Browser options cannot change a browser the coordinator did not start.
	_, _, err = c.Launch(ctx, func(o *Options) { o.Headless = !o.Headless })
	var bad *BadRequestError
	if !errors.As(err, &bad) || !remedy.Has(err, remedy.Reconnect) {
		t.Fatalf("launch with other options: %v", err)
	}
	// Stop lets go; it never kills what it did not start.
	if s, _ = c.Stop(ctx); s.State != Stopped || !proc.Alive(other.PID) {
		t.Fatalf("stop: %+v, attached browser alive: %v", s, proc.Alive(other.PID))
	}
	if s, err = c.Restart(ctx); err != nil || s.State != Running || !proc.Alive(other.PID) {
		t.Fatalf("restart reconnects: %+v %v", s, err)
	}
}

func TestAttachedBrowserGoingAwayIsNoticed(t *testing.T) {
	other := otherBrowser(t)
	c := newCoordinator(t, Config{})
	c.SetSource(attachTo(other))
	if _, err := c.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	changed := watchState(t, c.StatePath())
	other.Stop(context.Background())
	waitFor(t, changed, func(f state.File) bool { return f.State == "crashed" })
	if s := c.Status(); !strings.Contains(s.LastError, "lost the connection to the browser at") {
		t.Fatalf("status: %+v", s)
	}
	_, err := c.Ensure(context.Background())
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("the next need: %v", err)
	}
	if c.Status().Backend != state.BackendAttach {
		t.Fatal("attach mode must never fall back to launching")
	}
}

func TestSwitchingBackendsLive(t *testing.T) {
	other := otherBrowser(t)
	c := newCoordinator(t, Config{})
	ctx := testutil.Context(t) // a dial may wait for a launch: long on a busy machine
	s, err := c.Ensure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	launched, port := s.Browser.PID, s.ProxyPort
	conn, err := cdp.Dial(ctx, c.Proxy().WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}

	c.SetSource(attachTo(other))
	select {
	case <-conn.Done():
	case <-time.After(testutil.Guard):
		t.Fatal("a client of the old backend was not disconnected")
	}
	if !strings.Contains(pagesSeen(t, c), "other-browser") {
		t.Fatal("after the switch, clients do not reach the new backend")
	}
	testutil.WaitExit(t, launched, testutil.Guard) // the launched browser is no longer needed
	if s := c.Status(); s.ProxyPort != port || s.Backend != state.BackendAttach {
		t.Fatalf("after the switch: %+v", s)
	}

	c.SetSource(nil)
	if strings.Contains(pagesSeen(t, c), "other-browser") {
		t.Fatal("after switching back, clients still reach the attached browser")
	}
	if s := c.Status(); s.Backend != state.BackendTier1 || s.Browser.PID == 0 || !proc.Alive(other.PID) {
		t.Fatalf("back to a launched browser: %+v", s)
	}
}

func TestUnreachableSourceFallsBackWhenAsked(t *testing.T) {
	c := newCoordinator(t, Config{})
	events, unsubscribe := c.Subscribe()
	defer unsubscribe()
	src := AttachSource(fmt.Sprintf("http://127.0.0.1:%d", deadPort(t)), nil)
	src.Kind, src.Key, src.Fallback = state.BackendTier2, "vscode", true
	c.SetSource(src)
	s, err := c.Ensure(context.Background())
	if err != nil || s.Backend != state.BackendTier1 || s.State != Running || !strings.Contains(s.Fallback, "does not answer") {
		t.Fatalf("fallback: %+v %v", s, err)
	}
	timeout := time.After(testutil.Guard)
	for {
		select {
		case ev := <-events:
			if ev.Kind != FellBack {
				continue
			}
			if ev.Source != "vscode" || !strings.Contains(ev.Reason, "does not answer") {
				t.Fatalf("event %+v", ev)
			}
			return
		case <-timeout:
			t.Fatal("no FellBack event")
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"wss://connect.example.com?apiKey=secret":     "wss://connect.example.com?…",
		"https://user:pass@browser.example.com:3000/": "https://browser.example.com:3000/",
		"http://127.0.0.1:9222":                       "http://127.0.0.1:9222",
	} {
		if got := cdp.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
