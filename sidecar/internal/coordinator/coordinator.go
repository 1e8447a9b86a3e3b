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
	"strings"
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
// most one browser.
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

	ops sync.Mutex // serializes launch / stop / restart requests

	mu       sync.Mutex
	state    State
	opts     Options
	browser  *launcher.Browser
	launched Options          // the options the current or last browser was launched with
	exe      browsers.Browser // the executable of the current or last browser
	pages    *pages           // follows the current browser's pages; nil if it could not
	flight   *flight          // the launch in progress, shared by every need
	lastErr  error
	closed   bool
	launches int // launch attempts so far (tests check the single flight)

	publishMu sync.Mutex    // orders state file writes
	dirty     chan struct{} // a state file write is wanted (publishSoon)
}

// flight is one launch that any number of needs wait for.
type flight struct {
	done chan struct{}
	err  error
	prev State // where a failed launch returns to
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

// Backend implements cdpproxy.Resolver: the running browser, launched first
// if needed. This is the lazy launch behind a CDP client's first connection.
func (c *Coordinator) Backend(ctx context.Context) (cdpproxy.Backend, error) {
	b, err := c.ensure(ctx)
	if err != nil {
		return cdpproxy.Backend{}, err
	}
	return cdpproxy.Backend{Addr: b.Addr(), WSPath: b.WSPath}, nil
}

// Ensure makes sure a browser runs, launching it with the current options if
// none does, and returns the status.
func (c *Coordinator) Ensure(ctx context.Context) (Status, error) {
	_, err := c.ensure(ctx)
	return c.Status(), err
}

// ensure returns the running browser, joining or starting the one launch.
func (c *Coordinator) ensure(ctx context.Context) (*launcher.Browser, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClosed
		}
		if c.state == Running && c.browser != nil {
			b := c.browser
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
		// Launched; loop to pick it up (or to join a newer launch if a
		// restart superseded this one meanwhile).
	}
}

