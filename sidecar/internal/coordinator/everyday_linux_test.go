package coordinator

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/userbrowser"
)

// The everyday backend against the real pieces: the user's Chromium with
// the built extension and the native host of this tree (package
// testutil/userbrowser), and, for Chrome 144's way in, a Chromium with a
// debugging port and its DevToolsActivePort.

func testLogger() *slog.Logger {
	level := slog.LevelWarn
	if os.Getenv("BROWSER_COORDINATOR_DEBUG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// everydayCoordinator is a coordinator of folder on the user's browser.
func everydayCoordinator(t *testing.T, st, folder string, cfg Config) *Coordinator {
	t.Helper()
	cfg.StateDir, cfg.Workspace, cfg.Logger = st, folder, testLogger()
	if cfg.EverydayWait == 0 {
		cfg.EverydayWait = testutil.Guard
	}
	c := newCoordinator(t, cfg)
	c.SetSource(c.EverydaySource())
	return c
}

// waitStatus waits (on the coordinator's events) until ok accepts its status.
func waitStatus(t *testing.T, c *Coordinator, what string, ok func(Status) bool) Status {
	t.Helper()
	events, stop := c.Subscribe()
	defer stop()
	timeout := time.After(testutil.Guard)
	for {
		if s := c.Status(); ok(s) {
			return s
		}
		select {
		case <-events:
		case <-timeout:
			t.Fatalf("%s: never came; status %+v everyday %+v", what, c.Status(), c.Status().Everyday)
		}
	}
}

func tabURLs(t *testing.T, c *Coordinator) map[string]string {
	t.Helper()
	tabs, err := c.Tabs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	urls := map[string]string{}
	for _, tab := range tabs {
		urls[tab.URL] = tab.ID
	}
	return urls
}

// evalOn evaluates expr on the coordinator's own session on a tab.
func evalOn(t *testing.T, s *TabSession, expr string) string {
	t.Helper()
	res, err := s.Call(context.Background(), "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	var r struct{ Result struct{ Value any } }
	_ = json.Unmarshal(res, &r)
	return fmt.Sprint(r.Result.Value)
}

// attachAt attaches the coordinator's own session to a tab and waits until
// the tab shows path (a new tab's first document is about:blank until its
// URL commits); onEvent also gets the session's events.
func attachAt(t *testing.T, c *Coordinator, tabID, path string, onEvent func(cdp.Message)) *TabSession {
	t.Helper()
	ctx := context.Background()
	navigated := make(chan struct{}, 16)
	s, err := c.AttachTab(ctx, tabID, func(m cdp.Message) {
		if m.Method == "Page.frameNavigated" {
			select {
			case navigated <- struct{}{}:
			default:
			}
		}
		if onEvent != nil {
			onEvent(m)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Call(ctx, "Page.enable", nil); err != nil {
		t.Fatal(err)
	}
	for timeout := time.After(testutil.Guard); evalOn(t, s, "location.pathname + location.hash") != path; {
		select {
		case <-navigated:
		case <-timeout:
			t.Fatalf("tab %s never showed %s", tabID, path)
		}
	}
	return s
}

func TestEverydayBackend(t *testing.T) {
	srv := userbrowser.Pages(t)
	private, shared := srv.URL+"/private", srv.URL+"/shared"
	st := stateDir(t)
	user := userbrowser.Start(t, st, private, shared)
	folder := "/work/projA"
	c := everydayCoordinator(t, st, folder, Config{})
	ctx := context.Background()

	s, err := c.Ensure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e := s.Everyday
	if s.State != Running || s.Backend != state.BackendEveryday || e == nil || !e.Connected || e.Via != ExtensionVia ||
		e.ExtensionID != userbrowser.ExtensionID || e.HostPID == 0 || !proc.Alive(e.HostPID) || e.Tabs != 0 ||
		s.Browser == nil || s.Browser.Type != "chromium" || s.Browser.Version == "" {
		t.Fatalf("status: %+v, everyday %+v, browser %+v", s, e, s.Browser)
	}
	if f := readState(t, c); f.Backend != state.BackendEveryday || f.Everyday == nil || !f.Everyday.Connected || f.Everyday.HostPID != e.HostPID {
		t.Fatalf("state file: %+v, everyday %+v", f, f.Everyday)
	}
	if tabs, err := c.Tabs(ctx); err != nil || len(tabs) != 0 {
		t.Fatalf("before sharing the coordinator sees %+v %v", tabs, err)
	}

	// The user shares a tab: it appears (a PagesChanged event), alone.
	user.Share(shared, folder)
	waitStatus(t, c, "the shared tab counted", func(s Status) bool { return s.Everyday != nil && s.Everyday.Tabs == 1 })
	if urls := tabURLs(t, c); len(urls) != 1 || urls[shared] == "" {
		t.Fatalf("after sharing: %v", urls)
	}

	// The agent opens a tab; the coordinator's own session works in it.
	agent, err := c.OpenTab(ctx, srv.URL+"/agent", true)
	if err != nil {
		t.Fatal(err)
	}
	if front, ok := c.FrontTab(); !ok || front.ID != agent.ID {
		t.Fatalf("front tab %+v %v, opened %s", front, ok, agent.ID)
	}
	events := make(chan cdp.Message, 256)
	sess := attachAt(t, c, agent.ID, "/agent", func(m cdp.Message) {
		select {
		case events <- m:
		default:
		}
	})
	if _, err := sess.Call(ctx, "Page.navigate", map[string]any{"url": srv.URL + "/next"}); err != nil {
		t.Fatal(err)
	}
	// The load of /next: after its frameNavigated (the /agent page's own
	// load may come after attachAt saw it committed).
	for deadline, committed := time.After(testutil.Guard), false; ; {
		select {
		case m := <-events:
			committed = committed || m.Method == "Page.frameNavigated" && strings.Contains(string(m.Params), "/next")
			if committed && m.Method == "Page.loadEventFired" {
				goto loaded
			}
		case <-deadline:
			t.Fatal("no Page.loadEventFired on the coordinator's session after navigating")
		}
	}
loaded:
	if got := evalOn(t, sess, "document.title"); got != "next page" {
		t.Fatalf("after navigating: %q", got)
	}

	// The user's private tab: neither listed nor attachable.
	privateID := ""
	for _, ti := range user.Targets() {
		if ti.URL == private {
			privateID = ti.TargetID
		}
	}
	if _, ok := tabURLs(t, c)[private]; ok || privateID == "" {
		t.Fatalf("the private tab (%q) is listed: %v", privateID, tabURLs(t, c))
	}
	if _, err := c.AttachTab(ctx, privateID, nil); !errors.Is(err, ErrNoTab) {
		t.Fatalf("attaching to the user's private tab: %v", err)
	}

	// Proxy clients each get a browser session of their own on the one connection.
	if seen := pagesSeen(t, c); !strings.Contains(seen, "/shared") || !strings.Contains(seen, "/next") || strings.Contains(seen, "/private") {
		t.Fatalf("a proxy client sees %s", seen)
	}

	// A tab the agent opened that the user keeps (the popup's "Keep this tab").
	kept := srv.URL + "/kept"
	if _, err := c.OpenTab(ctx, kept, false); err != nil {
		t.Fatal(err)
	}
	user.Keep(kept)
	if err := c.CloseTab(ctx, tabURLs(t, c)[kept]); err == nil || !strings.Contains(err.Error(), "not opened by the agent") {
		t.Fatalf("closing a kept tab: %v", err)
	}

	// Stop lets go: the agent's tab closes, the session ends, the user's tabs, the kept one and the browser stay.
	if s, _ := c.Stop(ctx); s.State != Stopped || s.Everyday != nil {
		t.Fatalf("after stop: %+v", s)
	}
	select {
	case <-sess.Done():
	case <-time.After(testutil.Guard):
		t.Fatal("the coordinator's session on the agent's tab outlived the stop")
	}
	for deadline := time.Now().Add(testutil.Guard); user.HasTarget(userbrowser.IsPage(srv.URL + "/next")); {
		if time.Now().After(deadline) {
			t.Fatalf("the agent's tab is still open after stop: %+v", user.Targets())
		}
		user.WaitEvent(200*time.Millisecond, "Target.targetDestroyed")
	}
	if !user.HasTarget(userbrowser.IsPage(private)) || !user.HasTarget(userbrowser.IsPage(shared)) || !user.HasTarget(userbrowser.IsPage(kept)) || !user.Alive() {
		t.Fatalf("the user's tabs or browser went: %+v", user.Targets())
	}

	// Restart reconnects: the shared tab and the kept one are there again.
	if s, err := c.Restart(ctx); err != nil || s.State != Running || s.Everyday == nil || !s.Everyday.Connected {
		t.Fatalf("restart: %+v %v", s, err)
	}
	waitStatus(t, c, "the shared tabs back", func(s Status) bool { return s.Everyday != nil && s.Everyday.Tabs == 2 })

	// The coordinator's exit lets go too; the browser and the user's tabs stay.
	if _, err := c.OpenTab(ctx, srv.URL+"/closes-at-exit", false); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if user.HasTarget(userbrowser.IsPage(srv.URL+"/closes-at-exit")) || !user.HasTarget(userbrowser.IsPage(private)) || !user.HasTarget(userbrowser.IsPage(shared)) || !user.Alive() {
		t.Fatalf("after the coordinator's exit: %+v", user.Targets())
	}
}

// The extension goes away (its service worker stopped) and comes back: the
// coordinator says so, its tabs vanish and calls fail clearly, then work
// resumes by itself, with the tab that was in front in front again. The tab
// in front follows the user's clicks on the tabs the coordinator sees.
// On a first connection the tab in front is the tab the browser shows,
// not the last one in tab order.
func TestEverydayFirstConnectionFocusesTheTabTheBrowserShows(t *testing.T) {
	srv := userbrowser.Pages(t)
	a, b := srv.URL+"/a", srv.URL+"/b"
	st := stateDir(t)
	user := userbrowser.Start(t, st, srv.URL+"/private", a, b)
	user.Share(a, "/work/proj")
	user.Share(b, "/work/proj")
	for _, ti := range user.Targets() {
		if ti.URL == a { // opened before b: the lower tab id
			user.Must("", "Target.activateTarget", map[string]any{"targetId": ti.TargetID})
		}
	}
	c := everydayCoordinator(t, st, "/work/proj", Config{})
	if _, err := c.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, "both shared tabs", func(s Status) bool { return s.Everyday != nil && s.Everyday.Tabs == 2 })
	// The coordinator's tab follower hears of the tabs after the connection
	// counts them: wait for the one in front to settle (it never settles on
	// a if the last tab in tab order wins).
	waitStatus(t, c, "the tab the browser shows in front ("+a+")", func(Status) bool { f, _ := c.FrontTab(); return f.URL == a })
}

// A tab the agent opened behind the others is not the one in front when the
// extension comes back: the tab that was in front is.
func TestEverydayABackgroundTabStaysBehindAcrossAReconnection(t *testing.T) {
	srv := userbrowser.Pages(t)
	st := stateDir(t)
	user := userbrowser.Start(t, st, srv.URL+"/private")
	c := everydayCoordinator(t, st, "/work/proj", Config{})
	ctx := context.Background()
	if _, err := c.OpenTab(ctx, srv.URL+"/front", true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.OpenTab(ctx, srv.URL+"/behind", false); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, "the tab behind loaded", func(Status) bool { return tabURLs(t, c)[srv.URL+"/behind"] != "" })
	if front, _ := c.FrontTab(); front.URL != srv.URL+"/front" {
		t.Fatalf("before: the tab in front is %+v", front)
	}
	user.StopServiceWorker()
	waitStatus(t, c, "the extension's disconnection", func(s Status) bool { return s.Everyday != nil && !s.Everyday.Connected })
	user.Must("", "Target.createTarget", map[string]any{"url": srv.URL + "/wake"})
	waitStatus(t, c, "the extension back", func(s Status) bool { return s.Everyday != nil && s.Everyday.Connected && s.Everyday.Tabs == 2 })
	waitStatus(t, c, "a tab in front", func(Status) bool { _, ok := c.FrontTab(); return ok })
	if front, _ := c.FrontTab(); front.URL != srv.URL+"/front" {
		t.Fatalf("after the extension came back the tab in front is %+v, want %s/front", front, srv.URL)
	}
}

func TestEverydayExtensionGoesAndComesBack(t *testing.T) {
	srv := userbrowser.Pages(t)
	st := stateDir(t)
	user := userbrowser.Start(t, st, srv.URL+"/private", srv.URL+"/shared")
	c := everydayCoordinator(t, st, "/work/proj", Config{})
	ctx := context.Background()
	agent, err := c.OpenTab(ctx, srv.URL+"/agent", true)
	if err != nil {
		t.Fatal(err)
	}
	if front, ok := c.FrontTab(); !ok || front.ID != agent.ID {
		t.Fatalf("the tab in front is %+v, want the agent's %s", front, agent.ID)
	}
	if err := c.Disconnected(); err != nil {
		t.Fatalf("disconnected while connected: %v", err)
	}
	// The user shares a tab (it comes in front), clicks a private tab
	// (nothing changes), then the agent's tab: CDP says nothing of that,
	// the extension does.
	user.Share(srv.URL+"/shared", "/work/proj")
	waitStatus(t, c, "the shared tab in front", func(Status) bool { f, _ := c.FrontTab(); return f.URL == srv.URL+"/shared" })
	for _, ti := range user.Targets() {
		if ti.URL == srv.URL+"/private" {
			user.Must("", "Target.activateTarget", map[string]any{"targetId": ti.TargetID})
		}
	}
	user.Must("", "Target.activateTarget", map[string]any{"targetId": agent.ID})
	waitStatus(t, c, "the agent's tab in front at the user's click", func(Status) bool { f, _ := c.FrontTab(); return f.ID == agent.ID })
	before := attachAt(t, c, agent.ID, "/agent", nil)

	user.StopServiceWorker()
	select {
	case <-before.Done():
	case <-time.After(testutil.Guard):
		t.Fatal("the coordinator's session on the tab outlived the extension")
	}
	s := waitStatus(t, c, "the extension's disconnection", func(s Status) bool { return s.Everyday != nil && !s.Everyday.Connected })
	if s.State != Running || !strings.Contains(s.Everyday.Reason, "disconnected") {
		t.Fatalf("while the extension is away: %+v %+v", s, s.Everyday)
	}
	files := watchState(t, c.StatePath()) // watching before reading: a write in between is not missed
	if f := readState(t, c); f.Everyday == nil || f.Everyday.Connected {
		waitFor(t, files, func(f state.File) bool { return f.Everyday != nil && !f.Everyday.Connected })
	}
	waitStatus(t, c, "the tabs gone", func(Status) bool { _, ok := c.FrontTab(); return !ok })
	if err := c.Disconnected(); !errors.Is(err, ErrDisconnected) || !strings.Contains(err.Error(), "resumes by itself") {
		t.Fatalf("Disconnected while the extension is away: %v", err)
	}
	if tabs, err := c.Tabs(ctx); !errors.Is(err, ErrDisconnected) {
		t.Fatalf("listing the tabs while the extension is away: %v %+v; want ErrDisconnected, not a list", err, tabs)
	}
	if _, err := c.OpenTab(ctx, srv.URL+"/x", true); err == nil || !strings.Contains(err.Error(), "not connected") {
		t.Fatalf("opening a tab while the extension is away: %v", err)
	}
	if _, err := c.AttachTab(ctx, agent.ID, nil); err == nil {
		t.Fatal("attached to a tab while the extension is away")
	}

	// The user opens a tab: the browser wakes the worker, which connects again.
	user.Must("", "Target.createTarget", map[string]any{"url": srv.URL + "/wake"})
	waitStatus(t, c, "the extension back", func(s Status) bool { return s.Everyday != nil && s.Everyday.Connected && s.Everyday.Tabs == 2 })
	back, ok := tabURLs(t, c)[srv.URL+"/agent"]
	if !ok {
		t.Fatalf("the agent's tab did not come back: %v", tabURLs(t, c))
	}
	if front, _ := c.FrontTab(); front.ID != back {
		t.Fatalf("after the extension came back the tab in front is %+v, want the agent's (in front when it went)", front)
	}
	if err := c.Disconnected(); err != nil {
		t.Fatalf("disconnected once back: %v", err)
	}
	sess, err := c.AttachTab(ctx, back, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if got := evalOn(t, sess, "location.pathname"); got != "/agent" {
		t.Fatalf("after the extension came back: %q", got)
	}
}

// No browser with the extension, no debugging port: the start fails with
// what to do, and changes nothing else.
func TestEverydayNotThere(t *testing.T) {
	home := t.TempDir()
	d := browsers.System()
	d.Getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	c := everydayCoordinator(t, stateDir(t), "/work/proj", Config{EverydayWait: 500 * time.Millisecond, Detector: d})
	s, err := c.Ensure(context.Background())
	if err == nil || !remedy.Has(err, remedy.RegisterHost) || !strings.Contains(err.Error(), "chrome://inspect") {
		t.Fatalf("no browser: %v", err)
	}
	if s.State != Idle || s.Backend != state.BackendEveryday || !strings.Contains(s.LastError, "not connected") {
		t.Fatalf("status: %+v", s)
	}
}

// Switching with coordinator_launch_browser: to a launched browser and back.
func TestEverydaySwitches(t *testing.T) {
	srv := userbrowser.Pages(t)
	st := stateDir(t)
	user := userbrowser.Start(t, st)
	cfg := Config{StateDir: st, Workspace: "/work/proj", EverydayWait: testutil.Guard, Logger: testLogger()}
	c := newCoordinator(t, cfg)
	ctx := context.Background()
	everyday, other := "everyday", "chromium"
	url := srv.URL + "/agent"
	s, err := c.LaunchWith(ctx, LaunchRequest{BrowserType: &everyday, URL: &url})
	if err != nil || s.Backend != state.BackendEveryday || s.Everyday == nil || !s.Everyday.Connected {
		t.Fatalf("launch everyday: %+v %v", s, err)
	}
	if !user.HasTarget(userbrowser.IsPage(url)) {
		t.Fatalf("the url did not open in the user's browser: %+v", user.Targets())
	}
	// Bad input changes nothing.
	headless := true
	var bad *BadRequestError
	if _, err := c.LaunchWith(ctx, LaunchRequest{BrowserType: &everyday, Headless: &headless}); !errors.As(err, &bad) {
		t.Fatalf("everyday with headless: %v", err)
	}
	if s := c.Status(); s.Backend != state.BackendEveryday || s.State != Running {
		t.Fatalf("after a refused request: %+v", s)
	}
	// Another browser type: a browser of the coordinator's own; the agent's tab in the user's browser closes.
	s, err = c.LaunchWith(ctx, LaunchRequest{BrowserType: &other})
	if err != nil || s.Backend != state.BackendTier1 || s.Browser == nil || s.Browser.PID == 0 || s.Everyday != nil {
		t.Fatalf("switch to chromium: %+v %v", s, err)
	}
	for deadline := time.Now().Add(testutil.Guard); user.HasTarget(userbrowser.IsPage(url)); {
		if time.Now().After(deadline) {
			t.Fatalf("the agent's tab stayed in the user's browser: %+v", user.Targets())
		}
		user.WaitEvent(200*time.Millisecond, "Target.targetDestroyed")
	}
	// And back.
	if s, err = c.LaunchWith(ctx, LaunchRequest{BrowserType: &everyday}); err != nil || s.Backend != state.BackendEveryday || !s.Everyday.Connected {
		t.Fatalf("back to everyday: %+v %v", s, err)
	}
}

// connectionsTo counts this process's TCP connections to port on 127.0.0.1.
func connectionsTo(t *testing.T, port int) int {
	t.Helper()
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inodes := map[string]bool{} // the sockets this process holds
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	want := fmt.Sprintf("0100007F:%04X", port)
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// sl local remote st ... inode (field 9); 01 is ESTABLISHED
		if len(fields) > 9 && fields[2] == want && fields[3] == "01" && inodes[fields[9]] {
			n++
		}
	}
	return n
}

// Chrome 144's way in: DevToolsActivePort in the profile, one WebSocket for
// every client.
func TestEverydayActivePort(t *testing.T) {
	srv := userbrowser.Pages(t)
	users := srv.URL + "/users-page"
	b := testbrowser.Launch(t, users)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		typ  string // the browser type status shows
		cfg  func(*Config)
	}{
		{"named profile", "chrome", func(cfg *Config) { cfg.EverydayProfile = b.UserDataDir }},
		{"default profile", "chromium", func(cfg *Config) {
			// $XDG_CONFIG_HOME/chromium is where Chromium keeps its default profile.
			cfgHome := t.TempDir()
			if err := os.Symlink(b.UserDataDir, filepath.Join(cfgHome, "chromium")); err != nil {
				t.Fatal(err)
			}
			d := browsers.System()
			d.Getenv = func(k string) string {
				if k == "XDG_CONFIG_HOME" {
					return cfgHome
				}
				return ""
			}
			cfg.Detector = d
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{}
			tc.cfg(&cfg)
			c := everydayCoordinator(t, stateDir(t), "/work/proj", cfg)
			s, err := c.Ensure(ctx)
			if err != nil {
				t.Fatal(err)
			}
			e := s.Everyday
			if s.Backend != state.BackendEveryday || e == nil || e.Via != ActivePortVia || e.Port != b.Port || !e.Connected || s.Browser.Type != tc.typ {
				t.Fatalf("status: %+v everyday %+v browser %+v", s, e, s.Browser)
			}
			if urls := tabURLs(t, c); urls[users] == "" {
				t.Fatalf("tabs: %v", urls)
			}
			// Two clients and the coordinator's own follower: one connection to the browser.
			c1, err := cdp.Dial(ctx, c.Proxy().WSEndpoint(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c1.Close()
			c2, err := cdp.Dial(ctx, c.Proxy().WSEndpoint(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close()
			for _, cl := range []*cdp.Conn{c1, c2} {
				if res, err := cl.Call(ctx, "", "Target.getTargets", nil); err != nil || !strings.Contains(string(res), "/users-page") {
					t.Fatalf("a client through the proxy: %s %v", res, err)
				}
			}
			tab, err := c.OpenTab(ctx, srv.URL+"/agent#"+tc.typ, true)
			if err != nil {
				t.Fatal(err)
			}
			sess := attachAt(t, c, tab.ID, "/agent#"+tc.typ, nil)
			if n := connectionsTo(t, b.Port); n != 1 {
				t.Fatalf("%d connections to the browser's port, want 1", n)
			}
			sess.Close()
			// Stop lets go; the browser stays.
			c.Stop(ctx)
			if !proc.Alive(b.PID) {
				t.Fatal("stop closed the user's browser")
			}
			if n := connectionsTo(t, b.Port); n != 0 {
				t.Fatalf("%d connections to the browser's port after stop", n)
			}
			if err := c.CloseTab(ctx, tab.ID); err != nil {
				t.Fatal(err) // reconnects
			}
		})
	}

	// A profile without a DevToolsActivePort: what to do.
	c := everydayCoordinator(t, stateDir(t), "/work/proj", Config{EverydayProfile: t.TempDir()})
	if _, err := c.Ensure(ctx); err == nil || !strings.Contains(err.Error(), "chrome://inspect/#remote-debugging") {
		t.Fatalf("a profile without DevToolsActivePort: %v", err)
	}
	// A stale one (the browser has gone): it does not answer.
	stale := t.TempDir()
	if err := os.WriteFile(filepath.Join(stale, "DevToolsActivePort"), []byte(strconv.Itoa(deadPort(t))+"\n/devtools/browser/x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c = everydayCoordinator(t, stateDir(t), "/work/proj", Config{EverydayProfile: stale})
	if _, err := c.Ensure(ctx); err == nil || !strings.Contains(err.Error(), "has no listening socket") {
		t.Fatalf("a stale DevToolsActivePort: %v", err)
	}
}
