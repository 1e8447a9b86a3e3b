// Package coordinator owns the browser's lifecycle: one state machine
// (idle → launching → running → stopped | crashed) in front of the launcher,
// the CDP proxy's backend, and the state file. It is the only package that
// knows when a browser starts and stops; the MCP server, the control API and
// the proxy all ask it.
//
// The browser starts lazily: the first need (a CDP client connecting to the
// proxy, a launch or tab tool) launches it, and concurrent first needs share
// that one launch. A browser that exits on its own is noticed (crashed); the
// next need launches it again with the same options.
package coordinator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdpproxy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/version"
)

// State is where the browser is in its lifecycle.
type State string

const (
	Idle      State = "idle"      // no browser yet; the first need launches one
	Launching State = "launching" // a launch is under way; needs wait for it
	Running   State = "running"   // the browser answers CDP behind the proxy
	Stopped   State = "stopped"   // stopped on request; the next need launches again
	Crashed   State = "crashed"   // exited on its own; the next need launches again
)

// Options are what a launch uses. The zero value launches the first
// detected browser, headed, with a temporary profile.
type Options struct {
	BrowserType browsers.Type // "" means the first detected
	BrowserPath string        // explicit executable; overrides BrowserType
	Headless    bool
	UserDataDir string // persistent profile; "" means temporary
	URL         string // first page; "" means about:blank
}

// Config configures a Coordinator.
type Config struct {
	Options   Options // what the first launch uses
	StateDir  string  // where the state file goes (required)
	Workspace string  // the folder this coordinator serves; "" means the cwd
	ProxyPort int     // 0 picks a free port
	// Detector finds browsers; nil means browsers.System().
	Detector *browsers.Detector
	// LaunchTimeout and StopTimeout tune the launcher; 0 means its defaults.
	LaunchTimeout, StopTimeout time.Duration
	Logger                     *slog.Logger
}

// ErrClosed is returned once the coordinator has shut down.
var ErrClosed = errors.New("coordinator is shutting down")

// Coordinator is one running coordinator: a proxy port, a state file, and at
// most one backend: a browser it launched, or VS Code's or another existing
// browser it connects to.
type Coordinator struct {
	cfg       Config
	log       *slog.Logger
	detect    *browsers.Detector // without version reading: launch must be fast
	proxy     *cdpproxy.Proxy
	statePath string
	token     string
	workspace string
	started   time.Time
	ctx       context.Context // lives until Close; browsers launch under it
	cancel    context.CancelFunc

	ops sync.Mutex // serializes launch / stop / restart / mode changes

	mu       sync.Mutex
	state    State
	opts     Options   // what the next launch uses (Tier 1)
	endpoint *Endpoint // not nil: connect to this browser instead of launching one
	cur      *backend  // what runs now
	last     *state.Browser
	flight   *flight // the start in progress, shared by every need
	lastErr  error
	closed   bool
	launches int // starts so far (tests check the single flight)
	vscode   *VSCodeStatus

	publishMu sync.Mutex    // orders state file writes
	dirty     chan struct{} // a state file write is wanted (publishSoon)

	ending sync.WaitGroup // backends ending in the background (Close waits)
}

// VSCodeStatus says how the coordinator relates to VS Code; the VS Code tier
// watcher sets it.
type VSCodeStatus struct {
	Inside bool   `json:"inside"`           // running in VS Code (TERM_PROGRAM or VSCODE_PID)
	Tier   int    `json:"tier"`             // 2: VS Code's own browser view; 1: a launched browser
	Port   int    `json:"port,omitempty"`   // VS Code's CDP port, when known
	Source string `json:"source,omitempty"` // which step found it: VSCODE_CDP_PORT, port file, parent process
	Reason string `json:"reason"`           // why this tier, in words
}

// flight is one start that any number of needs wait for.
type flight struct {
	done   chan struct{}
	err    error
	prev   State              // where a failed start returns to
	cancel context.CancelFunc // stops the start; nil once it succeeded (the browser lives under its context)
}

// ErrStopped is what needs waiting on a start get when a stop cancels it.
var ErrStopped = errors.New("the browser was stopped while it was starting")

