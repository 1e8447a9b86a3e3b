package cdpproxy

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/gorilla/websocket"
)

// serveWebSocket hands a WebSocket client to the backend: a session of its
// own on a connection the coordinator holds, a relay (through the
// Isolation's policy, or to a WebSocket-only service's page), or a byte
// tunnel. A client that meets a backend going away (the browser just died,
// the backend switched) is set up again on the next one, as a client that
// came a moment later would be.
func (p *Proxy) serveWebSocket(w http.ResponseWriter, r *http.Request, path string) {
	p.mu.Lock()
	if p.closing {
		p.mu.Unlock()
		http.Error(w, "browser-coordinator: the coordinator is shutting down", http.StatusServiceUnavailable)
		return
	}
	p.sockets.Add(1)
	p.mu.Unlock()
	defer p.sockets.Done()
	for attempt := 1; ; attempt++ {
		gen := p.generation() // before the backend is resolved: see track
		b, ok := p.backend(w, r)
		if !ok || p.refuseAgent(w, r, b) {
			return
		}
		var err error
		switch {
		case b.Conn != nil:
			err = p.serveSession(w, r, path, b, gen)
		case b.Isolation != nil || (b.Endpoint.NoHTTP && pageTarget(path) != ""):
			err = p.serveRelay(w, r, path, b, gen)
		default:
			err = p.serveTunnel(w, r, path, b, gen)
		}
		if err == nil {
			return
		}
		if attempt == attempts {
			http.Error(w, "browser-coordinator: the browser kept going away while the client connected: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		p.log.Debug("a client met a backend going away; trying the next one", "path", p.shown(r.URL.Path), "err", err)
	}
}

// pageTarget is the target id of a page-level WebSocket path, or "".
func pageTarget(path string) string {
	id, _ := strings.CutPrefix(path, "/devtools/page/")
	if id == path {
		return ""
	}
	return id
}

func isBrowserPath(path string) bool {
	return path == "/devtools/browser" || strings.HasPrefix(path, "/devtools/browser/")
}

// upgrade answers a WebSocket handshake (RFC 6455 section 4.2) as Chromium
// does: any key that is there (go-rod sends "nil"; RFC 6455 asks for 16
// random bytes, which only matter to proxies in between), the accept
// computed from the key as sent, no subprotocol, no extension. The
// connection is then the client's transport (cdp.ServerWebSocket).
func upgrade(w http.ResponseWriter, r *http.Request) (cdp.Transport, error) {
	refuse := func(status int, why string) (cdp.Transport, error) {
		if status == http.StatusUpgradeRequired {
			w.Header().Set("Sec-WebSocket-Version", "13")
		}
		http.Error(w, "browser-coordinator: "+why, status)
		return nil, errors.New(why)
	}
	switch {
	case r.Method != http.MethodGet:
		return refuse(http.StatusMethodNotAllowed, "a WebSocket handshake is a GET request")
	case !hasToken(r.Header, "Connection", "upgrade") || !hasToken(r.Header, "Upgrade", "websocket"):
		return refuse(http.StatusBadRequest, "not a WebSocket handshake (it needs Connection: Upgrade and Upgrade: websocket)")
	case r.Header.Get("Sec-Websocket-Version") != "13":
		return refuse(http.StatusUpgradeRequired, "a WebSocket handshake needs Sec-WebSocket-Version: 13")
	case r.Header.Get("Sec-Websocket-Key") == "":
		return refuse(http.StatusBadRequest, "a WebSocket handshake needs a Sec-WebSocket-Key header")
	}
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return refuse(http.StatusInternalServerError, "the connection cannot be upgraded: "+err.Error())
	}
	// What the client sent after its request (its first frames) is its.
	buffered, _ := rw.Reader.Peek(rw.Reader.Buffered())
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, err = conn.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
		acceptKey(r.Header.Get("Sec-Websocket-Key")) + "\r\n\r\n"))
	_ = conn.SetDeadline(time.Time{})
	if err != nil {
		conn.Close()
		return nil, err
	}
	return cdp.ServerWebSocket(conn, buffered), nil
}

// hasToken: a header's comma-separated list has token (any case).
func hasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// acceptKey is the Sec-WebSocket-Accept for key (RFC 6455 section 4.2.2).
func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(h[:])
}

// relayClient is an open relay, for DropConnections.
type relayClient struct{ r *cdp.Relay }

func (c relayClient) close() { c.r.Close() }

