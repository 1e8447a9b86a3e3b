// Package backend is what the coordinator fronts, as the packages around
// it see it: a Connector brings a browser up (launching one is one more
// connector, beside VS Code's port, an attached endpoint, the user's own
// browser and a remote browser service), a Connection is that browser
// until its Close, its tabs are Pages, and the coordinator tells of
// changes with Events.
//
// It is the habit of chromedp's Allocator: one contract for "give me a
// browser", however it is had. A Connection is small — a connection or an
// endpoint, a version, done, close — and says the rest through optional
// interfaces (Pager, Releaser, Watcher, Reporter, …) that the coordinator
// asks for with a type assertion. Only the coordinator knows the
// lifecycle: when to connect, when to let go, what a crash means.
package backend

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// A Connector brings up the browser the coordinator fronts: it launches
// one, or connects to one that runs.
type Connector interface {
	// Connect brings it up. ctx bounds the start only: the Connection lives
	// until its Close. o is what a launch uses; a connector that does not
	// launch takes what it can of it (a first page) and ignores the rest
	// (Source.Launches says which).
	Connect(ctx context.Context, o Options) (Connection, error)
}

// A Connection is a browser a Connector brought up.
type Connection interface {
	// Conn is the connection to it that the coordinator holds: every client
	// of the proxy gets a browser session of its own on it. Nil when the
	// browser is reached at an Endpoint instead.
	Conn() *cdp.Conn
	// Endpoint is a browser reached over TCP: every client gets a
	// connection of its own. Nil with a Conn.
	Endpoint() *cdp.Endpoint
	// Version is what the browser said it is (Browser.getVersion, or
	// /json/version's product).
	Version() cdp.Version
	// Browser is what status says of it.
	Browser() state.Browser
	// Done is closed when it goes away on its own.
	Done() <-chan struct{}
	// Close lets go of it: a browser the connector launched is stopped
	// (gracefully within ctx, then by force) and reaped, and its temporary
	// profile removed; any other is only disconnected, never stopped. Safe
	// to call twice.
	Close(ctx context.Context) error
}

// The optional interfaces: a Connection implements those it needs, and
// the coordinator asks for them.
type (
	// Pager is a connection whose tabs are not simply its CDP page targets
	// (VS Code's browser view), or that follows them itself (to know when
	// it is gone, or which tab the user brought to the front). Without it,
	// the coordinator follows the page targets on Conn; an Endpoint without
	// it has no tabs the coordinator sees.
	Pager interface {
		Pages() Pages
	}

	// Releaser is a connection that letting go of on purpose (a stop, a
	// switch to another browser, the coordinator's exit; not a restart)
	// does something before Close: the user's own browser closes the tabs
	// the agent opened.
	Releaser interface {
		Release(ctx context.Context)
	}

	// Watcher is a connection whose status changes while it runs (the
	// browser extension connecting or going away): Changed receives after
	// each change, and status and the state file follow it.
	Watcher interface {
		Changed() <-chan struct{}
	}

	// Reporter is the user's own browser: which browser it is now, and
	// what of it is connected. While Connected is false, nothing in it can
	// be worked in (ErrDisconnected, with Reason).
	Reporter interface {
		Everyday() (state.Browser, *state.Everyday)
	}

	// Explainer is a connection that knows why it went away (a launched
	// browser: how it exited); without it, the coordinator says it lost
	// the connection.
	Explainer interface {
		Gone() error
	}
)

// Waiter is a connector whose start may wait on others (a remote
// service's queue): Waiting says for what while a start is under way, ""
// otherwise. Status shows it.
type Waiter interface {
	Waiting() string
}

// Options are what a launch uses. The zero value launches the first
// detected browser, headed, with a temporary profile.
type Options struct {
	BrowserType browsers.Type // "" means the first detected
	BrowserPath string        // explicit executable; overrides BrowserType
	Headless    bool
	UserDataDir string // persistent profile; "" means temporary
	URL         string // first page; "" means about:blank
}

// Source is a browser the coordinator can front: its Connector, and what
// the coordinator must know of it.
type Source struct {
	Kind     string // state.BackendTier1, BackendTier2, BackendAttach, BackendEveryday, …
	Key      string // the same Key is the same source (SetSource changes nothing)
	Describe string // for status and messages: "VS Code's CDP port 41234"
	// Remedies end a refusal of options it cannot have (what to do instead).
	Remedies []remedy.Kind
	// Connector brings its browser up.
	Connector Connector
	// Launches: its browser is started with all of the Options (browser,
	// profile, headless). Any other source takes only a first page, and a
	// change of the rest is refused.
	Launches bool
	// Lazy: brought up at the first need, not as soon as it is set (a
	// launch; a remote service's session, which costs). A browser that
	// runs anyway is connected at once, so that status shows it.
	Lazy bool
	// Fallback: when it does not answer (ErrUnreachable), launch a browser
	// instead (VS Code quit), and say so with a FellBack event.
	Fallback bool
	// ConnectTimeout bounds one Connect; 0 leaves the bound to the
	// connector (a launch has its own).
	ConnectTimeout time.Duration
}

// DefaultConnectTimeout is what a browser that runs has to answer in.
const DefaultConnectTimeout = 15 * time.Second

// Errors callers branch on.
var (
	// ErrUnreachable marks a source that does not answer.
	ErrUnreachable = cdp.ErrUnreachable
	// ErrNotRunning: no browser runs now (nothing was started for the call).
	ErrNotRunning = errors.New("no browser is running")
	// ErrDisconnected marks a browser that runs but cannot be worked in now:
	// the user's own browser while its extension is away. The backend waits
	// for it, and work resumes by itself when it is back.
	ErrDisconnected = errors.New("your browser is not connected")
)

// ProductVersion turns "HeadlessChrome/156.0.8078.79" into "156.0.8078.79".
func ProductVersion(product string) string {
	if _, v, ok := strings.Cut(product, "/"); ok {
		return v
	}
	return product
}

// ProductType names the browser family of a product ("Chrome/144.0…",
// "HeadlessChrome/…", "Edg/…").
func ProductType(product string) string {
	name, _, _ := strings.Cut(product, "/")
	switch name = strings.ToLower(strings.TrimPrefix(name, "Headless")); name {
	case "edg":
		return string(browsers.Edge)
	case "":
		return state.BackendEveryday
	}
	return name
}
