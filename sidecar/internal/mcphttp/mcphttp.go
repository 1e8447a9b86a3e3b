// Package mcphttp serves an MCP server over HTTP (`--transport http`):
// streamable HTTP at /mcp and the legacy SSE transport at /sse (messages
// posted to /message), for any number of concurrent clients, each with a
// session of its own, all sharing one coordinator.
//
// The server drives a browser, so every request is checked before it
// reaches MCP (package access, shared with the CDP proxy and the control
// API): a loopback Host, no web page unless its origin was allowed (never
// without a token: a page on any local port could otherwise drive the
// browser), and the bearer token (always required, unless the embedder
// said --insecure-no-token). Each refusal changes nothing.
//
// Resources are bounded, each by a constant below that says why: request
// bodies, the time a body may take, idle keep-alive connections, open
// connections, open sessions and how long an unused session lives.
package mcphttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/access"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/rpccheck"
	"github.com/mark3labs/mcp-go/server"
)

// Limits. Each is a constant so that the README can state it.
const (
	// MaxBodyBytes bounds a request body. An MCP request is a few kilobytes;
	// a tool call with a large argument stays far below 4 MiB. Checked
	// against Content-Length before anything is read.
	MaxBodyBytes = 4 << 20
	// MaxSessions bounds the open sessions (about 25 KB each): no real
	// deployment has hundreds of clients on one coordinator.
	MaxSessions = 256
	// SessionIdleTTL closes a streamable HTTP session no request used for
	// this long: a client that vanished without DELETE. It starts a new
	// session when it comes back (404 tells it to).
	SessionIdleTTL = time.Hour
	// BodyTimeout is how long a request body may take to arrive: a slow
	// sender must not hold a connection and a buffer forever.
	BodyTimeout = 30 * time.Second
	// IdleTimeout closes a keep-alive connection that sends no request.
	IdleTimeout = 2 * time.Minute
	// MaxConns bounds the connections served at once (each open SSE or GET
	// stream holds one); more wait in the listen queue.
	MaxConns = 512
)

// Paths served.
const (
	PathStreamable = "/mcp"     // streamable HTTP
	PathSSE        = "/sse"     // legacy SSE: the event stream
	PathMessage    = "/message" // legacy SSE: where a client posts its messages (?sessionId=…)
)

// Config configures a Server.
type Config struct {
	// Token is required as "Authorization: Bearer <token>" on every
	// request. Empty only with Insecure.
	Token string
	// Insecure serves without a token (--insecure-no-token: an embedder on
	// a single-user machine).
	Insecure bool
	// TokenHint says where the token is, for the 401 answer.
	TokenHint string
	// AllowOrigins are the web pages that may use the server (CORS), as
	// access.ParseOrigin writes them; none by default, and none at all
	// with Insecure: a page could then drive the browser without a token.
	AllowOrigins []string
	// OriginHint says how to let a page in, for the 403 answer.
	OriginHint string
	Logger     *slog.Logger
	// ShutdownTimeout is how long requests still running at shutdown get
	// to finish; 0 means 5 s.
	ShutdownTimeout time.Duration

	// PerSession, if set, gives every session an MCP server of its own
	// (an agent of an isolated coordinator: its own tabs, page tools and
	// child MCP), made when the session opens; end is called once the
	// session has closed. The server New is given is then not used.
	PerSession func() (srv *server.MCPServer, end func())
}

// Server is the HTTP transport in front of one MCP server, or of one per
// session (Config.PerSession).
type Server struct {
	cfg    Config
	log    *slog.Logger
	shared *front // the one server's; nil with PerSession

	mu       sync.Mutex
	sessions map[string]session                          // open sessions of both transports, by id
	streams  map[string]map[*context.CancelFunc]struct{} // open GET streams of streamable sessions
	stopping bool                                        // Serve is shutting down
	ending   sync.WaitGroup                              // sessions' servers being ended (PerSession)
}

type session struct {
	transport string
	remote    string
	opened    time.Time
	front     *front
}

// front is the transports of one MCP server: the one every session shares,
// or one session's own.
type front struct {
	streamable *server.StreamableHTTPServer
	sse        *server.SSEServer
	sseStream  http.Handler
	sseMessage http.Handler
	end        func() // a session's own: ends what its server runs
}

