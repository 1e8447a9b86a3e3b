// Package access decides who may talk to the coordinator's HTTP surfaces:
// the CDP proxy, the control API beside it, and the MCP HTTP transport. One
// checker for all three, so their rules cannot drift apart:
//
//   - Host: a request that arrived on a loopback address must name a
//     loopback host (localhost, 127.x, [::1]). A web page whose own domain
//     resolves to 127.0.0.1 (DNS rebinding) names its domain and is refused.
//   - Origin: CDP clients and MCP clients send none. A browser page sends its
//     own; which pages may come in is the surface's rule (Origins).
//   - Bearer token: "Authorization: Bearer <token>", the scheme matched
//     without regard to case (RFC 7235), the token in constant time.
//
// A refusal says what was wrong and what to do; the caller logs it.
package access

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// Origins is which browser pages a surface serves.
type Origins int

const (
	// SameOrigin: only pages served by the surface itself (its own
	// http://127.0.0.1:PORT or http://localhost:PORT). The CDP proxy and the
	// control API: no web page may drive the browser.
	SameOrigin Origins = iota
	// LocalPages: pages of this machine (http(s)://localhost, 127.x or
	// [::1], any port), e.g. a local MCP web client. The HTTP transport.
	LocalPages
)

// Checker is one surface's rules.
type Checker struct {
	Origins Origins
	// Port is the surface's own port, for SameOrigin.
	Port int
	// Token, when set, must come as a bearer token.
	Token string
	// TokenHint ends the message of a refused token: where the token is.
	TokenHint string
}

// Refusal is a request turned away: the status to answer and why.
type Refusal struct {
	Status  int
	Message string
}

func (r *Refusal) Error() string { return r.Message }

// Refuse answers a refused request and closes its connection, so that a
// client refused never holds one of the surface's connection slots.
func Refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Connection", "close")
	http.Error(w, msg, status)
}

// Check applies the rules to r; nil lets it through.
func (c Checker) Check(r *http.Request) *Refusal {
	if ref := CheckHost(r); ref != nil {
		return ref
	}
	if origin := r.Header.Get("Origin"); origin != "" && !c.originAllowed(origin) {
		what := "web pages may not use it"
		if c.Origins == LocalPages {
			what = "only pages served from this machine (localhost, 127.0.0.1, [::1]) may use it"
		}
		return &Refusal{http.StatusForbidden, fmt.Sprintf("browser-coordinator: refused Origin %q: %s", origin, what)}
	}
	if c.Token != "" && !BearerIs(r, c.Token) {
		return &Refusal{http.StatusUnauthorized, "browser-coordinator: missing or wrong bearer token: send Authorization: Bearer <token>" + c.TokenHint}
	}
	return nil
}

// OriginAllowed reports whether a page of origin may use the surface.
func (c Checker) originAllowed(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") {
		return false
	}
	switch c.Origins {
	case LocalPages:
		return (u.Scheme == "http" || u.Scheme == "https") && IsLoopback(u.Host)
	default:
		return u.Scheme == "http" && u.Port() == strconv.Itoa(c.Port) && IsLoopback(u.Hostname())
	}
}

// CheckHost refuses a request that came in on a loopback address but names
// another host (DNS rebinding). A request on another interface (a server
// that listens on the LAN with a token) may name any host.
func CheckHost(r *http.Request) *Refusal {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if ok && !IsLoopback(local.String()) {
		return nil
	}
	if IsLoopback(r.Host) {
		return nil
	}
	return &Refusal{http.StatusForbidden, fmt.Sprintf("browser-coordinator: refused Host %q: this server answers only to localhost or a loopback IP (DNS rebinding protection); use http://127.0.0.1:PORT", r.Host)}
}

// IsLoopback reports whether hostport (a Host header or an address, with or
// without a port) names this machine: localhost or a loopback IP.
func IsLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Bearer is the token of an "Authorization: Bearer <token>" header (the
// scheme in any case), and whether there was one.
func Bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// BearerIs reports whether r carries want as its bearer token.
func BearerIs(r *http.Request, want string) bool {
	got, ok := Bearer(r)
	return ok && Equal(got, want)
}

// Equal compares two secrets in constant time.
func Equal(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// LimitListener accepts at most n connections at once; the next waits in
// the listen queue until one closes.
func LimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
