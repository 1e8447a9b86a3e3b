package coordinator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdpproxy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// Launcher starts browsers. The real one is package launcher; the state
// machine's tests give a fake.
type Launcher interface {
	Launch(ctx context.Context, o LaunchOptions) (Launched, error)
}

// LaunchOptions are one launch's, resolved.
type LaunchOptions struct {
	Exe                        browsers.Browser
	Options                    Options
	ProfileRoot                string
	LaunchTimeout, StopTimeout time.Duration
	Logger                     *slog.Logger
}

// Launched is a browser the coordinator started.
type Launched interface {
	PID() int
	Version() cdp.Version // Browser.getVersion's answer
	// Conn is the coordinator's connection to it (nil for a fake).
	Conn() *cdp.Conn
	// Done is closed once the browser has exited and been reaped.
	Done() <-chan struct{}
	ExitErr() error
	// Stop closes it (gracefully, then by force), waits until it is reaped
	// and removes a temporary profile.
	Stop(ctx context.Context) error
}

// systemLauncher is package launcher.
type systemLauncher struct{}

func (systemLauncher) Launch(ctx context.Context, o LaunchOptions) (Launched, error) {
	b, err := launcher.Launch(ctx, launcher.Options{
		Path:          o.Exe.Path,
		Headless:      o.Options.Headless,
		UserDataDir:   o.Options.UserDataDir,
		ProfileRoot:   o.ProfileRoot,
		URL:           o.Options.URL,
		LaunchTimeout: o.LaunchTimeout,
		StopTimeout:   o.StopTimeout,
		Logger:        o.Logger,
	})
	if err != nil {
		return nil, err
	}
	return launched{b}, nil
}

type launched struct{ b *launcher.Browser }

func (l launched) PID() int                       { return l.b.PID }
func (l launched) Version() cdp.Version           { return l.b.Version }
func (l launched) Conn() *cdp.Conn                { return l.b.Conn }
func (l launched) Done() <-chan struct{}          { return l.b.Done() }
func (l launched) ExitErr() error                 { return l.b.ExitErr() }
func (l launched) Stop(ctx context.Context) error { return l.b.Stop(ctx) }

// Source is a browser the coordinator fronts instead of launching one.
type Source struct {
	Kind     string // state.BackendTier2, BackendAttach, BackendEveryday
	Key      string // the same Key is the same source (SetSource changes nothing)
	Describe string // for status and messages: "VS Code's CDP port 41234"
	// Remedies end a refusal of options it cannot have (what to do instead).
	Remedies []remedy.Kind
	// Connector connects to it.
	Connector Connector
	// Fallback: when it does not answer (ErrUnreachable), launch a browser
	// instead (VS Code quit), and say so with a FellBack event.
	Fallback bool
	// ConnectTimeout bounds one Connect; 0 means 15 s.
	ConnectTimeout time.Duration
}

// Connector connects to a browser the coordinator did not start.
type Connector interface {
	Connect(ctx context.Context) (*Connection, error)
}

// Connection is a connected browser the coordinator did not start: a
// connection the coordinator holds (Conn: every proxy client gets a session
// of its own on it), or a browser reached over TCP (Endpoint: every client
// gets a connection of its own, through Filter if set).
type Connection struct {
	Conn     *cdp.Conn
	Version  cdp.Version // with Conn: what the browser said it is, for /json/version
	Endpoint *cdp.Endpoint
	Filter   cdpproxy.Filter
	Pages    Pages           // the tab tools and currentUrl; nil: none
	Browser  state.Browser   // for status
	Done     <-chan struct{} // closed when it goes away
	Close    func()          // lets go of it (never stops the browser)

	// Release, if set, is what letting go on purpose (a stop, a switch to
	// another browser, the coordinator's exit; not a restart) does before
	// Close: the everyday browser closes the tabs the agent opened.
	Release func(ctx context.Context)
	// Changed, if set, receives after each change of what Everyday says
	// (the extension connecting or going away): status and the state file
	// follow it.
	Changed <-chan struct{}
	// Everyday, if set, says what is connected of the user's own browser,
	// and which browser that is now.
	Everyday func() (state.Browser, *state.Everyday)
}

