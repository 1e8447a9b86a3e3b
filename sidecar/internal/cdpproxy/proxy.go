// Package cdpproxy is the CDP reverse proxy: one loopback port that stays the
// same for the coordinator's whole life, in front of whichever browser is the
// backend right now.
//
// A backend is one of two kinds (see Backend):
//   - a connection the coordinator holds (a launched browser's pipe, the
//     everyday browser's extension): every client gets a browser session of
//     its own on it, or a page session for /devtools/page/<id>; the /json
//     endpoints are answered over CDP;
//   - a browser reached over TCP (attach mode, VS Code's port): every client
//     gets a connection of its own, tunnelled byte for byte (relayed through
//     a policy when the coordinator is --isolated); /json requests are
//     forwarded, their URLs rewritten to the proxy.
//
// The backend is asked for on every new connection, which is what makes the
// first connection launch the browser. When it changes, DropConnections
// closes the open clients so that they reconnect to the new one.
//
// Who may come in: the proxy binds 127.0.0.1 only, refuses a Host that is not
// loopback (DNS rebinding) and a browser Origin other than its own (package
// access), and asks for the coordinator's secret as the first segment of
// every path (http://127.0.0.1:PORT/<secret>/json/version): clients find it
// in the endpoint they are given, other local programs do not have it.
package cdpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/endpoint"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

// Backend is what the proxy serves now: Conn, or Endpoint.
type Backend struct {
	// Conn is a connection the coordinator holds; each client gets a
	// session of its own on it.
	Conn *cdp.Conn
	// Version is what the browser on Conn said it is, for /json/version
	// (asked again when it says no more than its product).
	Version cdp.Version

	// Endpoint is a browser reached over TCP; each client gets a connection
	// of its own.
	Endpoint *cdp.Endpoint

	// Isolation, if set, gives every client its agent's browser contexts
	// and nothing else (--isolated; see isolate.go).
	Isolation Isolation
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
	Port     int      // 0 picks a free port
	Resolver Resolver // the backend, resolved per connection
	// Secret, when set, must be the first segment of every path; "" serves
	// without.
	Secret string
	// Agents, if set, knows the secrets of the agents of an isolated
	// coordinator: each is let in as Secret is, and names its agent.
	Agents Agents
	// Words phrase the remedies of the proxy's own refusals (the surface's
	// words: a flag, a tool); nil leaves them unsaid.
	Words  remedy.Words
	Logger *slog.Logger // nil: slog.Default()
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
	// attempts: a client that meets a backend going away (a browser that
	// just crashed, a switch) is set up again on the next one this often.
	attempts = 3
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
	clients map[closer]struct{}
	gen     int // counts DropConnections calls (see track)
	serving sync.WaitGroup
	// WebSocket handlers: Shutdown does not wait for hijacked connections.
	sockets sync.WaitGroup
	closing bool // under mu: no new WebSocket handler starts
}

// closer is an open client connection: a tunnel or a relay.
type closer interface{ close() }

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
			return nil, remedy.With(fmt.Errorf("%w: 127.0.0.1:%d", ErrPortInUse, cfg.Port), remedy.ProxyPort)
		}
		return nil, fmt.Errorf("listen on 127.0.0.1:%d: %w", cfg.Port, err)
	}
	p := &Proxy{cfg: cfg, log: log, ln: ln, port: ln.Addr().(*net.TCPAddr).Port, clients: map[closer]struct{}{}}
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	p.serving.Add(1)
	go func() {
		defer p.serving.Done()
		if err := p.srv.Serve(access.LimitListener(access.OwnUser(ln, log), maxConns)); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("CDP proxy stopped", "err", err)
		}
	}()
	return p, nil
}

// Port is the proxy's port, fixed for its life.
func (p *Proxy) Port() int { return p.port }

// Secret is the path segment clients must send ("" without).
func (p *Proxy) Secret() string { return p.cfg.Secret }

// Endpoints are the proxy's endpoints (package endpoint writes them down).
func (p *Proxy) Endpoints() endpoint.Proxy { return endpoint.Proxy{Port: p.port, Secret: p.cfg.Secret} }

// Base is http://127.0.0.1:PORT, where the control API answers.
func (p *Proxy) Base() string { return p.Endpoints().Base() }

