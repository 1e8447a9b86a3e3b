// Package coordinator owns the browser's lifecycle: one state machine
// (idle → launching → running → stopped | crashed) in front of the launcher,
// the CDP proxy's backend, and the state file. It is the only package that
// knows when a browser starts and stops; the MCP server, the control API and
// the proxy all ask it.
//
// The browser starts lazily: the first need (a CDP client connecting to the
// proxy, a launch or tab tool) launches it, and concurrent first needs share
// that one start (a flight). A browser that exits on its own is noticed
// (crashed); the next need launches it again with the same options.
//
// Every backend is a Source with a Connector (package backend): launching a
// browser is one (the default), fronting one the coordinator did not start
// is another (VS Code's port, an --cdp-endpoint, the everyday browser). Data
// flows one way: whoever decides the source (the VS Code tier watcher, the
// command line) calls SetSource; what happens to it (a source that did not
// answer and was replaced by a launched browser) comes back as an Event.
//
// All mutable state is one machine value, changed only through update, which
// checks the invariants after every change.
package coordinator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdpproxy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/reach"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// Config configures a Coordinator.
type Config struct {
	Options   Options // what the first launch uses
	StateDir  string  // where the state file goes (required)
	Workspace string  // the folder this coordinator serves; "" means the cwd
	// ProxyPort fixes the proxy's port; 0 takes the port this folder's
	// coordinator had last time when it is free, else a free one.
	ProxyPort int
	// NoProxySecret serves the proxy without a secret in its path
	// (--proxy-auth off).
	NoProxySecret bool
	// Detector finds browsers; nil means browsers.System().
	Detector *browsers.Detector
	// Launcher launches browsers; nil means the real one (package
	// launcher). It is the connector of the launching Source.
	Launcher backend.Connector
	// LaunchTimeout and StopTimeout tune the launcher; 0 means its defaults.
	LaunchTimeout, StopTimeout time.Duration
	Logger                     *slog.Logger

	// EverydayProfile is the user's profile for the everyday browser
	// (--browser everyday --user-data-dir): its DevToolsActivePort is the
	// way in; "" chooses (see EverydaySource).
	EverydayProfile string
	// EverydayWait is how long a start of the everyday browser waits for
	// the extension to connect; 0 means 10 s.
	EverydayWait time.Duration

	// Words phrase the remedies of errors that reach clients through the
	// coordinator's own surfaces — the CDP proxy's answers, VS Code's
	// browser view's refusals — in the words of the surface the agent
	// uses (the same as its MCP tools'); nil leaves remedies unsaid.
	Words remedy.Words

	// Reach is what the agent may reach: local files (CheckOpen, in every
	// backend) and, in the everyday browser, what its clients may do
	// through the tabs (package reach).
	Reach reach.Policy

	// Isolation says whether agents work in browser contexts of their own
	// (--isolated; see agents.go); the zero value shares the browser.
	Isolation Isolation
}

// Errors callers branch on.
var (
	// ErrClosed is returned once the coordinator has shut down.
	ErrClosed = errors.New("coordinator is shutting down")
	// ErrStopped is what needs waiting on a start get when a stop cancels it.
	ErrStopped = errors.New("the browser was stopped while it was starting")
	// errSuperseded: the start a need waited for was replaced (the source
	// changed); the need joins the next one.
	errSuperseded = errors.New("the start was replaced by another")
)

// Coordinator is one running coordinator: a proxy port, a state file, and at
// most one backend.
type Coordinator struct {
	cfg       Config
	log       *slog.Logger
	detect    *browsers.Detector // without version reading: launch must be fast
	launching *Source            // what the coordinator launches when it fronts nothing else
	proxy     *cdpproxy.Proxy
	statePath string
	token     string
	workspace string
	started   time.Time
	ctx       context.Context // lives until Close; starts live under it
	cancel    context.CancelFunc

	ops sync.Mutex // serializes launch / stop / restart / source changes

	mu sync.Mutex
	m  machine

	events events

	own    *Agent // the coordinator's own agent (agents.go)
	agents agents // the agents with endpoints of their own

	publishMu sync.Mutex    // orders state file writes
	dirty     chan struct{} // a state file write is wanted (publishSoon)

	work sync.WaitGroup // flights, backend watchers, backends ending in the background
}