// ErrUnreachable marks a source that does not answer.
var ErrUnreachable = cdp.ErrUnreachable

// Pages is what the tab tools and currentUrl work on: the coordinator's own
// tab follower, VS Code's browser view in Tier 2.
type Pages interface {
	Tabs(ctx context.Context) ([]Tab, error)
	Open(ctx context.Context, url string, focus bool) (Tab, error)
	Focus(ctx context.Context, id string) (Tab, error)
	Close(ctx context.Context, id string) error
	CurrentURL() string
	// Front is the tab in front, if there is one (known without asking the browser).
	Front() (Tab, bool)
	// Changed is closed at the next change of the tabs or the page in front.
	Changed() <-chan struct{}
	Shutdown()
}

// backend is what the proxy talks to now: a browser the coordinator
// launched, or a connection to one it did not start. It owns what it runs:
// shutdown cancels its context and ends it.
type backend struct {
	kind     string
	proxy    cdpproxy.Backend
	browser  Launched // a launched browser, ours to stop; nil otherwise
	conn     *Connection
	info     state.Browser
	launched Options // what a launched browser was started with
	pages    Pages
	describe string // for messages: "chromium (pid 42)", "VS Code's CDP port 41234"

	changes <-chan struct{} // a change status must show (nil: none)

	done    chan struct{}      // closed when it goes away (on its own or not)
	ended   chan struct{}      // closed by shutdown: gone on purpose
	cancel  context.CancelFunc // a launched browser's life (nil for a connection: its Close ends it)
	endOnce sync.Once
	watch   sync.WaitGroup // the goroutine that closes done
}

// isGone reports at once whether the backend went away: what its watcher
// learns a moment later (a need must not be handed a dead browser).
func (b *backend) isGone() bool {
	chans := []<-chan struct{}{b.done}
	if b.proxy.Conn != nil {
		chans = append(chans, b.proxy.Conn.Done())
	}
	if b.browser != nil {
		chans = append(chans, b.browser.Done())
	}
	for _, ch := range chans {
		select {
		case <-ch:
			return true
		default:
		}
	}
	return false
}

// owned reports whether stopping this backend stops a browser process.
func (b *backend) owned() bool { return b.browser != nil }

// gone says why the backend went away on its own.
func (b *backend) gone() error {
	if b.owned() {
		// The pipe breaks as the browser dies: give the exit a moment to be
		// reaped, so that the reason is the real one.
		select {
		case <-b.browser.Done():
			return fmt.Errorf("the browser exited on its own (%v); the next need launches it again", b.browser.ExitErr())
		case <-time.After(time.Second):
			if b.proxy.Conn != nil && b.proxy.Conn.Err() != nil {
				return fmt.Errorf("the connection to the browser broke (%v); the next need launches it again", b.proxy.Conn.Err())
			}
			return errors.New("the connection to the browser broke; the next need launches it again")
		}
	}
	return fmt.Errorf("lost the connection to %s; the next need reconnects", b.describe)
}

// watchUntil closes done when gone or also closes (a nil channel never
// does), or when shutdown ends the backend; the goroutine is the backend's.
func (b *backend) watchUntil(gone, also <-chan struct{}) {
	b.done, b.ended = make(chan struct{}), make(chan struct{})
	b.watch.Add(1)
	go func() {
		defer b.watch.Done()
		defer close(b.done)
		select {
		case <-gone:
		case <-also:
		case <-b.ended:
		}
	}()
}

// release lets go on purpose, before shutdown (see Connection.Release).
func (b *backend) release(ctx context.Context) {
	if b.conn == nil || b.conn.Release == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	b.conn.Release(ctx)
}

// shutdown ends the backend: a launched browser is stopped, an external one
// is only let go. Safe to call twice.
func (b *backend) shutdown(ctx context.Context) {
	b.endOnce.Do(func() {
		close(b.ended)
		if b.pages != nil {
			b.pages.Shutdown()
		}
		if b.browser != nil {
			_ = b.browser.Stop(ctx)
		}
		if b.conn != nil && b.conn.Close != nil {
			b.conn.Close()
		}
		if b.cancel != nil {
			b.cancel()
		}
		b.watch.Wait()
	})
}

