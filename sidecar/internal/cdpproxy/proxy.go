// Package cdpproxy is the CDP reverse proxy: one loopback port that stays the
// same for the coordinator's whole life, in front of whichever browser is the
// backend right now.
//
// HTTP requests under /json are forwarded with every webSocketDebuggerUrl and
// devtoolsFrontendUrl rewritten to the proxy, so clients never learn the
// browser's own port. WebSocket upgrades under /devtools/ are tunnelled byte
// for byte (the browser endpoint, /devtools/browser/<any guid>, is mapped to
// the current browser). The backend is asked for on every new connection,
// which is what makes the first connection launch the browser. When the
// backend changes, DropConnections closes the open tunnels so that clients
// reconnect to the new one through the same port.
//
// The proxy binds 127.0.0.1 only, refuses a Host that is not loopback (DNS
// rebinding) and a browser Origin that is not its own, and sends the browser
// the Host it accepts and no Origin.
package cdpproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/access"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdpbridge"
	"github.com/gorilla/websocket"
)

// Backend is where traffic goes now: a browser the coordinator launched
// (a plain local address), VS Code's own CDP port (with a Filter), or an
// attached endpoint (maybe remote, TLS, with headers, maybe WebSocket-only).
type Backend struct {
	Addr   string      // host:port to dial; also the Host header the browser gets
	TLS    bool        // https:// and wss:// (a remote browser service)
	WSPath string      // the browser endpoint, "/devtools/browser/<guid>", with its query if any
	Query  string      // a query the endpoint needs on every request (e.g. token=...)
	Header http.Header // headers the endpoint needs on every request (e.g. Authorization)
	NoHTTP bool        // a bare ws:// endpoint without /json: the proxy answers /json itself
	// Product, with NoHTTP, answers /json/version without a connection of its
	// own: a service may start a browser for every WebSocket.
	Product string
	Filter  Filter // not nil: clients see only what the filter allows (Tier 2)

	tlsConfig *tls.Config // tests: trust a test server's certificate
}

// Filter narrows what clients see of a backend, at the message level.
type Filter interface {
	// Visible lists the targets a client may see and attach to.
	Visible(ctx context.Context) ([]string, error)
	// Bridge returns how to relay a new WebSocket client: page is the
	// target of a page-level client, "" for a browser-level one.
	Bridge(ctx context.Context, page string) (cdpbridge.Options, error)
	// Refusal says why a /json request that changes the browser is refused
	// ("" allows it).
	Refusal(path string) string
}

// Resolver yields the current backend, launching a browser first when none
// runs. It blocks until the backend is ready or ctx ends.
type Resolver interface {
	Backend(ctx context.Context) (Backend, error)
}

// ResolverFunc adapts a function to Resolver.
type ResolverFunc func(ctx context.Context) (Backend, error)

// Backend implements Resolver.
func (f ResolverFunc) Backend(ctx context.Context) (Backend, error) { return f(ctx) }

// Config configures a Proxy. Resolver is required.
type Config struct {
	Port     int          // 0 picks a free port
	Resolver Resolver     // the backend, resolved per connection
	Logger   *slog.Logger // nil: slog.Default()
}

// Limits of the proxy's HTTP side.
const (
	// idleTimeout closes a keep-alive connection that sends no request.
	idleTimeout = 2 * time.Minute
	// bodyTimeout bounds the time a /json request body may take.
	bodyTimeout = 30 * time.Second
	// maxConns bounds the connections served at once: every CDP client holds
	// one WebSocket; hundreds is far more than any agent setup opens.
	maxConns = 1024
)

// ErrPortInUse is returned by Listen when the requested port is taken.
var ErrPortInUse = errors.New("proxy port is already in use")

// Proxy is a running CDP reverse proxy.
type Proxy struct {
	cfg  Config
	log  *slog.Logger
	ln   net.Listener
	port int
	srv  *http.Server

	control atomic.Pointer[http.Handler] // served under /coordinator/; nil: 404

	mu      sync.Mutex
	tunnels map[*tunnel]struct{}
	gen     int // counts DropConnections calls (see track)
}

// SetControl serves h under /coordinator/ (the control API). It is set
// after Listen because the control API sits above the coordinator, which
// creates the proxy.
func (p *Proxy) SetControl(h http.Handler) { p.control.Store(&h) }

