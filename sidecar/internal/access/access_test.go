package access

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func request(host, origin, auth string, local string) *http.Request {
	r := httptest.NewRequest("GET", "http://x/json/version", nil)
	r.Host = host
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	addr, _ := net.ResolveTCPAddr("tcp", local)
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(addr)))
}

func TestChecker(t *testing.T) {
	proxy := Checker{Origins: SameOrigin, Port: 9222}
	web := Checker{Origins: LocalPages, Token: "tok", TokenHint: " (in http-token)"}
	const lo = "127.0.0.1:9222"
	for _, tc := range []struct {
		name    string
		c       Checker
		r       *http.Request
		status  int
		message string
	}{
		{"a CDP client", proxy, request("127.0.0.1:9222", "", "", lo), 0, ""},
		{"localhost by name", proxy, request("localhost:9222", "", "", lo), 0, ""},
		{"[::1]", proxy, request("[::1]:9222", "", "", "[::1]:9222"), 0, ""},
		{"DNS rebinding", proxy, request("attacker.example:9222", "", "", lo), 403, "DNS rebinding"},
		{"a LAN name on a loopback connection", proxy, request("192.168.1.5:9222", "", "", lo), 403, "DNS rebinding"},
		{"the proxy's own page", proxy, request(lo, "http://127.0.0.1:9222", "", lo), 0, ""},
		{"another local port", proxy, request(lo, "http://localhost:3000", "", lo), 403, "web pages may not use it"},
		{"DevTools on another machine's origin", proxy, request(lo, "devtools://devtools", "", lo), 403, "refused Origin"},
		{"a web page", proxy, request(lo, "https://attacker.example", "", lo), 403, "refused Origin"},
		{"https on our port", proxy, request(lo, "https://127.0.0.1:9222", "", lo), 403, "refused Origin"},
		{"null", proxy, request(lo, "null", "", lo), 403, "refused Origin"},
		{"a token", web, request(lo, "", "Bearer tok", lo), 0, ""},
		{"the scheme in lower case (RFC 7235)", web, request(lo, "", "bearer tok", lo), 0, ""},
		{"the scheme in upper case", web, request(lo, "", "BEARER tok", lo), 0, ""},
		{"no token", web, request(lo, "", "", lo), 401, "(in http-token)"},
		{"a wrong token", web, request(lo, "", "Bearer tok2", lo), 401, "bearer token"},
		{"a prefix of the token", web, request(lo, "", "Bearer to", lo), 401, "bearer token"},
		{"Basic", web, request(lo, "", "Basic dG9r", lo), 401, "bearer token"},
		{"a local page", web, request(lo, "http://localhost:5173", "Bearer tok", lo), 0, ""},
		{"a local https page", web, request(lo, "https://127.0.0.1:8443", "Bearer tok", lo), 0, ""},
		{"a foreign page with the token", web, request(lo, "https://evil.example", "Bearer tok", lo), 403, "only pages served from this machine"},
		{"any Host on a LAN address (a server that listens there)", web, request("box.lan:8931", "", "Bearer tok", "192.168.1.5:8931"), 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := tc.c.Check(tc.r)
			switch {
			case tc.status == 0 && ref != nil:
				t.Fatalf("refused: %v", ref)
			case tc.status != 0 && (ref == nil || ref.Status != tc.status || !contains(ref.Message, tc.message)):
				t.Fatalf("got %+v; want %d %q", ref, tc.status, tc.message)
			}
		})
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestLimitListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := LimitListener(ln, 1)
	defer l.Close()
	accepted := make(chan net.Conn, 2)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	a, _ := net.Dial("tcp", ln.Addr().String())
	defer a.Close()
	first := <-accepted
	b, _ := net.Dial("tcp", ln.Addr().String())
	defer b.Close()
	select {
	case <-accepted:
		t.Fatal("a second connection was accepted past the limit")
	default:
	}
	first.Close()
	if c := <-accepted; c == nil {
		t.Fatal("the waiting connection was not accepted once one closed")
	}
}