// New builds the transport for srv.
func New(srv *server.MCPServer, cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 5 * time.Second
	}
	s := &Server{cfg: cfg, log: cfg.Logger, sessions: map[string]session{}, streams: map[string]map[*context.CancelFunc]struct{}{}}
	if cfg.PerSession == nil {
		s.shared = s.newFront(srv, nil)
	}
	return s
}

func (s *Server) newFront(srv *server.MCPServer, end func()) *front {
	f := &front{end: end}
	f.streamable = server.NewStreamableHTTPServer(srv,
		server.WithEndpointPath(PathStreamable),
		server.WithSessionIdManagerResolver(resolver{s}),
		server.WithStreamableHTTPLogger(s.cfg.Logger),
		server.WithSessionIdleTTL(SessionIdleTTL),
	)
	f.sse = server.NewSSEServer(srv,
		server.WithSSEEndpoint(PathSSE),
		server.WithMessageEndpoint(PathMessage),
		server.WithSessionIDGenerator(s.openSSE),
		// With a CORS config of its own the SSE server stops sending
		// "Access-Control-Allow-Origin: *"; one that matches no origin
		// leaves CORS to ours (checks), which refuses a page not let in
		// before the library sees its request.
		server.WithSSECORS(server.WithCORSAllowedOrigins("browser-coordinator:no-origin")),
	)
	f.sseStream, f.sseMessage = f.sse.SSEHandler(), f.sse.MessageHandler()
	return f
}

// frontKey carries, through the MCP library, the front a request that
// opens a session is served by, so that the session is known to be its.
type frontKey struct{}

// opening is the front for a request that opens a session: the shared
// one, or a new one of the session's own, carried in the returned request.
func (s *Server) opening(r *http.Request) (*front, *http.Request) {
	if s.shared != nil {
		return s.shared, r
	}
	srv, end := s.cfg.PerSession()
	f := s.newFront(srv, end)
	return f, r.WithContext(context.WithValue(r.Context(), frontKey{}, f))
}

// frontOf is the front session id is served by (nil: not open).
func (s *Server) frontOf(id string) *front {
	if s.shared != nil {
		return s.shared
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id].front
}

// served routes a request to its session's front: a new one for a request
// that opens a session, which is ended if it opened none.
func (s *Server) served(pick func(*front) http.Handler, id func(*http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sid := id(r); sid != "" {
			if f := s.frontOf(sid); f != nil {
				pick(f).ServeHTTP(w, r)
				return
			}
		}
		if s.shared == nil && !s.opensSession(r) {
			http.Error(w, "Bad request: this request needs the session id of an open session; start one with initialize", http.StatusBadRequest)
			return
		}
		f, r := s.opening(r)
		pick(f).ServeHTTP(w, r)
		if f != s.shared && !s.owns(f) {
			s.endFront(f) // the request opened no session (refused, or not an initialize)
		}
	})
}

// owns: an open session is served by f.
func (s *Server) owns(f *front) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		if ss.front == f {
			return true
		}
	}
	return false
}

// endFront ends a session's own front and what its server runs, in the
// background (a child MCP takes a moment to stop); Serve waits for it.
func (s *Server) endFront(f *front) {
	if f == nil || f == s.shared {
		return
	}
	s.ending.Add(1)
	go func() {
		defer s.ending.Done()
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		defer cancel()
		f.sse.CloseSessions()
		_ = f.streamable.Shutdown(ctx)
		if f.end != nil {
			f.end()
		}
	}()
}

// origins are the pages let in: none without a token.
func (s *Server) origins() []string {
	if s.cfg.Insecure {
		return nil
	}
	return s.cfg.AllowOrigins
}

// Handler is the transport with its checks, for an http.Server.
func (s *Server) Handler() http.Handler {
	streamableID := func(r *http.Request) string { return r.Header.Get(server.HeaderKeySessionID) }
	messageID := func(r *http.Request) string { return r.URL.Query().Get("sessionId") }
	streamable := s.served(func(f *front) http.Handler { return f.streamable }, streamableID)
	message := s.served(func(f *front) http.Handler { return f.sseMessage }, messageID)
	mux := http.NewServeMux()
	mux.Handle(PathStreamable, s.knownSession(s.precheck(s.trackStreams(streamable)), streamableID))
	mux.HandleFunc(PathSSE, s.serveSSE)
	mux.Handle(PathMessage, s.knownSession(s.precheck(message), messageID))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Not found: this is an MCP server; use "+PathStreamable+" (streamable HTTP) or "+PathSSE+" (SSE)", http.StatusNotFound)
	})
	return s.checks(mux)
}

