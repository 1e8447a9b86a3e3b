package coordinator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/reach"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// stateDir is short: temporary profiles live below it (see launcher.browserTempDir).
var stateDir = testutil.ShortDir

func newCoordinator(t *testing.T, cfg Config) *Coordinator {
	t.Helper()
	if cfg.StateDir == "" {
		cfg.StateDir = stateDir(t)
	}
	if cfg.Options.BrowserPath == "" && cfg.Options.BrowserType == "" {
		cfg.Options.BrowserPath = testutil.BrowserPath(t)
	}
	cfg.Options.Headless = true
	if cfg.LaunchTimeout == 0 {
		cfg.LaunchTimeout = testutil.Guard // more than the launcher's default: a busy machine's -race run
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func readState(t *testing.T, c *Coordinator) state.File {
	t.Helper()
	f, err := state.Read(c.StatePath())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestStartsWithoutABrowser(t *testing.T) {
	c := newCoordinator(t, Config{})
	s := c.Status()
	if s.State != Idle || s.Browser != nil || s.ProxyPort == 0 {
		t.Fatalf("status = %+v", s)
	}
	f := readState(t, c)
	if f.State != "idle" || f.ProxyPort != s.ProxyPort || f.PID != os.Getpid() || f.ControlToken == "" || len(f.ProxySecret) < 16 ||
		f.CDPEndpoint != fmt.Sprintf("http://127.0.0.1:%d/%s", s.ProxyPort, f.ProxySecret) || f.Backend != state.BackendTier1 ||
		f.WSEndpoint != fmt.Sprintf("ws://127.0.0.1:%d/%s/devtools/browser/coordinator", s.ProxyPort, f.ProxySecret) ||
		f.WSEndpoint != f.WSURL() || f.WSEndpoint != c.Proxy().WSEndpoint() || f.CDPEndpoint != f.CDPURL() {
		t.Fatalf("state file = %+v", f)
	}
	// What the agent sees never holds the secret.
	if strings.Contains(s.CDPEndpoint+s.WSEndpoint, f.ProxySecret) || !strings.Contains(s.CDPEndpoint, "<secret>") {
		t.Fatalf("status shows the secret: %s %s", s.CDPEndpoint, s.WSEndpoint)
	}
	st, _ := os.Stat(c.StatePath())
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("state file mode %v", st.Mode())
	}
	if c.read().launches != 0 {
		t.Fatal("a browser was launched at start")
	}
}

func TestConcurrentNeedsShareOneLaunch(t *testing.T) {
	c := newCoordinator(t, Config{})
	const n = 12
	var wg sync.WaitGroup
	conns := make([]any, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := c.Backend(context.Background())
			conns[i], errs[i] = b.Conn, err
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || conns[i] != conns[0] {
			t.Fatalf("need %d: %v %v vs %v", i, errs[i], conns[i], conns[0])
		}
	}
	if c.read().launches != 1 {
		t.Fatalf("%d launches for %d concurrent needs", c.read().launches, n)
	}
	f := readState(t, c)
	if f.State != "running" || f.Browser == nil || f.Browser.PID == 0 || f.Browser.Version == "" || !f.Browser.Headless {
		t.Fatalf("state file after launch = %+v %+v", f, f.Browser)
	}
}

func TestFirstProxyConnectionLaunches(t *testing.T) {
	c := newCoordinator(t, Config{})
	resp, err := http.Get(c.Proxy().Endpoint() + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "webSocketDebuggerUrl") {
		t.Fatalf("first request: %s %s", resp.Status, body)
	}
	if c.Status().State != Running {
		t.Fatalf("state = %s", c.Status().State)
	}
}

func TestStopRestartKeepThePort(t *testing.T) {
	c := newCoordinator(t, Config{})
	ctx := testutil.Context(t) // a dial may wait for a launch: long on a busy machine
	s1, err := c.Ensure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	port, pid1 := s1.ProxyPort, s1.Browser.PID
	conn, err := cdp.Dial(ctx, c.Proxy().WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}

	s2, err := c.Restart(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s2.State != Running || s2.ProxyPort != port || s2.Browser.PID == pid1 || proc.Alive(pid1) {
		t.Fatalf("after restart: %+v (old pid %d alive=%v)", s2, pid1, proc.Alive(pid1))
	}
	select {
	case <-conn.Done():
	case <-time.After(testutil.Guard):
		t.Fatal("client connection to the old browser was not closed")
	}
	conn2, err := cdp.Dial(ctx, c.Proxy().WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn2.Call(ctx, "", "Browser.getVersion", nil); err != nil {
		t.Fatal(err)
	}
	conn2.Close()

	s3, err := c.Stop(ctx)
	if err != nil || s3.State != Stopped || s3.ProxyPort != port || proc.Alive(s2.Browser.PID) {
		t.Fatalf("after stop: %+v %v", s3, err)
	}
	if readState(t, c).State != "stopped" {
		t.Fatal("state file not updated on stop")
	}
	// The next need launches again, same port.
	if _, err := cdp.Dial(ctx, c.Proxy().WSEndpoint(), nil); err != nil {
		t.Fatal(err)
	}
	if s := c.Status(); s.State != Running || s.ProxyPort != port {
		t.Fatalf("after the next need: %+v", s)
	}
}

func TestCrashIsNoticedAndTheNextNeedRelaunches(t *testing.T) {
	c := newCoordinator(t, Config{Options: Options{URL: "about:blank#start"}})
	ctx := context.Background()
	s, err := c.Ensure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stateChanged := watchState(t, c.StatePath())
	if p, err := os.FindProcess(s.Browser.PID); err == nil {
		p.Kill() // from outside: the coordinator did not ask for it
	}
	waitFor(t, stateChanged, func(f state.File) bool { return f.State == "crashed" })
	if st := c.Status(); st.State != Crashed || !strings.Contains(st.LastError, "exited on its own") {
		t.Fatalf("status after crash: %+v", st)
	}
	s2, err := c.Ensure(ctx)
	if err != nil || s2.State != Running || s2.Browser.PID == s.Browser.PID {
		t.Fatalf("relaunch after crash: %+v %v", s2, err)
	}
	if c.Options().URL != "about:blank#start" {
		t.Fatal("relaunch lost the options")
	}
}

func TestLaunchWithOtherOptionsRelaunches(t *testing.T) {
	other := filepath.Join(t.TempDir(), "profile") // before the coordinator: removed after it closes
	c := newCoordinator(t, Config{})
	ctx := context.Background()
	s1, launched, err := c.Launch(ctx, nil)
	if err != nil || !launched {
		t.Fatal(launched, err)
	}
	same, launched, err := c.Launch(ctx, func(o *Options) { o.Headless = true; o.URL = "about:blank#other" })
	if err != nil || launched || same.Browser.PID != s1.Browser.PID {
		t.Fatalf("launch with the same browser options relaunched: %v %v", launched, err)
	}
	s2, launched, err := c.Launch(ctx, func(o *Options) { o.UserDataDir = other })
	if err != nil || !launched || s2.Browser.PID == s1.Browser.PID || s2.ProxyPort != s1.ProxyPort {
		t.Fatalf("launch with another profile: %+v %v %v", s2, launched, err)
	}
	if _, err := os.Stat(filepath.Join(other, "Default")); err != nil {
		t.Fatalf("the relaunched browser does not use the new profile: %v", err)
	}
}

func TestBadOptionsChangeNothing(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "chrome")
	os.WriteFile(notExec, []byte("not a program"), 0o644)
	crashes := filepath.Join(dir, "crashes")
	os.WriteFile(crashes, []byte("#!/bin/sh\necho 'cannot open display' >&2\nexit 1\n"), 0o755)
	c := newCoordinator(t, Config{})
	ctx := context.Background()
	good := c.Options()

	_, _, err := c.Launch(ctx, func(o *Options) { o.BrowserPath = notExec })
	if !errors.Is(err, browsers.ErrNotExecutable) {
		t.Fatalf("not executable: %v", err)
	}
	if s := c.Status(); s.State != Idle || c.read().launches != 0 || c.Options() != good {
		t.Fatalf("a rejected path changed something: %+v, %d launches, options %+v", s, c.read().launches, c.Options())
	}

	// An executable that fails to start: the error says why, the options
	// that worked stay, and the next need uses them.
	_, _, err = c.Launch(ctx, func(o *Options) { o.BrowserPath = crashes })
	if !errors.Is(err, launcher.ErrExited) || !strings.Contains(err.Error(), "cannot open display") {
		t.Fatalf("failing browser: %v", err)
	}
	if s := c.Status(); s.State != Idle || !strings.Contains(s.LastError, "cannot open display") {
		t.Fatalf("after a failed launch: %+v", s)
	}
	if f := readState(t, c); f.State != "idle" {
		t.Fatalf("state file after a failed launch: %s", f.State)
	}
	if c.Options() != good {
		t.Fatalf("options after a failed launch: %+v", c.Options())
	}
	if _, err := c.Backend(ctx); err != nil {
		t.Fatalf("the next need must launch with the options that work: %v", err)
	}
}

func TestUnknownBrowserTypeListsDetected(t *testing.T) {
	c := newCoordinator(t, Config{Options: Options{BrowserType: "vivaldi"}})
	_, err := c.Ensure(context.Background())
	if !errors.Is(err, browsers.ErrNotFound) || !strings.Contains(err.Error(), "detected:") {
		t.Fatalf("err = %v", err)
	}
}

func TestSweepAtStart(t *testing.T) {
	dir := stateDir(t)
	dead := deadPID(t)
	staleState := state.Path(dir, fmt.Sprintf("%d-0000", dead))
	state.Write(staleState, &state.File{PID: dead, ProxyPort: 1})
	corrupt := filepath.Join(dir, "corrupt.json")
	os.WriteFile(corrupt, []byte("{not json"), 0o600)
	staleProfile := filepath.Join(dir, "profiles", fmt.Sprintf("%s%d-abcdef", launcher.ProfilePrefix, dead))
	os.MkdirAll(staleProfile, 0o700)

	newCoordinator(t, Config{StateDir: dir})
	if _, err := os.Stat(staleState); !os.IsNotExist(err) {
		t.Error("stale state file not swept")
	}
	if _, err := os.Stat(staleProfile); !os.IsNotExist(err) {
		t.Error("stale profile not swept")
	}
	if _, err := os.Stat(corrupt); err != nil {
		t.Error("a corrupted state file must be left alone (ignored with a warning)")
	}
}

func TestCloseStopsTheBrowserAndRemovesTheStateFile(t *testing.T) {
	c := newCoordinator(t, Config{})
	s, err := c.Ensure(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if proc.Alive(s.Browser.PID) {
		t.Fatal("browser survived Close")
	}
	if _, err := os.Stat(c.StatePath()); !os.IsNotExist(err) {
		t.Fatal("state file survived Close")
	}
	if _, err := c.Ensure(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Ensure after Close: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(filepath.Dir(c.StatePath()), "profiles")); len(entries) != 0 {
		t.Fatalf("profiles left: %v", entries)
	}
}

func TestTabsAndCurrentURL(t *testing.T) {
	c := newCoordinator(t, Config{})
	ctx := context.Background()
	changed := watchState(t, c.StatePath())
	tab, err := c.OpenTab(ctx, "about:blank#second", true)
	if err != nil {
		t.Fatal(err)
	}
	tabs, err := c.Tabs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var front []string
	for _, tb := range tabs {
		if tb.Front {
			front = append(front, tb.ID)
		}
	}
	if len(tabs) != 2 || len(front) != 1 || front[0] != tab.ID {
		t.Fatalf("tabs = %+v, opened %s", tabs, tab.ID)
	}
	waitFor(t, changed, func(f state.File) bool { return f.CurrentURL == "about:blank#second" })
	if err := c.CloseTab(ctx, tab.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.CloseTab(ctx, "no-such-target"); !errors.Is(err, ErrNoTab) {
		t.Fatalf("closing an unknown tab: %v", err)
	}
	if _, err := c.FocusTab(ctx, "no-such-target"); !errors.Is(err, ErrNoTab) {
		t.Fatalf("focusing an unknown tab: %v", err)
	}
}

// lazyStartUnderWay starts a need for the browser in the background and
// returns once the state file says it is launching; the need's error
// arrives on the channel.
func lazyStartUnderWay(t *testing.T, c *Coordinator) <-chan error {
	t.Helper()
	states := watchState(t, c.StatePath())
	needErr := make(chan error, 1)
	go func() {
		_, err := c.Ensure(context.Background())
		needErr <- err
	}()
	waitFor(t, states, func(f state.File) bool { return f.State == "launching" })
	return needErr
}

func TestStopCancelsALaunchInProgress(t *testing.T) {
	// A browser that never opens its port would hold a launch for the
	// whole launch timeout; a stop must not wait for that.
	slow := filepath.Join(t.TempDir(), "slow-browser")
	os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755)
	c := newCoordinator(t, Config{Options: Options{BrowserPath: slow}, LaunchTimeout: time.Minute})
	needErr := lazyStartUnderWay(t, c)
	start := time.Now()
	s, err := c.Stop(context.Background())
	if err != nil || time.Since(start) > 5*time.Second {
		t.Fatalf("stop took %v: %v", time.Since(start), err)
	}
	if s.State != Stopped {
		t.Fatalf("after a stop that cancelled a launch: %s, want stopped", s.State)
	}
	if err := <-needErr; !errors.Is(err, ErrStopped) {
		t.Fatalf("the waiting need got %v, want ErrStopped", err)
	}
}

func TestLaunchDuringALazyStartUsesTheNewOptions(t *testing.T) {
	// The browser takes a second to start, so that the lazy start below is
	// still under way when Launch asks for another profile.
	slow := filepath.Join(t.TempDir(), "slow-browser")
	script := fmt.Sprintf("#!/bin/sh\nsleep 1\nexec %q \"$@\"\n", testutil.BrowserPath(t))
	if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "profile") // before the coordinator: removed after it closes
	c := newCoordinator(t, Config{Options: Options{BrowserPath: slow}})
	needErr := lazyStartUnderWay(t, c)

	s, launched, err := c.Launch(context.Background(), func(o *Options) { o.UserDataDir = other })
	if err != nil || !launched || s.State != Running {
		t.Fatalf("launch: %+v %v %v", s, launched, err)
	}
	if err := <-needErr; err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	runs := c.m.cur.launched
	c.mu.Unlock()
	if runs.UserDataDir != other || c.Options().UserDataDir != other {
		t.Fatalf("the running browser uses profile %q, the options say %q; want %q", runs.UserDataDir, c.Options().UserDataDir, other)
	}
	if _, err := os.Stat(filepath.Join(other, "Default")); err != nil {
		t.Fatalf("the browser does not use the new profile: %v", err)
	}
}

func TestAttachTabGivesASessionOfItsOwn(t *testing.T) {
	c := newCoordinator(t, Config{})
	ctx := context.Background()
	tab, err := c.OpenTab(ctx, "about:blank#attached", true)
	if err != nil {
		t.Fatal(err)
	}
	if front, ok := c.FrontTab(); !ok || front.ID != tab.ID {
		t.Fatalf("front tab %+v %v, opened %s", front, ok, tab.ID)
	}
	events := make(chan cdp.Message, 64)
	s, err := c.AttachTab(ctx, tab.ID, func(m cdp.Message) {
		select {
		case events <- m:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "location.hash", "returnByValue": true})
	if err != nil || !strings.Contains(string(res), "#attached") {
		t.Fatalf("evaluate on the tab's session: %s %v", res, err)
	}
	if _, err := s.Call(ctx, "Runtime.enable", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-events:
		if m.Method != "Runtime.executionContextCreated" {
			t.Fatalf("first event %s", m.Method)
		}
	case <-time.After(testutil.Guard):
		t.Fatal("no event reached the session's handler")
	}
	if _, err := c.AttachTab(ctx, "no-such-target", nil); !errors.Is(err, ErrNoTab) {
		t.Fatalf("attaching to an unknown tab: %v", err)
	}
}

// file:// is refused by the coordinator's own tab opening, before any
// backend is reached (none is launched for it), unless the coordinator
// allows local files; the refusal wraps the cause callers branch on.
func TestLocalFilesAreRefusedUnlessAllowed(t *testing.T) {
	ctx := context.Background()
	const file = "file:///etc/hostname"
	c := newCoordinator(t, Config{Reach: reach.Policy{FilesHint: "start it with --allow-them"}})
	_, err := c.OpenTab(ctx, file, true)
	var fe *reach.FileError
	var bad *BadRequestError
	if !errors.As(err, &fe) || !errors.As(err, &bad) ||
		err.Error() != "url file:///etc/hostname refused: local files (file:// URLs) are closed to the agent; start it with --allow-them" {
		t.Fatalf("OpenTab(%s): %v", file, err)
	}
	if _, err := c.LaunchWith(ctx, LaunchRequest{URL: ptr("FILE:///etc/hostname")}); !errors.As(err, &fe) {
		t.Fatalf("LaunchWith a file URL: %v", err)
	}
	if _, err := c.LaunchWith(ctx, LaunchRequest{BrowserType: ptr("everyday"), URL: ptr(file)}); !errors.As(err, &fe) {
		t.Fatalf("LaunchWith the everyday browser and a file URL: %v", err)
	}
	if n := c.read().launches; n != 0 || c.IsEveryday() {
		t.Fatalf("a refused file URL started something: %d launches, everyday %v", n, c.IsEveryday())
	}

	allowed := newCoordinator(t, Config{Reach: reach.Policy{AllowFiles: true}})
	tab, err := allowed.OpenTab(ctx, file, true)
	if err != nil {
		t.Fatalf("OpenTab(%s) with local files allowed: %v", file, err)
	}
	tabs, err := allowed.Tabs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tabs, func(x Tab) bool { return x.ID == tab.ID && x.URL == file }) {
		t.Fatalf("the browser does not show %s: %+v", file, tabs)
	}
}

func ptr[T any](v T) *T { return &v }