// New sweeps what dead coordinators left, binds the proxy port and writes the
// state file. No browser starts.
func New(cfg Config) (*Coordinator, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.StateDir == "" {
		return nil, errors.New("coordinator: Config.StateDir is required")
	}
	if err := state.EnsureDir(cfg.StateDir); err != nil {
		return nil, err
	}
	detect := cfg.Detector
	if detect == nil {
		detect = browsers.System()
	}
	fast := *detect
	fast.Version = nil // the browser says its version after launch, for free
	launch := cfg.Launcher
	if launch == nil {
		launch = launchConnector{detect: &fast, profileRoot: profileRoot(cfg.StateDir), launchTimeout: cfg.LaunchTimeout, stopTimeout: cfg.StopTimeout, log: log}
	}
	launching := launchSource(launch)
	workspace := cfg.Workspace
	if workspace == "" {
		workspace, _ = os.Getwd()
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Coordinator{
		cfg:       cfg,
		log:       log,
		detect:    &fast,
		launching: launching,
		statePath: state.Path(cfg.StateDir, state.NewInstance()),
		token:     randomToken(),
		workspace: workspace,
		started:   time.Now(),
		ctx:       ctx,
		cancel:    cancel,
		m:         machine{state: Idle, opts: cfg.Options, source: launching},
		dirty:     make(chan struct{}, 1),
	}
	c.own = &Agent{c: c, name: "the coordinator's own"}
	c.sweep()
	proxy, err := c.listen()
	if err != nil {
		cancel()
		return nil, err
	}
	c.proxy = proxy
	if err := c.publish(); err != nil {
		proxy.Close()
		cancel()
		return nil, fmt.Errorf("write state file: %w", err)
	}
	c.work.Add(1)
	go c.publisher()
	log.Info("coordinator ready", "proxy", proxy.Redacted(), "state", c.statePath)
	return c, nil
}

// profileRoot holds the temporary profiles of the browsers launched with
// this state folder.
func profileRoot(stateDir string) string { return filepath.Join(stateDir, "profiles") }

func (c *Coordinator) profileRoot() string { return profileRoot(c.cfg.StateDir) }

// sweep removes the state files and temporary profiles of dead coordinators.
func (c *Coordinator) sweep() {
	scan := state.ScanDir(c.cfg.StateDir)
	for _, err := range scan.Corrupt {
		c.log.Warn("ignoring a state file", "err", err)
	}
	files := scan.Sweep()
	profiles := launcher.SweepProfiles(c.profileRoot(), proc.Alive)
	if files+profiles > 0 {
		c.log.Info("swept what dead coordinators left", "stateFiles", files, "profiles", profiles)
	}
}

// Proxy is the CDP proxy in front of the browser.
func (c *Coordinator) Proxy() *cdpproxy.Proxy { return c.proxy }

// StatePath is this coordinator's state file.
func (c *Coordinator) StatePath() string { return c.statePath }

// Token is the control API's bearer token, also written to the state file.
func (c *Coordinator) Token() string { return c.token }

// Backend implements cdpproxy.Resolver: the current backend, started first
// if needed. This is the lazy launch behind a CDP client's first connection.
func (c *Coordinator) Backend(ctx context.Context) (cdpproxy.Backend, error) {
	b, err := c.ensure(ctx)
	if err == nil {
		var p cdpproxy.Backend
		if p, err = c.proxyBackend(b); err == nil {
			return p, nil
		}
	}
	return cdpproxy.Backend{}, c.cfg.Words.Phrased(err) // the proxy tells its client
}

// Words are the words of the surface the coordinator's clients see
// (Config.Words).
func (c *Coordinator) Words() remedy.Words { return c.cfg.Words }

// Ensure makes sure a browser is there, starting it (launching, or
// connecting) if not, and returns the status.
func (c *Coordinator) Ensure(ctx context.Context) (Status, error) {
	_, err := c.ensure(ctx)
	return c.Status(), err
}

// ensure returns the running backend, joining or starting the one start. A
// backend that went away and was not noticed yet is noticed here: the need
// waits for the next start instead of meeting a dead browser.
func (c *Coordinator) ensure(ctx context.Context) (*run, error) {
	for {
		var (
			f    *flight
			b    *run
			dead *run
		)
		c.update(func(m *machine) {
			if m.closed {
				return
			}
			if m.state == Running {
				if m.cur.isGone() {
					dead = m.cur // noticed below, outside the lock
				} else {
					b = m.cur
				}
				return
			}
			if f = m.flight; f == nil {
				f = c.startLocked(m)
			}
		})
		if dead != nil {
			c.crashed(dead)
			continue
		}
		if b != nil {
			return b, nil
		}
		if f == nil {
			return nil, ErrClosed
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if f.err != nil && !errors.Is(f.err, errSuperseded) {
			return nil, f.err
		}
		// Started (loop to pick it up), or replaced by a newer start: join it.
	}
}

// startLocked begins a start in the current mode; m is c.m, locked.
func (c *Coordinator) startLocked(m *machine) *flight {
	ctx, cancel := context.WithCancel(c.ctx)
	f := &flight{done: make(chan struct{}), prev: m.state, cancel: cancel}
	m.flight, m.state = f, Launching
	m.launches++
	opts, src := m.opts, m.source
	c.work.Add(1)
	go c.fly(ctx, f, opts, src)
	return f
}

// fly runs one start: bring the source's browser up (or launch one, when a
// source that allows it does not answer), then land it in the machine.
func (c *Coordinator) fly(ctx context.Context, f *flight, opts Options, src *Source) {
	defer c.work.Done()
	c.publishQuietly()
	var fellBack string
	b, err := c.start(ctx, src, opts)
	if err != nil && src.Fallback && errors.Is(err, ErrUnreachable) && ctx.Err() == nil {
		fellBack = fmt.Sprintf("%s does not answer (%v): a launched browser is used instead", src.Describe, err)
		c.log.Warn("falling back to a launched browser", "source", src.Describe, "err", err)
		b, err = c.start(ctx, c.launching, opts)
	}
	if err != nil && ctx.Err() != nil && c.ctx.Err() == nil {
		err = ErrStopped
	}
	var discard *run
	c.update(func(m *machine) {
		if m.flight != f {
			// Stop, Close or a source change took this start back: its
			// needs hear why (a source change: they join the next start).
			discard, err = b, f.takenBack
			return
		}
		m.flight = nil
		if fellBack != "" && m.source == src {
			m.source, m.fallback = c.launching, fellBack
		}
		switch {
		case err == nil:
			m.cur, m.state, m.lastErr = b, Running, nil
			info := b.info
			m.last = &info
		case errors.Is(err, ErrStopped):
			m.state = Stopped
		default:
			// Nothing changed but the reason: the next need tries again.
			m.state, m.lastErr = f.prev, err
		}
	})
	f.cancel()
	if discard != nil {
		discard.shutdown(context.Background())
	}
	if err == nil {
		c.work.Add(1)
		go c.watch(b)
	}
	f.err = err
	c.publishQuietly() // before waking the waiters: what they read is current
	if fellBack != "" {
		c.events.emit(Event{Kind: FellBack, Source: src.Key, Reason: fellBack})
	}
	c.events.emit(Event{Kind: StateChanged})
	close(f.done)
}

// watch notices a backend that goes away while it is still the current one:
// a launched browser that exits, a lost connection to an external one. It
// also passes page changes on (the state file's currentUrl).
func (c *Coordinator) watch(b *run) {
	defer c.work.Done()
	changes := b.changes()
	for {
		var changed <-chan struct{}
		if b.pages != nil {
			changed = b.pages.Changed()
		}
		select {
		case <-changed:
			c.publishSoon()
			c.events.emit(Event{Kind: PagesChanged})
			continue
		case <-changes:
			c.publishSoon()
			c.events.emit(Event{Kind: StateChanged})
			continue
		case <-b.done:
		case <-b.ended:
			return // shut down on purpose
		}
		break
	}
	c.crashed(b)
}

// crashed records that b went away on its own, if it is still the current
// backend (a need may have noticed first), and cleans up after it: its
// clients are dropped, a launched browser is reaped and its temporary
// profile removed.
func (c *Coordinator) crashed(b *run) {
	if c.read().cur != b {
		return // ended on purpose, or replaced: nothing to report, no reason to wait for
	}
	why := b.gone()
	noticed := false
	c.update(func(m *machine) {
		if m.cur == b {
			m.cur, m.state, m.lastErr = nil, Crashed, why
			noticed = true
		}
	})
	if !noticed {
		return
	}
	c.log.Warn("the browser went away", "backend", b.kind, "browser", b.describe, "why", why)
	c.proxy.DropConnections()
	b.shutdown(context.Background())
	c.publishQuietly()
	c.events.emit(Event{Kind: StateChanged})
}

// end finishes what takeBack detached: a start is cancelled and waited for
// (it cleans up what it started), a backend's clients are dropped (unless
// the caller did), it is released when it is let go on purpose (letGo: not
// a restart) and it is shut down.
func (c *Coordinator) end(ctx context.Context, f *flight, b *run, dropped, letGo bool) {
	if f != nil {
		f.cancel()
		select {
		case <-f.done:
		case <-ctx.Done():
		}
	}
	if b != nil {
		if !dropped {
			// Clients lose the old browser now; a reconnect waits for the next start.
			c.proxy.DropConnections()
		}
		if letGo {
			b.release(ctx)
		}
		b.shutdown(ctx)
	}
}

// Launch launches the browser now. Options that differ from those of the
// running browser relaunch it with them; the proxy port stays the same. A
// different URL alone does not relaunch a running browser. With a source
// that does not launch, only the URL may change: launching connects.
// launched reports whether this call started one.
func (c *Coordinator) Launch(ctx context.Context, change func(*Options)) (s Status, launched bool, err error) {
	c.ops.Lock()
	defer c.ops.Unlock()
	m := c.read()
	prev := m.opts
	next := prev
	if change != nil {
		change(&next)
	}
	running := m.state == Running
	before := m.launches
	if !m.source.Launches {
		if !sameBrowser(next, prev) {
			return c.Status(), false, remedy.With(badRequest("%s is not a browser this coordinator started, so it cannot switch browser, profile or headless mode",
				m.source.Describe), append([]remedy.Kind{remedy.Reconnect}, m.source.Remedies...)...)
		}
	} else if !sameBrowser(next, prev) {
		// Bad options change nothing: check the executable before stopping
		// anything or remembering them.
		if _, err := c.resolve(next); err != nil {
			return c.Status(), false, err
		}
	}
	c.update(func(m *machine) { m.opts = next })
	b, err := c.ensure(ctx)
	if err == nil && b.launches && !sameBrowser(next, b.launched) {
		// It was running, or starting, with the old options: every start
		// from now on uses next, so one relaunch is enough.
		var f *flight
		var old *run
		c.update(func(m *machine) { f, old = takeBack(m, Stopped) })
		c.end(ctx, f, old, false, false)
		_, err = c.ensure(ctx)
	}
	c.update(func(m *machine) {
		if err != nil && m.opts == next {
			m.opts = prev // the next need uses the options that worked
		}
		launched = m.launches != before || (!running && err == nil)
	})
	return c.Status(), launched, err
}

// sameBrowser: the options would start the same browser (the first page aside).
func sameBrowser(a, b Options) bool {
	a.URL, b.URL = "", ""
	return a == b
}

// resolve finds the executable for o.
func (c *Coordinator) resolve(o Options) (browsers.Browser, error) {
	return resolve(c.ctx, c.detect, o)
}

// Stop stops the browser, or lets go of one the coordinator did not start,
// and cancels a start under way. The proxy keeps its port; the next need
// starts a browser again.
func (c *Coordinator) Stop(ctx context.Context) (Status, error) {
	c.ops.Lock()
	defer c.ops.Unlock()
	var f *flight
	var b *run
	c.update(func(m *machine) { f, b = takeBack(m, Stopped) })
	c.end(ctx, f, b, false, true)
	c.publishQuietly()
	c.events.emit(Event{Kind: StateChanged})
	return c.Status(), nil
}

// Restart stops the browser and starts it with the same options. Clients
// reconnect through the same proxy port.
func (c *Coordinator) Restart(ctx context.Context) (Status, error) {
	c.ops.Lock()
	defer c.ops.Unlock()
	var f *flight
	var b *run
	c.update(func(m *machine) { f, b = takeBack(m, Stopped) })
	c.end(ctx, f, b, false, false)
	_, err := c.ensure(ctx)
	return c.Status(), err
}

// SetSource switches what the proxy fronts: src's browser, or with nil a
// browser the coordinator launches. Clients are disconnected and reconnect
// through the same port; a source is connected at once unless it is Lazy
// (a launch waits for the first need). The old backend ends in the
// background (a launched browser's graceful stop takes a while and holds
// nothing up). The same source again (by Key) changes nothing.
func (c *Coordinator) SetSource(src *Source) {
	if src == nil {
		src = c.launching
	}
	c.ops.Lock()
	defer c.ops.Unlock()
	var (
		f    *flight
		old  *run
		same bool
	)
	c.update(func(m *machine) {
		same = m.source.Key == src.Key
		if same || m.closed {
			same = true
			return
		}
		m.source, m.fallback = src, ""
		f, old = takeBack(m, Idle)
		m.state, m.lastErr = Idle, nil
		if !src.Lazy {
			c.startLocked(m)
		}
	})
	if same {
		return
	}
	// Clients of the old backend go before anything shows the new one: a
	// client that sees the switch must not still hold the old connection.
	c.proxy.DropConnections()
	if f != nil || old != nil {
		c.work.Add(1)
		go func() {
			defer c.work.Done()
			c.end(context.Background(), f, old, true, true) // dropped above: a new client may be on the new backend by now
		}()
	}
	c.publishQuietly()
	c.events.emit(Event{Kind: StateChanged})
}

// SetVSCodeStatus records how the coordinator relates to VS Code (status).
func (c *Coordinator) SetVSCodeStatus(v *VSCodeStatus) {
	c.update(func(m *machine) { m.vscode = v })
	c.publishSoon()
}

// Close stops the browser, closes the proxy and removes the state file.
func (c *Coordinator) Close() error {
	c.ops.Lock()
	defer c.ops.Unlock()
	var (
		f      *flight
		b      *run
		closed bool
	)
	c.update(func(m *machine) {
		if closed = m.closed; closed {
			return
		}
		f, b = takeBack(m, Stopped)
		m.state, m.closed = Stopped, true
	})
	if closed {
		return nil
	}
	c.end(context.Background(), f, b, false, true)
	c.cancel()
	c.work.Wait()
	c.events.close()
	_ = os.Remove(c.profileRoot()) // only when empty: other coordinators may share it
	err := c.proxy.Close()
	c.publishMu.Lock()
	defer c.publishMu.Unlock()
	if rmErr := os.Remove(c.statePath); rmErr != nil && !os.IsNotExist(rmErr) {
		err = errors.Join(err, rmErr)
	}
	return err
}

// ListBrowsers lists the installed browsers with their versions.
func (c *Coordinator) ListBrowsers(ctx context.Context) ([]browsers.Browser, error) {
	d := c.cfg.Detector
	if d == nil {
		d = browsers.System()
	}
	return d.Detect(ctx)
}

// Options returns the options the next launch uses.
func (c *Coordinator) Options() Options { return c.read().opts }
