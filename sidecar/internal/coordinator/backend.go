package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdpproxy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// backend is what the proxy talks to now: a browser the coordinator
// launched (Tier 1), or a connection to one it did not start (Tier 2, attach).
type backend struct {
	kind     string // state.BackendTier1, BackendTier2, BackendAttach
	proxy    cdpproxy.Backend
	browser  *launcher.Browser // Tier 1: the process, ours to stop
	info     state.Browser
	launched Options         // Tier 1: what it was launched with
	pages    Pages           // tabs and the page in front
	done     <-chan struct{} // closed when it goes away on its own
	describe string          // for messages: "chromium (pid 42)", "VS Code's CDP port 41234"
}

// owned reports whether stopping this backend stops a browser process.
func (b *backend) owned() bool { return b.browser != nil }

// shutdown ends the backend: a launched browser is stopped, an external one
// is only let go.
func (b *backend) shutdown(ctx context.Context) {
	if b.pages != nil {
		b.pages.Shutdown()
	}
	if b.browser != nil {
		_ = b.browser.Stop(ctx)
	}
}

// Pages is what the tab tools and currentUrl work on: the coordinator's own
// page follower for launched and attached browsers, VS Code's browser view
// in Tier 2.
type Pages interface {
	Tabs(ctx context.Context) ([]Tab, error)
	Open(ctx context.Context, url string, focus bool) (Tab, error)
	Focus(ctx context.Context, id string) (Tab, error)
	Close(ctx context.Context, id string) error
	CurrentURL() string
	// Lost is closed when the connection to the browser ends.
	Lost() <-chan struct{}
	Shutdown()
}

// Endpoint is a browser the coordinator uses instead of launching one: VS
// Code's own CDP port (Tier 2) or an endpoint given with --cdp-endpoint.
type Endpoint struct {
	Kind     string      // state.BackendTier2 or state.BackendAttach
	URL      string      // http(s)://host:port[/...] or ws(s)://host:port/path
	Header   http.Header // sent with every request (a service's token)
	Describe string      // for status and messages: "VS Code's CDP port 41234"
	// View, if set, narrows what clients see (Tier 2) and provides the tabs.
	View func(ctx context.Context, b cdpproxy.Backend, onChange func()) (cdpproxy.Filter, Pages, error)
	// OnUnreachable, if set, is called when a need finds the endpoint gone;
	// the coordinator then launches a browser of its own instead (Tier 2
	// falls back to Tier 1 when VS Code quits).
	OnUnreachable func(error)
}

// launchBackend starts a browser (Tier 1); it lives until ctx ends or it is stopped.
func (c *Coordinator) launchBackend(ctx context.Context, o Options) (*backend, error) {
	start := time.Now()
	exe, err := c.resolve(o)
	if err != nil {
		return nil, err
	}
	b, err := launcher.Launch(ctx, launcher.Options{
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
		return nil, err
	}
	version := productVersion(b.Product)
	c.log.Info("browser running", "type", exe.Type, "version", version, "pid", b.PID, "took", time.Since(start).Round(time.Millisecond))
	pb := cdpproxy.Backend{Addr: b.Addr(), WSPath: b.WSPath}
	return &backend{
		kind:     state.BackendTier1,
		proxy:    pb,
		browser:  b,
		info:     state.Browser{Type: string(exe.Type), Path: exe.Path, Version: version, PID: b.PID, Headless: o.Headless},
		launched: o,
		pages:    followPages(c.ctx, pb, c.publishSoon, false),
		done:     b.Done(),
		describe: fmt.Sprintf("%s (pid %d)", exe.Type, b.PID),
	}, nil
}

// productVersion turns "HeadlessChrome/156.0.8078.79" into "156.0.8078.79".
func productVersion(product string) string {
	if _, v, ok := strings.Cut(product, "/"); ok {
		return v
	}
	return product
}

// ErrUnreachable marks an endpoint that does not answer.
var ErrUnreachable = errors.New("CDP endpoint unreachable")

// connectBackend connects to an existing browser (Tier 2, attach).
func (c *Coordinator) connectBackend(ctx context.Context, e *Endpoint) (*backend, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	pb, product, err := ProbeEndpoint(ctx, e.URL, e.Header)
	if err != nil {
		return nil, err
	}
	b := &backend{
		kind:     e.Kind,
		proxy:    pb,
		info:     state.Browser{Type: e.Kind, Path: Redact(e.URL), Version: productVersion(product)},
		describe: e.Describe,
	}
	if e.View != nil {
		filter, pages, err := e.View(ctx, pb, c.publishSoon)
		if err != nil {
			return nil, err
		}
		b.proxy.Filter, b.pages = filter, pages
	} else {
		// A WebSocket-only endpoint is often a service that starts a browser
		// for every connection: follow its pages only when a tab tool asks.
		b.pages = followPages(c.ctx, pb, c.publishSoon, pb.NoHTTP)
	}
	b.done = b.pages.Lost()
	c.log.Info("connected to an existing browser", "backend", e.Kind, "endpoint", Redact(e.URL), "browser", product)
	return b, nil
}

// ProbeEndpoint checks that an endpoint answers and says how to reach it:
// an http(s) endpoint through /json/version, a ws(s) endpoint by opening it.
func ProbeEndpoint(ctx context.Context, endpoint string, header http.Header) (cdpproxy.Backend, string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return cdpproxy.Backend{}, "", fmt.Errorf("%q is not a CDP endpoint URL: use http(s)://HOST:PORT or ws(s)://HOST:PORT/PATH", endpoint)
	}
	b := cdpproxy.Backend{Addr: hostPort(u), Header: header, Query: u.RawQuery}
	switch u.Scheme {
	case "http", "https":
		b.TLS = u.Scheme == "https"
		var v struct {
			Browser string `json:"Browser"`
			WS      string `json:"webSocketDebuggerUrl"`
		}
		if err := b.GetJSON(ctx, strings.TrimSuffix(u.Path, "/")+"/json/version", &v); err != nil {
			return b, "", fmt.Errorf("%w: %s: %v", ErrUnreachable, Redact(endpoint), err)
		}
		ws, err := url.Parse(v.WS)
		if err != nil || ws.Path == "" {
			return b, "", fmt.Errorf("%w: %s answered /json/version without a webSocketDebuggerUrl", ErrUnreachable, Redact(endpoint))
		}
		// The browser may name an address of its own (0.0.0.0, a container's
		// name): only its path counts; the address is the one we reach.
		b.WSPath = ws.RequestURI()
		return b, v.Browser, nil
	case "ws", "wss":
		b.TLS, b.NoHTTP, b.WSPath, b.Query = u.Scheme == "wss", true, u.RequestURI(), ""
		product, err := probeWS(ctx, b)
		if err != nil {
			return b, "", fmt.Errorf("%w: %s: %v", ErrUnreachable, Redact(endpoint), err)
		}
		b.Product = product
		return b, product, nil
	}
	return b, "", fmt.Errorf("%q: unsupported scheme %q: use http://, https://, ws:// or wss://", Redact(endpoint), u.Scheme)
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" || u.Scheme == "wss" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// probeWS opens a WebSocket-only endpoint and asks for the browser's version.
func probeWS(ctx context.Context, b cdpproxy.Backend) (string, error) {
	conn, err := b.DialCDP(ctx, nil)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	res, err := conn.Call(ctx, "", "Browser.getVersion", nil)
	if err != nil {
		return "", err
	}
	var v struct{ Product string }
	_ = json.Unmarshal(res, &v)
	return v.Product, nil
}

// Redact drops credentials (user info, the query) from a URL for logs and status.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	return u.String()
}
