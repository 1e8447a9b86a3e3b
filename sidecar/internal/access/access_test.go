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
	if site, ok := strings.CutPrefix(origin, "Sec-Fetch-Site: "); ok {
		r.Header.Set("Sec-Fetch-Site", site)
	} else if origin != "" {
		r.Header.Set("Origin", origin)
	}
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	addr, _ := net.ResolveTCPAddr("tcp", local)
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(addr)))
}

func TestChecker(t *testing.T) {
	proxy := Checker{Port: 9222}
	web := Checker{Token: "tok", TokenHint: " (in http-token)", OriginHint: "; let one in with --allow-origin"}
	trusting := Checker{Token: "tok", Origins: []string{"http://localhost:5173", "https://app.example"}}
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
		{"another local port", proxy, request(lo, "http://localhost:3000", "", lo), 403, "web pages may not use this server"},
		{"another local port's page without an Origin (a no-cors GET)", proxy, request(lo, "Sec-Fetch-Site: same-site", "", lo), 403, "Sec-Fetch-Site: same-site"},
		{"a web page without an Origin", proxy, request(lo, "Sec-Fetch-Site: cross-site", "", lo), 403, "a web page made"},
		{"the proxy's own page without an Origin", proxy, request(lo, "Sec-Fetch-Site: same-origin", "", lo), 0, ""},
		{"the user's own navigation", proxy, request(lo, "Sec-Fetch-Site: none", "", lo), 0, ""},
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
		{"a local page, not let in", web, request(lo, "http://localhost:5173", "Bearer tok", lo), 403, "refused Origin \"http://localhost:5173\": web pages may not use this server; let one in with --allow-origin"},
		{"a local https page, not let in", web, request(lo, "https://127.0.0.1:8443", "Bearer tok", lo), 403, "web pages may not use this server"},
		{"a foreign page with the token", web, request(lo, "https://evil.example", "Bearer tok", lo), 403, "web pages may not use this server"},
		{"no own pages: the transport's port", web, request(lo, "http://127.0.0.1:0", "Bearer tok", lo), 403, "refused Origin"},
		{"a page let in", trusting, request(lo, "http://localhost:5173", "Bearer tok", lo), 0, ""},
		{"a page let in, remote", trusting, request(lo, "https://app.example", "Bearer tok", lo), 0, ""},
		{"a page let in still needs the token", trusting, request(lo, "http://localhost:5173", "", lo), 401, "bearer token"},
		{"the same host on another port", trusting, request(lo, "http://localhost:5174", "Bearer tok", lo), 403, "refused Origin"},
		{"the same host over https", trusting, request(lo, "https://localhost:5173", "Bearer tok", lo), 403, "refused Origin"},
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

func TestParseOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:5173":     "http://localhost:5173",
		"HTTP://LocalHost:5173/":    "http://localhost:5173",
		"https://app.example:443":   "https://app.example",
		"http://127.0.0.1:80":       "http://127.0.0.1",
		"http://[::1]:3000":         "http://[::1]:3000",
		"*":                         "every page",
		"null":                      "every page",
		"file:///tmp/x.html":        "scheme must be http or https",
		"localhost:5173":            "scheme must be http or https",
		"http://localhost:5173/app": "no path",
		"http://user@localhost":     "no user name",
		"http://localhost:x":        "invalid port",
	} {
		got, err := ParseOrigin(in)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, want) || (err != nil && !strings.Contains(got, "scheme://host[:port]")) {
			t.Errorf("ParseOrigin(%q) = %q; want %q", in, got, want)
		}
	}
}