// Listen binds 127.0.0.1:cfg.Port and starts serving.
func Listen(cfg Config) (*Proxy, error) {
	if cfg.Resolver == nil {
		return nil, errors.New("cdpproxy: Config.Resolver is required")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.Port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("%w: 127.0.0.1:%d (choose another --proxy-port, or omit it to pick a free one)", ErrPortInUse, cfg.Port)
		}
		return nil, fmt.Errorf("listen on 127.0.0.1:%d: %w", cfg.Port, err)
	}
	p := &Proxy{
		cfg:     cfg,
		log:     log,
		ln:      ln,
		port:    ln.Addr().(*net.TCPAddr).Port,
		tunnels: make(map[*tunnel]struct{}),
	}
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	go func() {
		if err := p.srv.Serve(access.LimitListener(ln, maxConns)); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("CDP proxy stopped", "err", err)
		}
	}()
	return p, nil
}

// Port is the proxy's port, fixed for its life.
func (p *Proxy) Port() int { return p.port }

// Endpoint is the HTTP endpoint clients are given: http://127.0.0.1:PORT.
func (p *Proxy) Endpoint() string { return "http://127.0.0.1:" + strconv.Itoa(p.port) }

// WSEndpoint is a browser WebSocket endpoint that stays valid across browser
// restarts: the proxy maps it to whichever browser runs.
func (p *Proxy) WSEndpoint() string {
	return "ws://127.0.0.1:" + strconv.Itoa(p.port) + "/devtools/browser"
}

// Close stops accepting, closes every tunnel, and waits briefly for
// in-flight HTTP requests.
func (p *Proxy) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := p.srv.Shutdown(ctx)
	p.DropConnections()
	return err
}

// DropConnections closes every open WebSocket tunnel: the backend changed,
// and clients must reconnect through the same port to reach the new one.
func (p *Proxy) DropConnections() int {
	p.mu.Lock()
	p.gen++
	ts := make([]*tunnel, 0, len(p.tunnels))
	for t := range p.tunnels {
		ts = append(ts, t)
	}
	p.mu.Unlock()
	for _, t := range ts {
		t.close()
	}
	if len(ts) > 0 {
		p.log.Debug("closed client connections for a backend change", "count", len(ts))
	}
	return len(ts)
}

// Connections is the number of open WebSocket tunnels.
func (p *Proxy) Connections() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.tunnels)
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ref := (access.Checker{Origins: access.SameOrigin, Port: p.port}).Check(r); ref != nil {
		p.log.Warn("refused a CDP proxy request", "path", r.URL.Path, "remote", r.RemoteAddr, "reason", ref.Message)
		http.Error(w, ref.Message, ref.Status)
		return
	}
	switch path := r.URL.Path; {
	case strings.HasPrefix(path, "/coordinator/"):
		h := p.control.Load()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		(*h).ServeHTTP(w, r)
	case path == "/json" || strings.HasPrefix(path, "/json/"):
		p.forwardHTTP(w, r)
	case strings.HasPrefix(path, "/devtools/"):
		if isUpgrade(r) {
			p.forwardWebSocket(w, r)
		} else {
			p.forwardHTTP(w, r) // the DevTools frontend's files
		}
	default:
		http.Error(w, "browser-coordinator CDP proxy: use /json/version, /json/list or a /devtools/ WebSocket", http.StatusNotFound)
	}
}

func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket") &&
		headerHasToken(r.Header, "Connection", "upgrade")
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// backend resolves the current backend for a request, answering 502 with
// the reason when there is none (a launch that failed says why).
func (p *Proxy) backend(w http.ResponseWriter, r *http.Request) (Backend, bool) {
	b, err := p.cfg.Resolver.Backend(r.Context())
	if err != nil {
		p.log.Warn("no browser for a CDP client", "path", r.URL.Path, "err", err)
		http.Error(w, "browser-coordinator: no browser: "+err.Error(), http.StatusBadGateway)
		return Backend{}, false
	}
	return b, true
}

// proxyHost is the host:port clients reach the proxy by, as they wrote it.
func (p *Proxy) proxyHost(r *http.Request) string {
	if _, _, err := net.SplitHostPort(r.Host); err == nil {
		return r.Host
	}
	return "127.0.0.1:" + strconv.Itoa(p.port)
}