// serveSession gives the client a browser session of its own (or a page
// session for /devtools/page/<id>) on the connection the coordinator holds.
// It returns an error only when it answered nothing because the connection
// ended meanwhile.
func (p *Proxy) serveSession(w http.ResponseWriter, r *http.Request, path string, b Backend, gen int) error {
	o := cdp.PeerOptions{Mode: cdp.Browser}
	switch page := pageTarget(path); {
	case page != "":
		o = cdp.PeerOptions{Mode: cdp.Page, Target: page}
	case !isBrowserPath(path):
		http.Error(w, "browser-coordinator: "+path+" is not a CDP endpoint here: use /devtools/browser or /devtools/page/<id> from /json/list", http.StatusNotFound)
		return nil
	}
	policy, leave, err := p.isolate(r, b, o.Target, b.Conn)
	if err != nil {
		return p.refuseIsolated(w, r, err)
	}
	defer leave()
	relay := cdp.NewRelay(policy)
	peer, err := b.Conn.Open(r.Context(), relay.Options(o))
	if err != nil {
		if errors.Is(err, cdp.ErrClosed) && r.Context().Err() == nil {
			return err
		}
		status := http.StatusBadGateway
		switch {
		case o.Mode == cdp.Page:
			status = http.StatusNotFound
			err = fmt.Errorf("no target %s to attach to (see /json/list): %w", o.Target, err)
		case refused(err):
			status = http.StatusForbidden // the backend's policy (Tier 2 with no view)
		}
		http.Error(w, "browser-coordinator: "+err.Error(), status)
		return nil
	}
	return p.serveClient(w, r, relay, peer, gen, nil)
}

// serveRelay relays a client over a connection of its own to a TCP backend
// through the Isolation's policy (--isolated), or a page-level client of a
// WebSocket-only service through a page session.
func (p *Proxy) serveRelay(w http.ResponseWriter, r *http.Request, path string, b Backend, gen int) error {
	page := pageTarget(path)
	if page == "" && !isBrowserPath(path) {
		http.Error(w, "browser-coordinator: "+path+" is not a CDP endpoint here: use /devtools/browser or /devtools/page/<id> from /json/list", http.StatusNotFound)
		return nil
	}
	var policy cdp.Policy
	conn, err := b.Endpoint.Dial(r.Context(), nil)
	if err != nil {
		if p.changedSince(gen, r) {
			return err
		}
		http.Error(w, "browser-coordinator: browser not reachable: "+err.Error(), http.StatusBadGateway)
		return nil
	}
	o := cdp.PeerOptions{Mode: cdp.Root}
	if page != "" {
		o = cdp.PeerOptions{Mode: cdp.Page, Target: page}
	}
	if b.Isolation != nil {
		var leave func()
		if policy, leave, err = p.isolate(r, b, page, conn); err != nil {
			conn.Close()
			return p.refuseIsolated(w, r, err)
		}
		defer leave()
	}
	relay := cdp.NewRelay(policy)
	peer, err := conn.Open(r.Context(), relay.Options(o))
	if err != nil {
		conn.Close()
		if p.changedSince(gen, r) {
			return err
		}
		http.Error(w, "browser-coordinator: cannot reach the page: "+err.Error(), http.StatusBadGateway)
		return nil
	}
	return p.serveClient(w, r, relay, peer, gen, conn)
}

// errChanged: the backend was dropped while the client was set up.
var errChanged = errors.New("the backend changed while the client connected")

// serveClient upgrades the request and relays until either side goes.
// conn, if set, is the client's own connection, closed at the end. When the
// backend was dropped while the peer was being set up (the client may be on
// the old one), it answers nothing and says so: the caller starts over.
func (p *Proxy) serveClient(w http.ResponseWriter, r *http.Request, relay *cdp.Relay, peer *cdp.Peer, gen int, conn *cdp.Conn) error {
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	if p.changedSince(gen, r) {
		peer.Close()
		return errChanged
	}
	ws, err := upgrade(w, r)
	if err != nil {
		peer.Close()
		return nil
	}
	c := relayClient{relay}
	if !p.track(c, gen) {
		peer.Close()
		ws.Close()
		return nil
	}
	defer p.untrack(c)
	if err := relay.Serve(context.Background(), ws, peer); err != nil && !isClosed(err) {
		p.log.Debug("CDP client ended", "err", err)
	}
	return nil
}

func isClosed(err error) bool {
	return websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, cdp.ErrClosed) || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled)
}

// serveTunnel hands a WebSocket client to a TCP backend as a byte tunnel.
// Like serveSession, it returns an error only when it answered nothing
// because the backend changed meanwhile.
func (p *Proxy) serveTunnel(w http.ResponseWriter, r *http.Request, path string, b Backend, gen int) error {
	e := b.Endpoint
	up, err := e.DialTCP(r.Context())
	if err != nil {
		if p.changedSince(gen, r) {
			return err
		}
		http.Error(w, "browser-coordinator: browser not reachable: "+err.Error(), http.StatusBadGateway)
		return nil
	}
	out := r.Clone(context.Background())
	out.URL.Scheme, out.URL.Host, out.URL.RawPath = "", "", ""
	out.URL.Path, out.URL.RawQuery = e.Target(mapPath(path, e), r.URL.RawQuery)
	out.RequestURI = ""
	out.Host = e.Addr
	out.Header.Del("Origin")
	for k, vs := range e.Header {
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

// mapPath sends the browser endpoint, under any guid or none, to the
// current browser; other paths (pages, workers) go through unchanged.
func mapPath(path string, e *cdp.Endpoint) string {
	if isBrowserPath(path) {
		return e.WSPath
	}
	return path
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
