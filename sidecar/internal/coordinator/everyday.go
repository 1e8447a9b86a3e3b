package coordinator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/everyday"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/portowner"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/reach"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/userfile"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/version"
	"github.com/gorilla/websocket"
)

// The everyday browser: the user's own browser as a source, reached one of
// two ways, both one connection the coordinator holds, on which every proxy
// client gets a browser session of its own (as on a launched browser's
// pipe):
//
//   - through the Browser Coordinator extension and its native host
//     (package everyday: a virtual browser over the tabs the user shares
//     and the ones the agent opens);
//   - through the browser's own debugging port (Chrome 144 and later, once
//     the user allows remote debugging at chrome://inspect): the port and
//     path are in DevToolsActivePort in its profile, as chrome-devtools-mcp's
//     autoConnect reads them. One WebSocket for every client, so the user
//     answers the browser's prompt once.
//
// A profile given with --user-data-dir (Config.EverydayProfile) picks the second way. Without one,
// the extension is used when a native host has announced itself (the
// browser runs with the extension); otherwise a default profile whose
// DevToolsActivePort answers; otherwise the start waits a while for the
// extension and fails with what to do.

// ActivePortVia and ExtensionVia are state.Everyday.Via's values.
const (
	ExtensionVia  = "extension"
	ActivePortVia = "devtools-port"
)

// defaultEverydayWait is how long a start waits for the extension.
const defaultEverydayWait = 10 * time.Second

// everydayNotConnected is the advice a start that found no way in ends
// with; the surface adds how to register the host and name a profile.
const everydayNotConnected = "open your browser with the Browser Coordinator extension installed and its native host registered, " +
	"or, in Chrome 144 or later, allow remote debugging at chrome://inspect/#remote-debugging"

// EverydaySource is the user's own browser as a source (backend everyday).
// Its profile is Config.EverydayProfile.
func (c *Coordinator) EverydaySource() *Source {
	profile := c.cfg.EverydayProfile
	wait := c.cfg.EverydayWait
	if wait == 0 {
		wait = defaultEverydayWait
	}
	detect := c.cfg.Detector
	if detect == nil {
		detect = browsers.System()
	}
	k := everydayConnector{
		stateDir: c.cfg.StateDir,
		folder:   c.workspace,
		profile:  profile,
		profiles: detect.Profiles,
		wait:     wait,
		reach:    c.cfg.Reach,
		log:      c.log,
	}
	src := &Source{
		Kind:     state.BackendEveryday,
		Key:      "everyday",
		Describe: "your own browser",
		Remedies: []remedy.Kind{remedy.SwitchBrowser},
		// The browser may hold the first call until the user answers its
		// prompt (the debugging-port way).
		ConnectTimeout: wait + 60*time.Second,
		Connector:      k,
	}
	if profile != "" {
		src.Key += " " + profile
		src.Describe = "your own browser (profile " + profile + ")"
	}
	return src
}

// IsEveryday reports whether the coordinator fronts the user's own browser
// now (or will on the next need).
func (c *Coordinator) IsEveryday() bool {
	m := c.read()
	return m.source.Kind == state.BackendEveryday
}

type everydayConnector struct {
	stateDir, folder string
	profile          string                    // the debugging-port way in this profile; "" to choose
	profiles         func() []browsers.Profile // the default profiles, stable first
	wait             time.Duration
	reach            reach.Policy
	log              *slog.Logger
}

func (k everydayConnector) Connect(ctx context.Context, _ Options) (backend.Connection, error) {
	if k.profile != "" {
		return k.activePort(ctx, k.profile, "")
	}
	if len(nativemsg.LiveHosts(nativemsg.Dir(k.stateDir))) == 0 {
		for _, p := range k.profiles() {
			conn, err := k.activePort(ctx, p.Dir, string(p.Type))
			if err == nil {
				return conn, nil
			}
			if !errors.Is(err, errNoActivePort) {
				k.log.Info("a browser's DevToolsActivePort does not answer", "profile", p.Dir, "err", err)
			}
		}
	}
	return k.extension(ctx)
}

// extension opens the way through the extension, once it has connected.
func (k everydayConnector) extension(ctx context.Context) (backend.Connection, error) {
	ec, err := everyday.Open(everyday.Options{StateDir: k.stateDir, Folder: k.folder, Version: version.Get().Version, Reach: k.reach, Logger: k.log})
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, k.wait)
	err = ec.WaitConnected(wctx)
	cancel()
	if err != nil {
		ec.Close()
		return nil, remedy.With(fmt.Errorf("your browser is not connected: %w; %s", err, everydayNotConnected),
			remedy.RegisterHost, remedy.EverydayProfile)
	}
	conn := cdp.NewConn(ec, cdp.Options{Logger: k.log})
	v, err := cdp.GetVersion(ctx, conn)
	if err != nil {
		conn.Close()
		ec.Close()
		return nil, fmt.Errorf("your browser through the extension: %w", err)
	}
	pages := followPages(context.Background(), conn, nil, false)
	pages.followActivity(ec) // the user bringing a tab to the front: no CDP event says it
	return &viaExtension{conn: conn, ec: ec, version: v, pages: pages, log: k.log}, nil
}

// viaExtension is the user's own browser through the extension: a
// connection the coordinator holds, over native messaging.
type viaExtension struct {
	conn    *cdp.Conn
	ec      *everyday.Conn
	version cdp.Version
	pages   *pages
	log     *slog.Logger
}