// startFlightLocked begins a launch with c.opts. c.mu must be held.
func (c *Coordinator) startFlightLocked() *flight {
	f := &flight{done: make(chan struct{}), prev: c.state}
	c.flight = f
	c.state = Launching
	c.launches++
	opts := c.opts
	go func() {
		c.publishQuietly()
		b, exe, err := c.launch(opts)
		c.mu.Lock()
		if c.flight == f {
			c.flight = nil
		}
		switch {
		case err == nil && c.closed:
			err = ErrClosed
			c.mu.Unlock()
			_ = b.Stop(context.Background())
			c.mu.Lock()
		case err == nil:
			c.browser, c.exe, c.launched, c.state, c.lastErr = b, exe, opts, Running, nil
			c.pages = newPages(c.publishSoon)
			go c.pages.connect(c.ctx, "ws://"+b.Addr()+b.WSPath)
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

// launch resolves the executable and starts it.
func (c *Coordinator) launch(o Options) (*launcher.Browser, browsers.Browser, error) {
	start := time.Now()
	exe, err := c.resolve(o)
	if err != nil {
		return nil, exe, err
	}
	b, err := launcher.Launch(c.ctx, launcher.Options{
		Path:          exe.Path,
		Headless:      o.Headless,
		UserDataDir:   o.UserDataDir,
		ProfileRoot:   c.profileRoot(),
		URL:           o.URL,
		LaunchTimeout: c.cfg.LaunchTimeout,
		StopTimeout:   c.cfg.StopTimeout,
		Logger:        c.log,
	})
	if err != nil {
		return nil, exe, err
	}
	exe.Version = productVersion(b.Product)
	c.log.Info("browser running", "type", exe.Type, "version", exe.Version, "pid", b.PID, "took", time.Since(start).Round(time.Millisecond))
	return b, exe, nil
}

// productVersion turns "HeadlessChrome/156.0.8078.79" into "156.0.8078.79".
func productVersion(product string) string {
	if _, v, ok := strings.Cut(product, "/"); ok {
		return v
	}
	return product
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

// watch notices a browser that exits while it is still the current one.
func (c *Coordinator) watch(b *launcher.Browser) {
	<-b.Done()
	c.mu.Lock()
	if c.browser != b {
		c.mu.Unlock()
		return // stopped on purpose; whoever stopped it set the state
	}
	c.browser = nil
	c.dropPagesLocked()
	c.state = Crashed
	c.lastErr = fmt.Errorf("browser exited on its own (%v); the next need launches it again", b.ExitErr())
	c.mu.Unlock()
	c.log.Warn("browser exited on its own", "pid", b.PID, "exit", b.ExitErr())
	_ = b.Stop(context.Background()) // reaps and removes its temporary profile
	c.proxy.DropConnections()
	c.publishQuietly()
}

// Launch launches the browser now. Options that differ from those of the
// running browser relaunch it with them; the proxy port stays the same. A
// different URL alone does not relaunch a running browser. launched reports
// whether this call started a browser.
func (c *Coordinator) Launch(ctx context.Context, change func(*Options)) (s Status, launched bool, err error) {
	c.ops.Lock()
	defer c.ops.Unlock()
	c.mu.Lock()
	prev := c.opts
	next := prev
	if change != nil {
		change(&next)
	}
	running := c.state == Running && c.browser != nil
	relaunch := c.browser != nil && !sameBrowser(next, c.launched)
	before := c.launches
	c.mu.Unlock()

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
	if relaunch {
		c.stopCurrent(ctx, Stopped)
	}
	_, err = c.ensure(ctx)
	c.mu.Lock()
	if err != nil && c.opts == next {
		c.opts = prev // the next need uses the options that worked
	}
	launched = c.launches != before || (!running && err == nil)
	c.mu.Unlock()
	return c.Status(), launched, err
}

// sameBrowser: the options would start the same browser (the first page aside).
func sameBrowser(a, b Options) bool {
	a.URL, b.URL = "", ""
	return a == b
}

// Stop stops the browser. The proxy keeps its port; the next need launches
// a browser again.
func (c *Coordinator) Stop(ctx context.Context) (Status, error) {
	c.ops.Lock()
	defer c.ops.Unlock()
	c.stopCurrent(ctx, Stopped)
	return c.Status(), nil
}

// Restart stops the browser and launches it with the same options. Clients
// reconnect through the same proxy port.
func (c *Coordinator) Restart(ctx context.Context) (Status, error) {
	c.ops.Lock()
	defer c.ops.Unlock()
	c.stopCurrent(ctx, Stopped)
	_, err := c.ensure(ctx)
	return c.Status(), err
}

// stopCurrent waits out a launch in progress, then stops the browser and
// leaves the state at final.
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
	b := c.browser
	c.browser = nil
	c.dropPagesLocked()
	if b != nil || c.state == Running {
		c.state = final
	}
	c.mu.Unlock()
	if b == nil {
		return
	}
	// Clients lose the old browser now; a reconnect waits for the next launch.
	c.proxy.DropConnections()
	_ = b.Stop(ctx)
	c.publishQuietly()
}

// Close stops the browser, closes the proxy and removes the state file.
func (c *Coordinator) Close() error {
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
	c.cancel()
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

func (c *Coordinator) dropPagesLocked() {
	if c.pages != nil {
		c.pages.close()
		c.pages = nil
	}
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
	Browser     *state.Browser `json:"browser"`
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
	if c.pages != nil {
		s.CurrentURL = c.pages.frontURL()
	}
	if c.exe.Path != "" || c.browser != nil {
		s.Browser = &state.Browser{Type: string(c.exe.Type), Path: c.exe.Path, Version: c.exe.Version, Headless: c.launched.Headless}
		if c.browser != nil {
			s.Browser.PID = c.browser.PID
		}
	}
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
