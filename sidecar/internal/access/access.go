// Package access decides who may talk to the coordinator's HTTP surfaces:
// the CDP proxy, the control API beside it, and the MCP HTTP transport. One
// checker for all three, so their rules cannot drift apart:
//
//   - Host: a request that arrived on a loopback address must name a
//     loopback host (localhost, 127.x, [::1]). A web page whose own domain
//     resolves to 127.0.0.1 (DNS rebinding) names its domain and is refused.
//   - Origin: CDP clients and MCP clients send none. A browser page sends its
//     own, and only the surface's own pages and the origins it was
//     configured with come in: never "every page of this machine", since
//     any local program (or a page it serves) has a loopback origin. A
//     page's request that carries no Origin (a no-cors GET, an <img>) is
//     known by its Sec-Fetch-Site header and refused the same way.
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Checker is one surface's rules.
type Checker struct {
	// Port is the surface's own port: its own pages
	// (http://127.0.0.1:PORT, http://localhost:PORT) may use it. 0 for
	// none (the HTTP transport serves no pages).
	Port int
	// Origins are the other pages that may use it, as ParseOrigin writes
	// them; none by default.
	Origins []string
	// OriginHint ends the message of a refused page: how to let one in.
	OriginHint string
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
	if origin := r.Header.Get("Origin"); origin != "" {
		if !c.originAllowed(origin) {
			return &Refusal{http.StatusForbidden, fmt.Sprintf("browser-coordinator: refused Origin %q: web pages may not use this server%s", origin, c.OriginHint)}
		}
	} else if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		// A browser says where a request came from even when it sends no
		// Origin: this one a page of another origin made.
		return &Refusal{http.StatusForbidden, fmt.Sprintf("browser-coordinator: refused a request a web page made (Sec-Fetch-Site: %s): web pages may not use this server%s", site, c.OriginHint)}
	}
	if c.Token != "" && !BearerIs(r, c.Token) {
		return &Refusal{http.StatusUnauthorized, "browser-coordinator: missing or wrong bearer token: send Authorization: Bearer <token>" + c.TokenHint}
	}
	return nil
}

// originAllowed reports whether a page of origin may use the surface: one
// of its own, or one it was configured with.
func (c Checker) originAllowed(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") {
		return false
	}
	if c.Port != 0 && u.Scheme == "http" && u.Port() == strconv.Itoa(c.Port) && IsLoopback(u.Hostname()) {
		return true
	}
	return slices.Contains(c.Origins, origin)
}

// ParseOrigin reads an origin a surface is to let in (a web client the
// user trusts): http(s)://host[:port], nothing else; it is returned as a
// browser writes it in its Origin header (lower case, no default port, no
// trailing slash), which is how Check compares it.
func ParseOrigin(s string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%q is not an origin a web page has (%s): write it as scheme://host[:port], e.g. http://localhost:5173", s, why)
	}
	u, err := url.Parse(s)
	switch {
	case s == "*" || s == "null":
		return bad("every page, or a page without an origin, cannot be let in")
	case err != nil:
		return bad(err.Error())
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("its scheme must be http or https")
	case u.Host == "" || u.Opaque != "":
		return bad("it names no host")
	case u.User != nil:
		return bad("an origin has no user name")
	case (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return bad("an origin has no path, query or fragment")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return u.Scheme + "://" + host, nil
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

// SyscallConn is the connection's own: the CDP proxy reads and writes its
// clients' WebSockets with raw calls (cdp.ServerWebSocket).
func (c *limitConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("%T has no file descriptor", c.Conn)
	}
	return sc.SyscallConn()
}