// cancelFlight cancels a start in progress: a stop must not wait out a
// launch that may take up to its timeout.
func (c *Coordinator) cancelFlight() {
	c.mu.Lock()
	if f := c.flight; f != nil && f.cancel != nil {
		f.cancel()
	}
	c.mu.Unlock()
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
	fast.Version = nil // /json/version tells the version after launch, for free

	workspace := cfg.Workspace
	if workspace == "" {
		workspace, _ = os.Getwd()
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Coordinator{
		cfg:       cfg,
		log:       log,
		detect:    &fast,
		statePath: state.Path(cfg.StateDir, state.NewInstance()),
		token:     randomToken(),
		workspace: workspace,
		started:   time.Now(),
		ctx:       ctx,
		cancel:    cancel,
		state:     Idle,
		opts:      cfg.Options,
		dirty:     make(chan struct{}, 1),
	}
	go c.publisher()
	c.sweep()

	proxy, err := cdpproxy.Listen(cdpproxy.Config{Port: cfg.ProxyPort, Resolver: c, Logger: log})
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
	log.Info("coordinator ready", "proxy", proxy.Endpoint(), "state", c.statePath)
	return c, nil
}

func randomToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (c *Coordinator) profileRoot() string { return filepath.Join(c.cfg.StateDir, "profiles") }

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
	if err != nil {
		return cdpproxy.Backend{}, err
	}
	return b.proxy, nil
}

// Ensure makes sure a browser is there, starting it (launching, or
// connecting) if not, and returns the status.
func (c *Coordinator) Ensure(ctx context.Context) (Status, error) {
	_, err := c.ensure(ctx)
	return c.Status(), err
}

// ensure returns the running backend, joining or starting the one start.
func (c *Coordinator) ensure(ctx context.Context) (*backend, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClosed
		}
		if c.state == Running && c.cur != nil {
			b := c.cur
			c.mu.Unlock()
			return b, nil
		}
		f := c.flight
		if f == nil {
			f = c.startFlightLocked()
		}
		c.mu.Unlock()

		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if f.err != nil {
			return nil, f.err
		}
		// Started; loop to pick it up (or to join a newer start if a
		// restart superseded this one meanwhile).
	}
}

// startFlightLocked begins a start in the current mode. c.mu must be held.
func (c *Coordinator) startFlightLocked() *flight {
	ctx, cancel := context.WithCancel(c.ctx)
	f := &flight{done: make(chan struct{}), prev: c.state, cancel: cancel}
	c.flight = f
	c.state = Launching
	c.launches++
	opts, endpoint := c.opts, c.endpoint
	go func() {
		c.publishQuietly()
		var b *backend
		var err error
		if endpoint != nil {
			b, err = c.connectBackend(ctx, endpoint)
			if errors.Is(err, ErrUnreachable) && endpoint.OnUnreachable != nil {
				// VS Code quit: fall back to a browser of our own, now.
				c.log.Warn("falling back to a launched browser", "reason", err)
				c.mu.Lock()
				if c.endpoint == endpoint {
					c.endpoint = nil
				}
				c.mu.Unlock()
				go endpoint.OnUnreachable(err)
				endpoint = nil
				b, err = c.launchBackend(ctx, opts)
			}
		} else {
			b, err = c.launchBackend(ctx, opts)
		}
		if err != nil && ctx.Err() != nil && c.ctx.Err() == nil {
			err = ErrStopped
		}
		c.mu.Lock()
		if c.flight == f {
			c.flight = nil
		}
		if err == nil {
			f.cancel = nil // the browser lives under ctx from now on
		} else {
			cancel()
		}
		switch {
		case err == nil && c.closed:
			c.mu.Unlock()
			b.shutdown(context.Background())
			c.mu.Lock()
			err = ErrClosed
		case err == nil && c.endpoint != endpoint:
			// The mode changed while this start was under way: its waiters
			// loop and join a start in the new mode.
			c.mu.Unlock()
			b.shutdown(context.Background())
			c.mu.Lock()
			c.state = Idle
		case err == nil:
			c.cur, c.state, c.lastErr = b, Running, nil
			info := b.info
			c.last = &info
			go c.watch(b)
		default:
			// Nothing changed but the reason: the next need tries again.
			c.state, c.lastErr = f.prev, err
		}
		f.err = err
		c.mu.Unlock()
		c.publishQuietly() // before waking the waiters: what they read is current
		close(f.done)
	}()
	return f
}

// resolve finds the executable for o.
func (c *Coordinator) resolve(o Options) (browsers.Browser, error) {
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	if o.BrowserPath != "" {
		return c.detect.FromPath(ctx, o.BrowserPath)
	}
	return c.detect.Find(ctx, o.BrowserType)
}

// watch notices a backend that goes away while it is still the current one:
// a launched browser that exits, or a lost connection to an external one.
func (c *Coordinator) watch(b *backend) {
	<-b.done
	c.mu.Lock()
	if c.cur != b {
		c.mu.Unlock()
		return // stopped on purpose; whoever stopped it set the state
	}
	c.cur = nil
	c.state = Crashed
	if b.owned() {
		c.lastErr = fmt.Errorf("browser exited on its own (%v); the next need launches it again", b.browser.ExitErr())
		c.log.Warn("browser exited on its own", "pid", b.browser.PID, "exit", b.browser.ExitErr())
	} else {
		c.lastErr = fmt.Errorf("lost the connection to %s; the next need reconnects", b.describe)
		c.log.Warn("lost the connection to an existing browser", "backend", b.kind, "browser", b.describe)
	}
	c.mu.Unlock()
	b.shutdown(context.Background()) // reaps and removes a temporary profile
	c.proxy.DropConnections()
	c.publishQuietly()
}