// mapPath sends the browser endpoint, under any guid or none, to the
// current browser; other paths (pages, workers) go through unchanged.
func mapPath(path string, b Backend) string {
	if path == "/devtools/browser" || strings.HasPrefix(path, "/devtools/browser/") {
		return b.WSPath
	}
	return path
}

// dial opens a connection to the backend, through TLS when it wants it.
func (b Backend) dial(ctx context.Context) (net.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if !b.TLS {
		return d.DialContext(ctx, "tcp", b.Addr)
	}
	cfg := b.tlsConfig
	if cfg == nil {
		host, _, _ := net.SplitHostPort(b.Addr)
		cfg = &tls.Config{ServerName: host}
	}
	return (&tls.Dialer{NetDialer: d, Config: cfg}).DialContext(ctx, "tcp", b.Addr)
}

// target is the path and query a request for path (which may carry the
// endpoint's own query, as WSPath does) goes to: the client's query, and
// the backend's Query unless the path already has one.
func (b Backend) target(path, clientQuery string) (string, string) {
	path, query, _ := strings.Cut(path, "?")
	if query == "" {
		query = b.Query
	}
	if clientQuery != "" {
		if query != "" {
			query += "&"
		}
		query += clientQuery
	}
	return path, query
}

// browserURL is the backend's browser WebSocket URL.
func (b Backend) browserURL() string {
	scheme := "ws://"
	if b.TLS {
		scheme = "wss://"
	}
	return scheme + b.Addr + b.WSPath
}

// dialWS opens a WebSocket to the backend's browser endpoint.
func (b Backend) dialWS(ctx context.Context) (*websocket.Conn, error) {
	d := websocket.Dialer{
		NetDialContext:   func(ctx context.Context, _, _ string) (net.Conn, error) { return b.dial(ctx) },
		HandshakeTimeout: 10 * time.Second,
		ReadBufferSize:   64 << 10,
		WriteBufferSize:  64 << 10,
	}
	if b.TLS {
		// The TLS handshake is done by b.dial; the dialer must not add one.
		d.NetDialTLSContext, d.NetDialContext = d.NetDialContext, nil
	}
	ws, resp, err := d.DialContext(ctx, b.browserURL(), b.Header.Clone())
	if err != nil && resp != nil {
		return nil, fmt.Errorf("%s answered %s", b.browserURL(), resp.Status)
	}
	return ws, err
}

// DialCDP opens a CDP client on the backend's browser endpoint.
func (b Backend) DialCDP(ctx context.Context, onEvent func(cdp.Message)) (*cdp.Conn, error) {
	ws, err := b.dialWS(ctx)
	if err != nil {
		return nil, err
	}
	return cdp.New(ws, onEvent), nil
}

// pageTarget is the target id of a page-level WebSocket path, or "".
func pageTarget(path string) string {
	id, _ := strings.CutPrefix(path, "/devtools/page/")
	if id == path {
		return ""
	}
	return id
}

// forwardWebSocket hands a WebSocket client to the backend: a byte tunnel,
// or the message-level bridge when the backend is filtered or has no page
// endpoints of its own.
func (p *Proxy) forwardWebSocket(w http.ResponseWriter, r *http.Request) {
	for attempt := 1; ; attempt++ {
		gen := p.generation() // before the backend is resolved: see track
		b, ok := p.backend(w, r)
		if !ok {
			return
		}
		relay := p.bridgeWebSocket
		if b.Filter == nil && (!b.NoHTTP || pageTarget(r.URL.Path) == "") {
			relay = p.tunnelWebSocket
		}
		err := relay(w, r, b, gen)
		if err == nil {
			return
		}
		if attempt == 3 {
			http.Error(w, "browser-coordinator: the browser kept changing while the client connected: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		// The backend changed while the client was being set up: it goes
		// to the new one, as a client that came a moment later would.
	}
}

// tunnelWebSocket hands a WebSocket client to the backend as a byte tunnel.
// Like bridgeWebSocket, it returns an error only when it answered nothing
// because the backend changed meanwhile.
func (p *Proxy) tunnelWebSocket(w http.ResponseWriter, r *http.Request, b Backend, gen int) error {
	up, err := b.dial(r.Context())
	if err != nil {
		if p.changedSince(gen, r) {
			return err
		}
		http.Error(w, "browser-coordinator: browser not reachable: "+err.Error(), http.StatusBadGateway)
		return nil
	}
	out := r.Clone(context.Background())
	out.URL.Scheme, out.URL.Host, out.URL.RawPath = "", "", ""
	out.URL.Path, out.URL.RawQuery = b.target(mapPath(r.URL.Path, b), r.URL.RawQuery)
	out.RequestURI = ""
	out.Host = b.Addr
	out.Header.Del("Origin")
	for k, vs := range b.Header {
		out.Header[k] = vs
	}
	if err := out.Write(up); err != nil {
		up.Close()
		http.Error(w, "browser-coordinator: browser not reachable: "+err.Error(), http.StatusBadGateway)
		return nil
	}

	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "browser-coordinator: connection cannot be upgraded", http.StatusInternalServerError)
		return nil
	}
	down, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return nil
	}
	t := &tunnel{down: down, up: up}
	if !p.track(t, gen) {
		t.close()
		return nil
	}
	defer p.untrack(t)
	t.pump(rw.Reader)
	return nil
}