// Endpoint is the HTTP endpoint clients are given: http://127.0.0.1:PORT/<secret>.
func (p *Proxy) Endpoint() string { return p.Endpoints().HTTP() }

// BrowserPath is the browser WebSocket path the proxy hands out (see
// endpoint.BrowserPath).
const BrowserPath = endpoint.BrowserPath

// WSEndpoint is a browser WebSocket endpoint that stays valid across browser
// restarts: the proxy maps it to whichever browser runs.
func (p *Proxy) WSEndpoint() string { return p.Endpoints().WS() }

// Redacted is Endpoint with the secret left out, for logs and status.
func (p *Proxy) Redacted() string { return p.Endpoints().Redacted().HTTP() }

// Close stops accepting, closes every client, and waits briefly for
// in-flight HTTP requests.
func (p *Proxy) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := p.srv.Shutdown(ctx)
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	p.DropConnections()
	p.serving.Wait()
	p.sockets.Wait()
	return err
}

// DropConnections closes every open client connection: the backend changed,
// and clients must reconnect through the same port to reach the new one.
func (p *Proxy) DropConnections() int {
	p.mu.Lock()
	p.gen++
	cs := make([]closer, 0, len(p.clients))
	for c := range p.clients {
		cs = append(cs, c)
	}
	p.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
	if len(cs) > 0 {
		p.log.Debug("closed client connections for a backend change", "count", len(cs))
	}
	return len(cs)
}

// Connections is the number of open client connections.
func (p *Proxy) Connections() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.clients)
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The proxy serves no page but a browser's DevTools frontend, whose URL
	// holds the secret: it never goes out as a Referer.
	w.Header().Set("Referrer-Policy", "no-referrer")
	if ref := (access.Checker{Port: p.port}).Check(r); ref != nil {
		p.log.Warn("refused a CDP proxy request", "path", p.shown(r.URL.Path), "remote", r.RemoteAddr, "reason", ref.Message)
		access.Refuse(w, ref.Status, ref.Message)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/coordinator/") {
		// The control API has a bearer token of its own.
		h := p.control.Load()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		(*h).ServeHTTP(w, r)
		return
	}
	path, agent, ok := p.authorize(r)
	r = withAgent(r, agent)
	if !ok {
		p.log.Warn("refused a CDP proxy request without the coordinator's secret", "path", p.shown(r.URL.Path), "remote", r.RemoteAddr)
		p.refuseUnauthorized(w, r)
		return
	}
	switch {
	case path == "/json" || strings.HasPrefix(path, "/json/"):
		p.serveJSON(w, r, path)
	case strings.HasPrefix(path, "/devtools/"):
		if isUpgrade(r) {
			p.serveWebSocket(w, r, path)
		} else {
			p.serveFrontend(w, r, path)
		}
	default:
		http.Error(w, "browser-coordinator CDP proxy: use /json/version, /json/list or a /devtools/ WebSocket under the endpoint you were given", http.StatusNotFound)
	}
}

// TokenParam is the query parameter that may carry the secret instead of
// the path: chromedp and go-rod replace an http endpoint's path with
// /json/version and keep only its query (as remote browser services take
// ?token= too).
const TokenParam = "token"

// authorize finds the secret where clients keep it: the first segment of
// the path (the endpoints the proxy hands out), or the query's TokenParam.
// It returns the path without the secret, and takes the token out of the
// request's query, so that it never reaches a backend (a remote service
// would log it) or a /json/new's URL. ok is false when neither carries it.
// An agent's secret (isolate.go) lets in as the coordinator's does, and
// names the agent.
func (p *Proxy) authorize(r *http.Request) (path, agent string, ok bool) {
	byQuery, queryAgent := p.takeToken(r)
	rest := strings.TrimPrefix(r.URL.Path, "/")
	seg, after, _ := strings.Cut(rest, "/")
	switch {
	case p.isAgent(seg):
		return "/" + after, seg, true
	case queryAgent != "":
		return r.URL.Path, queryAgent, true
	case p.cfg.Secret == "":
		return r.URL.Path, "", true
	case access.Equal(seg, p.cfg.Secret):
		return "/" + after, "", true
	}
	return r.URL.Path, "", byQuery
}