// Launch launches the browser now. Options that differ from those of the
// running browser relaunch it with them; the proxy port stays the same. A
// different URL alone does not relaunch a running browser. With a browser
// the coordinator did not start (Tier 2, attach), only the URL may change:
// launching reconnects. launched reports whether this call started one.
func (c *Coordinator) Launch(ctx context.Context, change func(*Options)) (s Status, launched bool, err error) {
	c.ops.Lock()
	defer c.ops.Unlock()
	c.mu.Lock()
	prev := c.opts
	next := prev
	if change != nil {
		change(&next)
	}
	endpoint := c.endpoint
	running := c.state == Running && c.cur != nil
	before := c.launches
	c.mu.Unlock()

	if endpoint != nil {
		if !sameBrowser(next, prev) {
			return c.Status(), false, badRequest("%s is not a browser this coordinator started, so it cannot switch browser, profile or headless mode; "+
				"coordinator_restart_browser reconnects to it%s", endpoint.Describe, endpointHint(endpoint))
		}
		c.mu.Lock()
		c.opts.URL = next.URL
		c.mu.Unlock()
	} else {
		// Bad options change nothing: check the executable before stopping
		// anything or remembering them.
		if !sameBrowser(next, prev) {
			if _, err := c.resolve(next); err != nil {
				return c.Status(), false, err
			}
		}
		c.mu.Lock()
		c.opts = next
		c.mu.Unlock()
	}
	b, err := c.ensure(ctx)
	if err == nil && b.owned() && !sameBrowser(next, b.launched) {
		// It was running, or starting, with the old options: every start
		// from now on uses next, so one relaunch is enough.
		c.stopCurrent(ctx, Stopped)
		_, err = c.ensure(ctx)
	}
	c.mu.Lock()
	if err != nil && c.opts == next {
		c.opts = prev // the next need uses the options that worked
	}
	launched = c.launches != before || (!running && err == nil)
	c.mu.Unlock()
	return c.Status(), launched, err
}

func endpointHint(e *Endpoint) string {
	if e.Kind == state.BackendTier2 {
		return " (to use a browser of its own instead of VS Code's, start the coordinator with --no-vscode)"
	}
	return ""
}

// sameBrowser: the options would start the same browser (the first page aside).
func sameBrowser(a, b Options) bool {
	a.URL, b.URL = "", ""
	return a == b
}

// Stop stops the browser. The proxy keeps its port; the next need launches
// a browser again.
func (c *Coordinator) Stop(ctx context.Context) (Status, error) {
	c.cancelFlight()
	c.ops.Lock()
	defer c.ops.Unlock()
	c.stopCurrent(ctx, Stopped)
	return c.Status(), nil
}

// Restart stops the browser and launches it with the same options. Clients
// reconnect through the same proxy port.
func (c *Coordinator) Restart(ctx context.Context) (Status, error) {
	c.cancelFlight()
	c.ops.Lock()
	defer c.ops.Unlock()
	c.stopCurrent(ctx, Stopped)
	_, err := c.ensure(ctx)
	return c.Status(), err
}

// stopCurrent waits out a start in progress, then ends the backend (stops
// a launched browser; lets go of one it did not start) and leaves the state
// at final.
func (c *Coordinator) stopCurrent(ctx context.Context, final State) {
	c.mu.Lock()
	if f := c.flight; f != nil {
		c.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
		}
		c.mu.Lock()
	}
	b := c.cur
	c.cur = nil
	if b != nil || c.state == Running {
		c.state = final
	}
	c.mu.Unlock()
	if b == nil {
		return
	}
	// Clients lose the old browser now; a reconnect waits for the next start.
	c.proxy.DropConnections()
	b.shutdown(ctx)
	c.publishQuietly()
}

// SetEndpoint switches what the proxy fronts: e's browser, or with nil a
// browser the coordinator launches. Clients are disconnected and reconnect
// through the same port; an endpoint is connected at once. The old backend
// ends in the background (a launched browser's graceful stop takes a while
// and holds nothing up).
func (c *Coordinator) SetEndpoint(e *Endpoint) {
	c.ops.Lock()
	defer c.ops.Unlock()
	c.mu.Lock()
	same := (c.endpoint == nil && e == nil) || (c.endpoint != nil && e != nil && c.endpoint.URL == e.URL && c.endpoint.Kind == e.Kind)
	if same || c.closed {
		c.mu.Unlock()
		return
	}
	c.endpoint = e
	old := c.cur
	c.cur = nil
	c.mu.Unlock()
	// Clients of the old backend go before anything shows the new one: a
	// client that sees the switch must not still hold the old connection.
	c.proxy.DropConnections()
	c.mu.Lock()
	if c.flight == nil {
		c.state, c.lastErr = Idle, nil
		if e != nil && !c.closed {
			c.startFlightLocked()
		}
	}
	c.mu.Unlock()
	if old != nil {
		c.ending.Add(1)
		go func() {
			defer c.ending.Done()
			old.shutdown(context.Background())
		}()
	}
	c.publishQuietly()
}