// launchBackend starts a browser; it lives until it is shut down.
func (c *Coordinator) launchBackend(ctx context.Context, o Options) (*backend, error) {
	start := time.Now()
	exe, err := c.resolve(o)
	if err != nil {
		return nil, err
	}
	life, cancel := context.WithCancel(c.ctx)
	stopOnCancel := context.AfterFunc(ctx, cancel) // a start taken back ends its browser
	br, err := c.launch.Launch(life, LaunchOptions{Exe: exe, Options: o, ProfileRoot: c.profileRoot(), LaunchTimeout: c.cfg.LaunchTimeout, StopTimeout: c.cfg.StopTimeout, Logger: c.log})
	if err != nil || !stopOnCancel() {
		cancel()
		if err == nil {
			_ = br.Stop(context.Background())
			err = ctx.Err()
		}
		return nil, err
	}
	version := productVersion(br.Version().Product)
	c.log.Info("browser running", "type", exe.Type, "version", version, "pid", br.PID(), "took", time.Since(start).Round(time.Millisecond))
	b := &backend{
		kind:     state.BackendTier1,
		browser:  br,
		info:     state.Browser{Type: string(exe.Type), Path: exe.Path, Version: version, PID: br.PID(), Headless: o.Headless},
		launched: o,
		describe: fmt.Sprintf("%s (pid %d)", exe.Type, br.PID()),
		cancel:   cancel,
	}
	var connDone <-chan struct{}
	if conn := br.Conn(); conn != nil {
		b.proxy = cdpproxy.Backend{Conn: conn, Version: br.Version()}
		b.pages = followPages(life, conn, nil, false)
		connDone = conn.Done()
	}
	b.watchUntil(br.Done(), connDone)
	return b, nil
}

// ProductVersion turns "HeadlessChrome/156.0.8078.79" into "156.0.8078.79".
func ProductVersion(product string) string { return productVersion(product) }

// productVersion turns "HeadlessChrome/156.0.8078.79" into "156.0.8078.79".
func productVersion(product string) string {
	if _, v, ok := strings.Cut(product, "/"); ok {
		return v
	}
	return product
}

// connectBackend connects to a source's browser.
func (c *Coordinator) connectBackend(ctx context.Context, src *Source) (*backend, error) {
	timeout := src.ConnectTimeout
	if timeout == 0 {
		timeout = 15 * time.Second
	}
	ctx, cancelConnect := context.WithTimeout(ctx, timeout)
	defer cancelConnect()
	conn, err := src.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	b := &backend{
		kind:     src.Kind,
		proxy:    cdpproxy.Backend{Conn: conn.Conn, Version: conn.Version, Endpoint: conn.Endpoint, Filter: conn.Filter},
		conn:     conn,
		info:     conn.Browser,
		pages:    conn.Pages,
		describe: src.Describe,
		changes:  conn.Changed,
	}
	b.watchUntil(conn.Done, nil)
	c.log.Info("connected to a browser", "backend", src.Kind, "browser", src.Describe, "product", conn.Browser.Version)
	return b, nil
}

// AttachSource fronts an existing browser at endpoint (http(s) or ws(s)),
// sending header with every request.
func AttachSource(endpoint string, header http.Header) *Source {
	return &Source{
		Kind:      state.BackendAttach,
		Key:       "attach " + endpoint,
		Describe:  "the browser at " + cdp.Redact(endpoint),
		Connector: attachConnector{url: endpoint, header: header},
	}
}

type attachConnector struct {
	url    string
	header http.Header
}

func (a attachConnector) Connect(ctx context.Context) (*Connection, error) {
	e, err := cdp.Probe(ctx, a.url, a.header)
	if err != nil {
		return nil, err
	}
	// A WebSocket-only endpoint is often a service that starts a browser
	// for every connection: follow its pages only when a tab tool asks.
	pages := followPages(context.Background(), nil, &e, e.NoHTTP)
	return &Connection{
		Endpoint: &e,
		Pages:    pages,
		Browser:  state.Browser{Type: state.BackendAttach, Path: cdp.Redact(a.url), Version: productVersion(e.Product)},
		Done:     pages.Lost(),
	}, nil
}