// takeToken removes the secret's TokenParam from r's query and reports
// whether it was there, or which agent's secret it was. The rest of the
// query is kept as it was written (/json/new takes it whole as a URL).
func (p *Proxy) takeToken(r *http.Request) (found bool, agent string) {
	if (p.cfg.Secret == "" && p.cfg.Agents == nil) || r.URL.RawQuery == "" {
		return false, ""
	}
	var kept []string
	for _, part := range strings.Split(r.URL.RawQuery, "&") {
		if v, isToken := strings.CutPrefix(part, TokenParam+"="); isToken {
			switch {
			case p.cfg.Secret != "" && access.Equal(v, p.cfg.Secret):
				found = true
				continue
			case p.isAgent(v):
				agent = v
				continue
			}
		}
		kept = append(kept, part)
	}
	if found || agent != "" {
		r.URL.RawQuery = strings.Join(kept, "&")
	}
	return found, agent
}

// refuseUnauthorized answers a request without the secret: 401 with what to
// do, as JSON under /json (where clients decode the answer whatever its
// status) and as text elsewhere.
func (p *Proxy) refuseUnauthorized(w http.ResponseWriter, r *http.Request) {
	msg := p.cfg.Words.Phrase("browser-coordinator: this CDP endpoint needs the coordinator's secret: in the path, as in the endpoints it gives (cdpEndpoint and wsEndpoint in its state file; {cdp_endpoint} and {ws_endpoint} in browser-coordinator wrap), "+
		"or as ?"+TokenParam+"=SECRET for a client that replaces the path (chromedp, go-rod: give them {ws_endpoint})", []remedy.Remedy{{Kind: remedy.ProxyAuthOff}})
	if !isJSONPath(r.URL.Path) {
		access.Refuse(w, http.StatusUnauthorized, msg)
		return
	}
	// Clients read webSocketDebuggerUrl whatever the status: chromedp's
	// remote allocator panics without one, go-rod dials what it finds. One
	// that leads to this refusal makes them fail with it, and say where.
	body, _ := json.Marshal(map[string]string{
		"error":                msg,
		"webSocketDebuggerUrl": "ws://127.0.0.1:" + strconv.Itoa(p.port) + "/browser-coordinator-refused:this-client-lost-the-secret:give-it-ws_endpoint",
	})
	w.Header().Set("Connection", "close")
	writeJSON(w, http.StatusUnauthorized, body)
}

// isJSONPath: a /json request, under a secret or not (a wrong one too).
func isJSONPath(path string) bool {
	_, rest, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return path == "/json" || strings.HasPrefix(path, "/json/") || rest == "json" || strings.HasPrefix(rest, "json/")
}

// shown is a path for the log, the secret left out.
func (p *Proxy) shown(path string) string {
	if p.cfg.Secret != "" {
		return strings.Replace(path, p.cfg.Secret, "<secret>", 1)
	}
	return path
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
		p.log.Warn("no browser for a CDP client", "path", p.shown(r.URL.Path), "err", err)
		http.Error(w, "browser-coordinator: no browser: "+err.Error(), http.StatusBadGateway)
		return Backend{}, false
	}
	if b.Conn == nil && b.Endpoint == nil {
		p.log.Warn("no browser for a CDP client: the backend has no connection", "path", p.shown(r.URL.Path))
		http.Error(w, "browser-coordinator: no browser connection (the browser runs without one the proxy can use)", http.StatusBadGateway)
		return Backend{}, false
	}
	return b, true
}

// proxyHost is where the URLs handed to clients point: the address the
// proxy listens on, whatever name the client used ("localhost" may resolve
// to ::1 first on some systems, where another user could listen on the same
// port), and the path prefix that carries the secret.
func (p *Proxy) proxyHost(r *http.Request) string {
	return p.endpointsFor(r).Authority()
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

// track records an open client, unless DropConnections ran since gen was
// read: the client may lead to the backend it dropped, and it never saw it.
// Then track reports false and the caller closes it.
func (p *Proxy) track(c closer, gen int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gen != gen {
		return false
	}
	p.clients[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c closer) {
	p.mu.Lock()
	delete(p.clients, c)
	p.mu.Unlock()
}