var upgrader = websocket.Upgrader{
	ReadBufferSize:  64 << 10,
	WriteBufferSize: 64 << 10,
	CheckOrigin:     func(*http.Request) bool { return true }, // ServeHTTP has checked it
}

// bridgeWebSocket relays a client message by message (see cdpbridge). When
// setting the client up fails because the backend was dropped meanwhile, it
// answers nothing and returns why: the caller tries the current backend.
func (p *Proxy) bridgeWebSocket(w http.ResponseWriter, r *http.Request, b Backend, gen int) error {
	page := pageTarget(r.URL.Path)
	opts := cdpbridge.Options{PageTarget: page}
	if b.Filter != nil {
		var err error
		if opts, err = b.Filter.Bridge(r.Context(), page); err != nil {
			if p.changedSince(gen, r) {
				return err
			}
			http.Error(w, "browser-coordinator: "+err.Error(), http.StatusForbidden)
			return nil
		}
	}
	up, err := b.dialWS(r.Context())
	if err != nil {
		if p.changedSince(gen, r) {
			return err
		}
		http.Error(w, "browser-coordinator: browser not reachable: "+err.Error(), http.StatusBadGateway)
		return nil
	}
	client, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		up.Close()
		return nil
	}
	t := &tunnel{down: client.NetConn(), up: up.NetConn()}
	if !p.track(t, gen) {
		t.close()
		return nil
	}
	defer p.untrack(t)
	if err := cdpbridge.Serve(context.Background(), client, up, opts); err != nil && !isClosed(err) {
		p.log.Debug("bridged CDP client ended", "err", err)
	}
	return nil
}

func isClosed(err error) bool {
	return websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway) || errors.Is(err, net.ErrClosed)
}

// changedSince: the backend was dropped since gen, while r still waits.
func (p *Proxy) changedSince(gen int, r *http.Request) bool {
	return p.generation() != gen && r.Context().Err() == nil
}

func (p *Proxy) generation() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gen
}

// track records an open tunnel, unless DropConnections ran since gen was
// read: the tunnel may lead to the backend it dropped, and it never saw the
// tunnel. Then track reports false and the caller closes it.
func (p *Proxy) track(t *tunnel, gen int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gen != gen {
		return false
	}
	p.tunnels[t] = struct{}{}
	return true
}

func (p *Proxy) untrack(t *tunnel) {
	p.mu.Lock()
	delete(p.tunnels, t)
	p.mu.Unlock()
}

// tunnel is one client connection spliced to one backend connection.
type tunnel struct {
	down, up  net.Conn
	closeOnce sync.Once
}

// pump copies both ways until either side closes. buffered holds bytes the
// HTTP server read past the request; they belong to the backend.
func (t *tunnel) pump(buffered *bufio.Reader) {
	done := make(chan struct{}, 2)
	go func() {
		if n := buffered.Buffered(); n > 0 {
			b, _ := buffered.Peek(n)
			if _, err := t.up.Write(b); err != nil {
				t.close()
			}
		}
		// TCPConn to TCPConn: io.Copy uses splice(2) on Linux, no user-space copy.
		_, _ = io.Copy(t.up, t.down)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(t.down, t.up)
		done <- struct{}{}
	}()
	// WebSocket has no use for half-closed TCP: when one side goes, both go.
	<-done
	t.close()
	<-done
}

func (t *tunnel) close() {
	t.closeOnce.Do(func() {
		t.down.Close()
		t.up.Close()
	})
}