// SetVSCodeStatus records how the coordinator relates to VS Code (status).
func (c *Coordinator) SetVSCodeStatus(v *VSCodeStatus) {
	c.mu.Lock()
	c.vscode = v
	c.mu.Unlock()
	c.publishSoon()
}

// Close stops the browser, closes the proxy and removes the state file.
func (c *Coordinator) Close() error {
	c.cancelFlight()
	c.ops.Lock()
	defer c.ops.Unlock()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	f := c.flight
	c.mu.Unlock()
	if f != nil {
		<-f.done
	}
	c.stopCurrent(context.Background(), Stopped)
	c.ending.Wait()
	c.cancel()
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
func (c *Coordinator) Options() Options {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opts
}

// publish writes the state file from the current status.
func (c *Coordinator) publish() error {
	c.publishMu.Lock()
	defer c.publishMu.Unlock()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil // Close removes the file; never write it back
	}
	f := c.Status().stateFile(c.token)
	return state.Write(c.statePath, &f)
}

// publishSoon asks for a state file write without waiting for it; bursts
// of page events coalesce into one write.
func (c *Coordinator) publishSoon() {
	select {
	case c.dirty <- struct{}{}:
	default:
	}
}

func (c *Coordinator) publisher() {
	for {
		select {
		case <-c.dirty:
			c.publishQuietly()
		case <-c.ctx.Done():
			return
		}
	}
}

func (c *Coordinator) publishQuietly() {
	if err := c.publish(); err != nil {
		c.log.Warn("could not update the state file", "path", c.statePath, "err", err)
	}
}

// Status is a snapshot of the coordinator, as tools and the control API report it.
type Status struct {
	State       State          `json:"state"`
	Backend     string         `json:"backend"`
	Browser     *state.Browser `json:"browser,omitempty"` // nil while no browser runs
	ProxyPort   int            `json:"proxyPort"`
	CDPEndpoint string         `json:"cdpEndpoint"`
	WSEndpoint  string         `json:"wsEndpoint"`
	CurrentURL  string         `json:"currentUrl,omitempty"`
	Connections int            `json:"connections"`
	LastError   string         `json:"lastError,omitempty"`
	PID         int            `json:"pid"`
	Workspace   string         `json:"workspace"`
	StateFile   string         `json:"stateFile"`
	StartedAt   time.Time      `json:"startedAt"`
	Uptime      string         `json:"uptime"`
	Version     string         `json:"version"`
	VSCode      *VSCodeStatus  `json:"vscode,omitempty"`
}

// Status reports where the coordinator is.
func (c *Coordinator) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Status{
		State:       c.state,
		Backend:     state.BackendTier1,
		ProxyPort:   c.proxy.Port(),
		CDPEndpoint: c.proxy.Endpoint(),
		WSEndpoint:  c.proxy.WSEndpoint(),
		Connections: c.proxy.Connections(),
		PID:         os.Getpid(),
		Workspace:   c.workspace,
		StateFile:   c.statePath,
		StartedAt:   c.started,
		Uptime:      time.Since(c.started).Round(time.Second).String(),
		Version:     version.Get().Version,
	}
	if c.lastErr != nil {
		s.LastError = c.lastErr.Error()
	}
	if c.endpoint != nil {
		s.Backend = c.endpoint.Kind
	}
	if c.cur != nil {
		s.Backend = c.cur.kind
		s.CurrentURL = c.cur.pages.CurrentURL()
	}
	if c.last != nil {
		b := *c.last
		if c.cur == nil {
			b.PID = 0 // not running
		}
		s.Browser = &b
	}
	s.VSCode = c.vscode
	return s
}

func (s Status) stateFile(token string) state.File {
	return state.File{
		PID:          s.PID,
		ProxyPort:    s.ProxyPort,
		CDPEndpoint:  s.CDPEndpoint,
		WSEndpoint:   s.WSEndpoint,
		Backend:      s.Backend,
		Browser:      s.Browser,
		State:        string(s.State),
		CurrentURL:   s.CurrentURL,
		Workspace:    s.Workspace,
		ControlToken: token,
		StartedAt:    s.StartedAt,
		Version:      s.Version,
	}
}