func (x *viaExtension) Conn() *cdp.Conn         { return x.conn }
func (x *viaExtension) Endpoint() *cdp.Endpoint { return nil }
func (x *viaExtension) Version() cdp.Version    { return x.version }
func (x *viaExtension) Pages() backend.Pages    { return x.pages }

// Done: only Close ends it; the extension going away is a state of its own.
func (x *viaExtension) Done() <-chan struct{} { return x.conn.Done() }

// Changed receives when the extension connects or goes away.
func (x *viaExtension) Changed() <-chan struct{} { return x.ec.Changes() }

func (x *viaExtension) Close(context.Context) error {
	x.conn.Close()
	return x.ec.Close() // the host tells the extension, which detaches from this coordinator's tabs
}

// Release closes the tabs the agent opened.
func (x *viaExtension) Release(ctx context.Context) {
	n, err := x.ec.CloseAgentTabs(ctx)
	if err != nil {
		x.log.Warn("could not close every tab the agent opened", "closed", n, "err", err)
		return
	}
	x.log.Info("closed the tabs the agent opened", "closed", n)
}

func (x *viaExtension) Browser() state.Browser {
	b, _ := x.Everyday()
	if b.Version == "" {
		b.Version = backend.ProductVersion(x.version.Product)
	}
	return b
}

func (x *viaExtension) Everyday() (state.Browser, *state.Everyday) {
	s := x.ec.Status()
	b := state.Browser{Type: strings.ToLower(s.Browser.Name), Version: s.Browser.Version}
	if b.Type == "" {
		b.Type = state.BackendEveryday
	}
	return b, &state.Everyday{
		Via: ExtensionVia, Connected: s.Connected, ExtensionID: s.Extension.ID, ExtensionVersion: s.Extension.Version,
		HostPID: s.HostPID, Tabs: s.Tabs, Reason: s.Reason,
	}
}

// errNoActivePort: the profile has no DevToolsActivePort (the browser does
// not run, or remote debugging is off).
var errNoActivePort = errors.New("no DevToolsActivePort")

// activePort opens the way through the browser's own debugging port, named
// in profile/DevToolsActivePort. typ is the browser's type when known.
func (k everydayConnector) activePort(ctx context.Context, profile, typ string) (backend.Connection, error) {
	file := filepath.Join(profile, launcher.ActivePortFile)
	data, err := userfile.Read(file, userfile.NoOthersWrite)
	if userfile.IsNotExist(err) {
		return nil, fmt.Errorf("%w in %s: is the browser running with this profile, with remote debugging allowed at chrome://inspect/#remote-debugging (Chrome 144 or later)? %w",
			errNoActivePort, profile, ErrUnreachable)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	port, path, err := launcher.ParseActivePort(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	// The browser may have quit and another local user taken its port: our
	// clients, and what the agent types, must not go there.
	if err := portowner.Mine(port); err != nil {
		return nil, fmt.Errorf("%w: port %d named in %s %v; is the browser of this profile running, with remote debugging on?", ErrUnreachable, port, file, err)
	}
	url := "ws://127.0.0.1:" + strconv.Itoa(port) + path
	// No handshake timeout of its own: the browser may hold the connection
	// until the user answers its prompt; ctx bounds it.
	d := websocket.Dialer{ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10}
	ws, _, err := d.DialContext(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: the browser of %s does not answer on its debugging port %d (closed since, or remote debugging turned off): %v",
			ErrUnreachable, profile, port, err)
	}
	conn := cdp.NewConn(cdp.WebSocket(ws), cdp.Options{Logger: k.log})
	v, err := cdp.GetVersion(ctx, conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("the browser of %s on port %d: %w (did you allow the connection in the browser's prompt?)", profile, port, err)
	}
	if typ == "" {
		typ = backend.ProductType(v.Product)
	}
	k.log.Info("connected to your browser through its debugging port", "profile", profile, "port", port, "product", v.Product)
	return &viaActivePort{conn: conn, version: v, pages: followPages(context.Background(), conn, nil, false), typ: typ, profile: profile, port: port}, nil
}

// viaActivePort is the user's own browser through its own debugging port:
// one WebSocket the coordinator holds.
type viaActivePort struct {
	conn         *cdp.Conn
	version      cdp.Version
	pages        *pages
	typ, profile string
	port         int
}

func (a *viaActivePort) Conn() *cdp.Conn         { return a.conn }
func (a *viaActivePort) Endpoint() *cdp.Endpoint { return nil }
func (a *viaActivePort) Version() cdp.Version    { return a.version }
func (a *viaActivePort) Pages() backend.Pages    { return a.pages }
func (a *viaActivePort) Done() <-chan struct{}   { return a.conn.Done() }
func (a *viaActivePort) Close(context.Context) error {
	return a.conn.Close()
}

func (a *viaActivePort) Browser() state.Browser {
	return state.Browser{Type: a.typ, Path: a.profile, Version: backend.ProductVersion(a.version.Product)}
}

func (a *viaActivePort) Everyday() (state.Browser, *state.Everyday) {
	n := len(a.pages.follow.Targets(cdp.IsPage))
	return a.Browser(), &state.Everyday{Via: ActivePortVia, Connected: true, Tabs: n, Profile: a.profile, Port: a.port}
}
