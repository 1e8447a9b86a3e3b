package coordinator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

// The state machine, driven through every transition with fake connectors
// (a fake launch, fake sources): no browser runs, so these tests are fast
// and exact. (The real launcher and a real Chromium are in
// coordinator_test.go.)

// fakeLauncher is the launching connector, and launches fake browsers.
// Each launch takes what the test queued: nothing (start at once), an
// error, or a gate (wait until it is released or the launch is cancelled).
type fakeLauncher struct {
	mu       sync.Mutex
	plan     []func(ctx context.Context) error
	launched []*fakeBrowser
	started  chan struct{} // a launch began
}

func newFakeLauncher() *fakeLauncher { return &fakeLauncher{started: make(chan struct{}, 16)} }

func (f *fakeLauncher) next(step func(ctx context.Context) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plan = append(f.plan, step)
}

func (f *fakeLauncher) Connect(ctx context.Context, o Options) (backend.Connection, error) {
	f.mu.Lock()
	var step func(ctx context.Context) error
	if len(f.plan) > 0 {
		step, f.plan = f.plan[0], f.plan[1:]
	}
	f.mu.Unlock()
	select {
	case f.started <- struct{}{}:
	default: // nobody is counting
	}
	if step != nil {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	b := &fakeBrowser{pid: 1000 + len(f.all()), done: make(chan struct{}), opts: o}
	f.mu.Lock()
	f.launched = append(f.launched, b)
	f.mu.Unlock()
	return b, nil
}

func (f *fakeLauncher) all() []*fakeBrowser {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*fakeBrowser(nil), f.launched...)
}

func (f *fakeLauncher) last() *fakeBrowser {
	all := f.all()
	return all[len(all)-1]
}

// gate blocks a launch until released (or its context ends).
func gate(release <-chan struct{}) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

type fakeBrowser struct {
	pid     int
	opts    Options
	done    chan struct{}
	once    sync.Once
	stopped atomic.Bool
}

func (b *fakeBrowser) Conn() *cdp.Conn         { return nil }
func (b *fakeBrowser) Endpoint() *cdp.Endpoint { return nil }
func (b *fakeBrowser) Version() cdp.Version    { return cdp.Version{Product: "FakeChrome/1.0"} }
func (b *fakeBrowser) Done() <-chan struct{}   { return b.done }
func (b *fakeBrowser) Browser() state.Browser {
	return state.Browser{Type: "chromium", Path: b.opts.BrowserPath, Version: "1.0", PID: b.pid, Headless: b.opts.Headless}
}
func (b *fakeBrowser) Close(context.Context) error {
	b.stopped.Store(true)
	b.exit()
	return nil
}
func (b *fakeBrowser) Gone() error {
	return errors.New("the browser exited on its own (signal: killed)")
}
func (b *fakeBrowser) exit() { b.once.Do(func() { close(b.done) }) }