// Sessions is the number of open sessions.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Serve serves on ln until ctx ends, then shuts down gracefully: every
// session is closed, requests still running get ShutdownTimeout to finish.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(access.LimitListener(access.OwnUser(ln, s.log), MaxConns)) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}

	began := time.Now()
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.log.Info("HTTP transport shutting down", "sessions", s.Sessions())
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if s.shared != nil {
		s.shared.sse.CloseSessions()
		_ = s.shared.streamable.Shutdown(sctx) // terminates its sessions; the http.Server is ours
	}
	s.mu.Lock()
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.closed(id, "server shutdown")
	}
	if err := hs.Shutdown(sctx); err != nil {
		s.log.Warn("requests still running at shutdown were cut off", "err", err)
		_ = hs.Close()
	}
	<-served
	s.ending.Wait()
	s.log.Info("HTTP transport stopped", "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// checks refuses what must not reach MCP: a foreign Host on a loopback
// connection (403), a foreign browser Origin (403), a missing or wrong
// token (401), a body announced over MaxBodyBytes (413), a new session past
// MaxSessions (503); it answers CORS preflights of the pages let in.
func (s *Server) checks(next http.Handler) http.Handler {
	checker := access.Checker{Origins: s.origins(), OriginHint: s.cfg.OriginHint, Token: s.cfg.Token, TokenHint: s.cfg.TokenHint}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			// A preflight carries no credentials: answer it for the pages
			// let in.
			checker := checker
			checker.Token = ""
			if ref := checker.Check(r); ref != nil {
				s.refuse(w, r, ref.Status, ref.Message)
				return
			}
			s.cors(w, origin)
			h := w.Header()
			h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, Accept, Last-Event-ID, "+server.HeaderKeySessionID+", Mcp-Protocol-Version")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if ref := checker.Check(r); ref != nil {
			if ref.Status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="browser-coordinator"`)
			}
			s.refuse(w, r, ref.Status, ref.Message)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" {
			s.cors(w, origin)
		}
		if r.ContentLength > MaxBodyBytes {
			s.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body too large: %d bytes; the limit is %d MiB", r.ContentLength, MaxBodyBytes>>20))
			return
		}
		if s.opensSession(r) && s.Sessions() >= MaxSessions {
			s.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("Too many open sessions (%d): end the sessions of clients you no longer use (DELETE), or wait: a session unused for %s is closed", MaxSessions, SessionIdleTTL))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) cors(w http.ResponseWriter, origin string) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", server.HeaderKeySessionID)
}

// opensSession: a request that would start a session (an initialize POST
// without a session id, or a legacy SSE stream).
func (s *Server) opensSession(r *http.Request) bool {
	switch r.URL.Path {
	case PathStreamable:
		return r.Method == http.MethodPost && r.Header.Get(server.HeaderKeySessionID) == ""
	case PathSSE:
		return r.Method == http.MethodGet
	}
	return false
}

// precheck reads a POST body (bounded in size and time; it comes after
// knownSession, so a request for an unknown session is refused unread) and
// refuses a message the MCP library would take badly, with a JSON-RPC error
// that says why. The body is handed on for the library to read again.
func (s *Server) precheck(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || s.readBody(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}

func (s *Server) readBody(w http.ResponseWriter, r *http.Request) bool {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(BodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body too large; the limit is %d MiB", MaxBodyBytes>>20))
		} else {
			s.refuse(w, r, http.StatusBadRequest, "Bad request: the body could not be read: "+err.Error())
		}
		return false
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	if p := rpccheck.Check(body); p != nil {
		s.log.Warn("refused an MCP message", "path", r.URL.Path, "remote", r.RemoteAddr, "reason", p.Message)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(p.Answer())
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return true
}

func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.log.Warn("refused an HTTP request", "status", status, "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr, "reason", msg)
	access.Refuse(w, status, msg)
}

// knownSession answers 404 for a session id that is not (or no longer)
// open, before the request reaches MCP: the client must start a new session.
func (s *Server) knownSession(next http.Handler, id func(*http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sid := id(r); sid != "" && !s.open(sid) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintln(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found: start a new session (initialize)"}}`)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) open(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.sessions[id]
	return ok
}