func fakeCoordinator(t *testing.T) (*Coordinator, *fakeLauncher) {
	t.Helper()
	fl := newFakeLauncher()
	c, err := New(Config{StateDir: stateDir(t), Launcher: fl, Options: Options{BrowserPath: "/bin/true", Headless: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, fl
}

// waitState waits for the state, looking again at each of the
// coordinator's events (every landing emits one; Launching is set before
// the launch starts, so a test that saw the launch start sees it).
func waitState(t *testing.T, c *Coordinator, want State) {
	t.Helper()
	events, stop := c.Subscribe()
	defer stop()
	guard := time.After(time.Minute)
	for c.Status().State != want {
		select {
		case <-events:
		case <-guard:
			t.Fatalf("state %s, want %s", c.Status().State, want)
		}
	}
}

func TestMachineNeedLaunchesOnceForEveryone(t *testing.T) {
	c, fl := fakeCoordinator(t)
	release := make(chan struct{})
	fl.next(gate(release))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.ensure(context.Background())
			errs <- err
		}()
	}
	<-fl.started
	waitState(t, c, Launching)
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := len(fl.all()); n != 1 || c.read().launches != 1 {
		t.Fatalf("%d launches for 8 needs", n)
	}
	s := c.Status()
	if s.State != Running || s.Browser == nil || s.Browser.PID != fl.last().pid || s.Browser.Version != "1.0" {
		t.Fatalf("running: %+v", s)
	}
}

func TestMachineFailedLaunchReturnsWhereItWas(t *testing.T) {
	c, fl := fakeCoordinator(t)
	fl.next(func(context.Context) error { return errors.New("boom: no display") })
	if _, err := c.ensure(context.Background()); err == nil || err.Error() != "boom: no display" {
		t.Fatalf("need: %v", err)
	}
	if s := c.Status(); s.State != Idle || s.LastError != "boom: no display" {
		t.Fatalf("after a failed launch: %+v", s)
	}
	// The next need tries again.
	if _, err := c.ensure(context.Background()); err != nil || c.Status().State != Running {
		t.Fatalf("the next need: %v %s", err, c.Status().State)
	}
	if c.Status().LastError != "" {
		t.Fatal("a launch that worked keeps the old error")
	}
}

func TestMachineCrashIsNoticedAndTheNextNeedRelaunches(t *testing.T) {
	c, fl := fakeCoordinator(t)
	if _, err := c.ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := fl.last()
	events, unsubscribe := c.Subscribe()
	defer unsubscribe()
	first.exit() // on its own
	waitState(t, c, Crashed)
	if s := c.Status(); s.Browser.PID != 0 || s.LastError == "" {
		t.Fatalf("after the crash: %+v", s)
	}
	select {
	case ev := <-events:
		if ev.Kind != StateChanged {
			t.Fatalf("event %+v", ev)
		}
	case <-time.After(testutil.Guard):
		t.Fatal("no event for the crash")
	}
	if _, err := c.ensure(context.Background()); err != nil || fl.last() == first || c.Status().State != Running {
		t.Fatalf("relaunch: %v", err)
	}
}

func TestMachineANeedThatMeetsADeadBrowserGetsTheNextOne(t *testing.T) {
	// A browser that died a moment ago, before its watcher said so: the
	// need must not be handed the dead one.
	c, fl := fakeCoordinator(t)
	for i := range 20 {
		if _, err := c.ensure(context.Background()); err != nil {
			t.Fatal(err)
		}
		dead := fl.last()
		dead.exit()
		b, err := c.ensure(context.Background())
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		select {
		case <-b.done:
			t.Fatalf("round %d: the need got the dead browser", i)
		default:
		}
	}
}

func TestMachineStopCancelsALaunchAndSaysStopped(t *testing.T) {
	c, fl := fakeCoordinator(t)
	fl.next(gate(make(chan struct{}))) // never released: only a cancel ends it
	need := make(chan error, 1)
	go func() {
		_, err := c.ensure(context.Background())
		need <- err
	}()
	<-fl.started
	waitState(t, c, Launching)
	launch := c.read().flight
	s, err := c.Stop(context.Background())
	if err != nil || s.State != Stopped {
		t.Fatalf("stop during a launch: %+v %v", s.State, err)
	}
	if err := <-need; !errors.Is(err, ErrStopped) {
		t.Fatalf("the waiting need: %v", err)
	}
	// Stopped stays stopped until the next need, also once the cancelled
	// launch has landed.
	<-launch.done
	if st := c.Status().State; st != Stopped {
		t.Fatalf("state after the cancelled launch landed: %s", st)
	}
	if _, err := c.ensure(context.Background()); err != nil || c.Status().State != Running {
		t.Fatalf("the next need: %v", err)
	}
}

func TestMachineStopAndRestart(t *testing.T) {
	c, fl := fakeCoordinator(t)
	if _, err := c.ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := fl.last()
	if s, _ := c.Stop(context.Background()); s.State != Stopped || !first.stopped.Load() {
		t.Fatalf("stop: %s, browser stopped %v", s.State, first.stopped.Load())
	}
	if s, _ := c.Stop(context.Background()); s.State != Stopped {
		t.Fatalf("a second stop: %s", s.State)
	}
	s, err := c.Restart(context.Background())
	if err != nil || s.State != Running || fl.last() == first {
		t.Fatalf("restart: %+v %v", s, err)
	}
	second := fl.last()
	if s, err = c.Restart(context.Background()); err != nil || !second.stopped.Load() || fl.last() == second {
		t.Fatalf("restart of a running browser: %+v %v", s, err)
	}
}

func TestMachineLaunchWithOtherOptionsAndARelaunchThatFails(t *testing.T) {
	c, fl := fakeCoordinator(t)
	if _, _, err := c.Launch(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	first := fl.last()
	// The same browser options (another first page): nothing relaunches.
	if _, launched, err := c.Launch(context.Background(), func(o *Options) { o.URL = "about:blank#x" }); err != nil || launched || fl.last() != first {
		t.Fatalf("a URL alone relaunched: %v %v", launched, err)
	}
	// Visible window: a relaunch with it.
	if _, launched, err := c.Launch(context.Background(), func(o *Options) { o.Headless = false }); err != nil || !launched || fl.last().opts.Headless {
		t.Fatalf("relaunch: %v %v", launched, err)
	}
	// A relaunch that fails goes back to the options that worked.
	fl.next(func(context.Context) error { return errors.New("no display") })
	if _, _, err := c.Launch(context.Background(), func(o *Options) { o.Headless = true }); err == nil {
		t.Fatal("the failing relaunch succeeded")
	}
	if c.Options().Headless {
		t.Fatal("a failed relaunch kept its options")
	}
}

// fakeConnector connects to a fake source, or says it is unreachable.
type fakeConnector struct {
	unreachable bool
	done        chan struct{}
}

func (f *fakeConnector) Connect(context.Context, Options) (backend.Connection, error) {
	if f.unreachable {
		return nil, fmt.Errorf("%w: nothing on that port", ErrUnreachable)
	}
	return fakeSource{done: f.done}, nil
}

// fakeSource is a browser a fake source connects to.
type fakeSource struct{ done chan struct{} }

func (fakeSource) Conn() *cdp.Conn             { return nil }
func (fakeSource) Endpoint() *cdp.Endpoint     { return nil }
func (fakeSource) Version() cdp.Version        { return cdp.Version{Product: "Fake/1"} }
func (fakeSource) Close(context.Context) error { return nil }
func (s fakeSource) Done() <-chan struct{}     { return s.done }
func (fakeSource) Browser() state.Browser {
	return state.Browser{Type: state.BackendTier2, Version: "1"}
}

func TestMachineSourcesSwitchAndFallBack(t *testing.T) {
	c, fl := fakeCoordinator(t)
	if _, err := c.ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	launched := fl.last()
	// A source replaces the launched browser, which is stopped.
	src := &Source{Kind: state.BackendTier2, Key: "vscode 1", Describe: "VS Code's port 1", Connector: &fakeConnector{done: make(chan struct{})}, Fallback: true}
	c.SetSource(src)
	if _, err := c.ensure(context.Background()); err != nil || c.Status().Backend != state.BackendTier2 {
		t.Fatalf("on the source: %v %+v", err, c.Status())
	}
	select {
	case <-launched.Done():
	case <-time.After(time.Minute):
	}
	if !launched.stopped.Load() {
		t.Fatal("the launched browser was not stopped after the switch")
	}
	// Options that only a launched browser has are refused, and change nothing.
	if _, _, err := c.Launch(context.Background(), func(o *Options) { o.Headless = false }); err == nil || c.Options().Headless == false {
		t.Fatalf("another headless mode for a source: %v", err)
	}
	// The same source again changes nothing.
	before := c.read().launches
	c.SetSource(src)
	if c.read().launches != before {
		t.Fatal("the same source started again")
	}
	// An unreachable source that allows it falls back to a launched browser, and says so.
	events, unsubscribe := c.Subscribe()
	defer unsubscribe()
	c.SetSource(&Source{Kind: state.BackendTier2, Key: "vscode 2", Describe: "VS Code's port 2", Connector: &fakeConnector{unreachable: true}, Fallback: true})
	if _, err := c.ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := c.Status()
	if s.Backend != state.BackendTier1 || s.Fallback == "" || c.read().source != c.launching {
		t.Fatalf("after the fall-back: %+v", s)
	}
	for {
		select {
		case ev := <-events:
			if ev.Kind == FellBack && ev.Source == "vscode 2" {
				return
			}
		case <-time.After(testutil.Guard):
			t.Fatal("no FellBack event")
		}
	}
}

func TestMachineASourceChangeDuringALaunchTakesTheNeedAlong(t *testing.T) {
	c, fl := fakeCoordinator(t)
	fl.next(gate(make(chan struct{}))) // the launch would never finish
	need := make(chan error, 1)
	go func() {
		_, err := c.ensure(context.Background())
		need <- err
	}()
	<-fl.started
	c.SetSource(&Source{Kind: state.BackendAttach, Key: "attach", Describe: "a browser", Connector: &fakeConnector{done: make(chan struct{})}})
	if err := <-need; err != nil {
		t.Fatalf("the need waiting for the replaced launch: %v", err)
	}
	if s := c.Status(); s.State != Running || s.Backend != state.BackendAttach {
		t.Fatalf("after the switch: %+v", s)
	}
}

func TestMachineCloseDuringALaunch(t *testing.T) {
	c, fl := fakeCoordinator(t)
	fl.next(gate(make(chan struct{})))
	need := make(chan error, 1)
	go func() {
		_, err := c.ensure(context.Background())
		need <- err
	}()
	<-fl.started
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-need; err == nil {
		t.Fatal("a need survived Close")
	}
	if _, err := c.ensure(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("a need after Close: %v", err)
	}
	if s := c.Status(); s.State != Stopped {
		t.Fatalf("closed in state %s", s.State)
	}
}

func TestMachineInvariantsAreChecked(t *testing.T) {
	for name, m := range map[string]machine{
		"running without a backend":  {state: Running},
		"launching without a flight": {state: Launching},
		"a flight while idle":        {state: Idle, flight: &flight{}},
		"closed while running":       {state: Running, cur: &run{}, closed: true},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("the violation passed the check")
				}
			}()
			m.check()
		})
	}
}