func (s *Server) opened(id, transport string, r *http.Request) {
	ss := session{transport: transport, opened: time.Now(), front: s.shared}
	if r != nil {
		ss.remote = r.RemoteAddr
		if f, ok := r.Context().Value(frontKey{}).(*front); ok {
			ss.front = f
		}
	}
	s.mu.Lock()
	s.sessions[id] = ss
	n := len(s.sessions)
	s.mu.Unlock()
	s.log.Info("MCP session opened", "transport", transport, "session", id, "remote", ss.remote, "sessions", n)
}

// closed ends session id: its GET streams end too.
func (s *Server) closed(id, why string) {
	s.mu.Lock()
	ss, ok := s.sessions[id]
	delete(s.sessions, id)
	for cancel := range s.streams[id] {
		(*cancel)()
	}
	s.mu.Unlock()
	if ok {
		s.logClosed(id, ss, why)
		s.endFront(ss.front)
	}
}

// trackStreams keeps track of the GET streams of streamable HTTP sessions, so
// that ending a session (DELETE, shutdown) ends its stream: mcp-go leaves
// the stream of a deleted session open until the client goes away. A GET or
// DELETE without a session id is a bad request.
func (s *Server) trackStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(server.HeaderKeySessionID)
		if r.Method == http.MethodGet || r.Method == http.MethodDelete {
			if id == "" {
				http.Error(w, "Bad request: "+r.Method+" needs the "+server.HeaderKeySessionID+" header of an open session", http.StatusBadRequest)
				return
			}
		}
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			key := &cancel
			s.mu.Lock()
			if s.streams[id] == nil {
				s.streams[id] = map[*context.CancelFunc]struct{}{}
			}
			s.streams[id][key] = struct{}{}
			s.mu.Unlock()
			defer func() {
				s.mu.Lock()
				delete(s.streams[id], key)
				if len(s.streams[id]) == 0 {
					delete(s.streams, id)
				}
				s.mu.Unlock()
			}()
			r = r.WithContext(ctx)
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) logClosed(id string, ss session, why string) {
	s.log.Info("MCP session closed", "transport", ss.transport, "session", id, "reason", why, "lasted", time.Since(ss.opened).Round(time.Millisecond))
}

// sseKey carries, through the SSE server, where its session id goes.
type sseKey struct{}

// serveSSE runs one legacy SSE stream; the session lives as long as it.
func (s *Server) serveSSE(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "Method not allowed: open the SSE stream with GET "+PathSSE+", post messages to "+PathMessage, http.StatusMethodNotAllowed)
		return
	}
	var id string
	f, r := s.opening(r)
	f.sseStream.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sseKey{}, &id)))
	if id == "" {
		s.endFront(f) // the stream opened no session
	}
	if id != "" {
		why := "client disconnected"
		if r.Context().Err() == nil {
			why = "stream closed by the server"
		}
		s.closed(id, why)
	}
}

// openSSE makes the id of a new SSE session (the SSE server's generator).
func (s *Server) openSSE(ctx context.Context, r *http.Request) (string, error) {
	id := newID()
	if p, ok := ctx.Value(sseKey{}).(*string); ok {
		*p = id
	}
	s.opened(id, "sse", r)
	return id, nil
}

// resolver hands the streamable HTTP server a session manager that knows
// the request, for the log.
type resolver struct{ s *Server }

func (v resolver) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	return sessionManager{v.s, r}
}

// sessionManager is the streamable HTTP server's session store: ids are
// random, known ids are the open sessions, an unknown one is refused.
type sessionManager struct {
	s *Server
	r *http.Request // nil outside a request (shutdown)
}

func (m sessionManager) Generate() string {
	id := newID()
	m.s.opened(id, "streamable-http", m.r)
	return id
}

func (m sessionManager) Validate(id string) (bool, error) {
	if !m.s.open(id) {
		return false, errors.New("unknown session")
	}
	return false, nil
}

func (m sessionManager) Terminate(id string) (bool, error) {
	m.s.mu.Lock()
	stopping := m.s.stopping
	m.s.mu.Unlock()
	why := "server shutdown"
	switch {
	case m.r != nil:
		why = "client ended it (DELETE)"
	case !stopping:
		why = "unused for " + SessionIdleTTL.String()
	}
	m.s.closed(id, why)
	return false, nil
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
