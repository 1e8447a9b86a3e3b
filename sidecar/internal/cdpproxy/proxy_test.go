package cdpproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
	"github.com/gorilla/websocket"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// browser launches a real headless Chromium on its pipe, as the coordinator does.
func browser(t *testing.T) *launcher.Browser { return testbrowser.OnPipe(t) }

func backendOf(b *launcher.Browser) Backend { return Backend{Conn: b.Conn, Version: b.Version} }

// portBackend is a browser on a debugging port, as attach mode fronts it.
func portBackend(b *testbrowser.Browser) Backend {
	return Backend{Endpoint: &cdp.Endpoint{Addr: b.Addr(), WSPath: b.WSPath}}
}

const secret = "s3cr3t"

// testWords name each remedy: the proxy says its remedies in the words it
// is given (the command line gives flags: scripts/e2e/lifecycle.test.mjs).
var testWords = remedy.Words{remedy.ProxyAuthOff: "[proxy-auth-off]"}

func listen(t *testing.T, r Resolver) *Proxy {
	t.Helper()
	p, err := Listen(Config{Resolver: r, Secret: secret, Words: testWords})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func static(b Backend) Resolver {
	return ResolverFunc(func(context.Context) (Backend, error) { return b, nil })
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %s %s", url, resp.Status, body)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func evaluate(t *testing.T, c *cdp.Conn, session, expr string) string {
	t.Helper()
	res, err := c.Call(context.Background(), session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res, &v); err != nil {
		t.Fatal(err)
	}
	return string(v.Result.Value)
}

// The launcher's Browser.getVersion answers /json/version: a client's first
// request after a lazy launch waits for no second one.
func TestVersionOfALaunchedBrowserIsKnown(t *testing.T) {
	b := browser(t)
	v := b.Version
	b.Conn.Close() // nothing could be asked now
	p := listen(t, static(Backend{Conn: b.Conn, Version: v}))
	var version map[string]string
	getJSON(t, p.Endpoint()+"/json/version", &version)
	if version["Browser"] != v.Product || version["User-Agent"] != v.UserAgent || version["V8-Version"] != v.JSVersion || v.UserAgent == "" {
		t.Fatalf("/json/version = %v, the launch said %+v", version, v)
	}
}

func TestJSONEndpointsAreRewrittenToTheProxy(t *testing.T) {
	port := testbrowser.Launch(t, "")
	for _, tc := range []struct {
		name    string
		backend Backend
		leak    string // a port that must not show
	}{
		{"a browser on its pipe", backendOf(browser(t)), ""},
		{"a browser on a port", portBackend(port), ":" + strconv.Itoa(port.Port)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := listen(t, static(tc.backend))
			prefix := fmt.Sprintf("ws://127.0.0.1:%d/%s/devtools/", p.Port(), secret)
			var version map[string]string
			getJSON(t, p.Endpoint()+"/json/version", &version)
			if !strings.HasPrefix(version["webSocketDebuggerUrl"], prefix+"browser") || !strings.Contains(version["Browser"], "Chrome") || !strings.Contains(version["User-Agent"], "Mozilla/") {
				t.Fatalf("/json/version = %v", version)
			}
			// Playwright asks with a trailing slash. A client that says
			// localhost still gets the address the proxy listens on: where
			// localhost is ::1 first, another user could hold [::1]:PORT.
			getJSON(t, fmt.Sprintf("http://localhost:%d/%s/json/version/", p.Port(), secret), &version)
			if !strings.HasPrefix(version["webSocketDebuggerUrl"], prefix) {
				t.Fatalf("webSocketDebuggerUrl for a localhost client = %q", version["webSocketDebuggerUrl"])
			}

			var list []map[string]string
			getJSON(t, p.Endpoint()+"/json/list", &list)
			if len(list) == 0 {
				t.Fatal("no targets")
			}
			for _, target := range list {
				if !strings.HasPrefix(target["webSocketDebuggerUrl"], prefix+"page/") || !strings.Contains(target["devtoolsFrontendUrl"], fmt.Sprintf("127.0.0.1:%d/%s/devtools/page/", p.Port(), secret)) {
					t.Errorf("not through the proxy: %v", target)
				}
				for _, f := range []string{"webSocketDebuggerUrl", "devtoolsFrontendUrl"} {
					if tc.leak != "" && strings.Contains(target[f], tc.leak) {
						t.Errorf("%s = %q leaks the browser's port", f, target[f])
					}
				}
			}

			// /json/new needs PUT; the proxy keeps the method.
			req, _ := http.NewRequest(http.MethodPut, p.Endpoint()+"/json/new?about:blank", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var created map[string]string
			json.NewDecoder(resp.Body).Decode(&created)
			resp.Body.Close()
			if !strings.HasPrefix(created["webSocketDebuggerUrl"], prefix+"page/") {
				t.Fatalf("/json/new answer: %v", created)
			}
			c, err := cdp.Dial(context.Background(), created["webSocketDebuggerUrl"], nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if got := evaluate(t, c, "", "location.href"); got != `"about:blank"` {
				t.Fatalf("the new page: %s", got)
			}
			resp, err = http.Get(p.Endpoint() + "/json/close/" + created["id"])
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("/json/close: %s", resp.Status)
			}
		})
	}
}

func TestWebSocketsThroughTheProxy(t *testing.T) {
	port := testbrowser.Launch(t, "")
	for _, tc := range []struct {
		name    string
		backend Backend
	}{
		{"a browser on its pipe", backendOf(browser(t))},
		{"a browser on a port", portBackend(port)},
	} {
		t.Run(tc.name, func(t *testing.T) { webSocketsThrough(t, listen(t, static(tc.backend))) })
	}
}

func webSocketsThrough(t *testing.T, p *Proxy) {
	ctx := context.Background()
	// A browser endpoint with a guid from an earlier browser, or none, reaches the current one.
	for _, path := range []string{"/devtools/browser/00000000-old0-guid-0000-000000000000", "/devtools/browser"} {
		c, err := cdp.Dial(ctx, fmt.Sprintf("ws://127.0.0.1:%d/%s%s", p.Port(), secret, path), nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, err := c.Call(ctx, "", "Browser.getVersion", nil); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		c.Close()
	}

	var list []map[string]string
	getJSON(t, p.Endpoint()+"/json/list", &list)
	var page string
	for _, target := range list {
		if target["type"] == "page" {
			page = target["webSocketDebuggerUrl"]
		}
	}
	c, err := cdp.Dial(ctx, page, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := evaluate(t, c, "", "6*7"); got != "42" {
		t.Fatalf("evaluate through the proxy = %s", got)
	}
}

func TestLargeFrame(t *testing.T) {
	b := browser(t)
	p := listen(t, static(backendOf(b)))
	ctx := context.Background()
	c, err := cdp.Dial(ctx, p.WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ TargetID string }
	json.Unmarshal(res, &created)
	res, err = c.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true})
	if err != nil {
		t.Fatal(err)
	}
	var att struct{ SessionID string }
	json.Unmarshal(res, &att)
	// 48 MiB in one answer frame, a very large screenshot (sized so that
	// -race on a busy machine takes seconds, not minutes).
	const size = 48 << 20
	got := evaluate(t, c, att.SessionID, fmt.Sprintf("'x'.repeat(%d)", size))
	if len(got) != size+2 {
		t.Fatalf("answer has %d bytes, want %d", len(got), size+2)
	}
}

func TestManyConcurrentConnections(t *testing.T) {
	b := browser(t)
	p := listen(t, static(backendOf(b)))
	ctx := context.Background()
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := cdp.Dial(ctx, p.WSEndpoint(), nil)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for j := range 20 {
				res, err := c.Call(ctx, "", "Browser.getVersion", nil)
				if err != nil || !strings.Contains(string(res), "protocolVersion") {
					errs <- fmt.Errorf("conn %d call %d: %v %s", i, j, err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestDropConnections(t *testing.T) {
	b := browser(t)
	p := listen(t, static(backendOf(b)))
	ctx := context.Background()
	c, err := cdp.Dial(ctx, p.WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, "", "Browser.getVersion", nil); err != nil {
		t.Fatal(err)
	}
	if p.Connections() != 1 {
		t.Fatalf("Connections = %d", p.Connections())
	}
	if n := p.DropConnections(); n != 1 {
		t.Fatalf("DropConnections closed %d", n)
	}
	select {
	case <-c.Done():
	case <-time.After(testutil.Guard):
		t.Fatal("client connection survived DropConnections")
	}
	// The same port serves the next connection.
	c2, err := cdp.Dial(ctx, p.WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := c2.Call(ctx, "", "Browser.getVersion", nil); err != nil {
		t.Fatal(err)
	}
}

func TestDropConnectionsWhileAClientConnects(t *testing.T) {
	// A client whose backend was resolved before DropConnections must not
	// stay on it: it is set up again on the backend that is current now.
	old, next := browser(t), browser(t)
	if _, err := next.Conn.Call(context.Background(), "", "Target.createTarget", map[string]any{"url": "about:blank#new-backend"}); err != nil {
		t.Fatal(err)
	}
	resolving, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	p := listen(t, ResolverFunc(func(context.Context) (Backend, error) {
		if calls.Add(1) == 1 {
			close(resolving)
			<-release
			return backendOf(old), nil
		}
		return backendOf(next), nil
	}))
	ctx := context.Background()
	type result struct {
		targets string
		err     error
	}
	dialed := make(chan result, 1)
	go func() {
		c, err := cdp.Dial(ctx, p.WSEndpoint(), nil)
		if err != nil {
			dialed <- result{err: err}
			return
		}
		defer c.Close()
		res, err := c.Call(ctx, "", "Target.getTargets", nil)
		dialed <- result{string(res), err}
	}()
	<-resolving
	p.DropConnections()
	close(release)
	r := <-dialed
	if r.err != nil || !strings.Contains(r.targets, "#new-backend") {
		t.Fatalf("the client is not on the current backend: %s %v", r.targets, r.err)
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("the backend was resolved %d times, want 2 (once more after the drop)", n)
	}
}

// gate is an Isolation whose Join waits for the test, then fails as one
// whose browser went away does.
type gate struct{ entered, release chan struct{} }

func (g gate) Join(context.Context, string) (*cdp.AgentContexts, func(), error) {
	close(g.entered)
	<-g.release
	return nil, func() {}, fmt.Errorf("the browser is gone: %w", cdp.ErrClosed)
}
func (g gate) Peek(context.Context, string) (*cdp.AgentContexts, error) { return nil, nil }

func TestAClientConnectingDuringASwitchReachesTheNewBackend(t *testing.T) {
	// A relayed backend (an isolated one reached over TCP) is being replaced
	// while a client is set up on it: the client lands on the new backend,
	// as one that came a moment later, instead of getting the old one's
	// error.
	next := portBackend(testbrowser.Launch(t, "data:text/html,<title>new-backend</title>"))
	old := portBackend(testbrowser.Launch(t, ""))
	g := gate{entered: make(chan struct{}), release: make(chan struct{})}
	old.Isolation = g
	var current atomic.Pointer[Backend]
	current.Store(&old)
	p := listen(t, ResolverFunc(func(context.Context) (Backend, error) { return *current.Load(), nil }))

	ctx := context.Background()
	dialed := make(chan *cdp.Conn, 1)
	go func() {
		c, err := cdp.Dial(ctx, p.WSEndpoint(), nil)
		if err != nil {
			t.Error(err)
		}
		dialed <- c
	}()
	<-g.entered
	current.Store(&next)
	p.DropConnections()
	close(g.release)
	c := <-dialed
	if c == nil {
		return
	}
	defer c.Close()
	res, err := c.Call(ctx, "", "Target.getTargets", nil)
	if err != nil || !strings.Contains(string(res), "new-backend") {
		t.Fatalf("the client does not see the new backend: %s %v", res, err)
	}
}

// rawRequest sends a request with exactly the given head, so that Host and
// Origin can be anything.
func rawRequest(t *testing.T, port int, head string) (int, string) {
	t.Helper()
	code, body, _ := rawExchange(t, port, head, false)
	return code, body
}

// rawExchange sends head on a connection of its own and reads the answer;
// with waitClose, also whether the server then closes the connection.
func rawExchange(t *testing.T, port int, head string, waitClose bool) (code int, body string, closed bool) {
	t.Helper()
	conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	if waitClose {
		_ = conn.SetReadDeadline(time.Now().Add(testutil.Guard))
		_, err = conn.Read(make([]byte, 1))
		closed = errors.Is(err, io.EOF)
	}
	return resp.StatusCode, string(data), closed
}

func TestRefusals(t *testing.T) {
	var resolved atomic.Int32
	p := listen(t, ResolverFunc(func(context.Context) (Backend, error) {
		resolved.Add(1)
		return Backend{}, errors.New("must not be reached")
	}))
	upgrade := "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	for _, tc := range []struct {
		name, head string
		status     int
		want       string
	}{
		{"rebinding Host", "GET /" + secret + "/json/version HTTP/1.1\r\nHost: attacker.example:%d\r\n\r\n", 403, "refused Host"},
		{"LAN address Host", "GET /" + secret + "/json/version HTTP/1.1\r\nHost: 192.168.1.5:%d\r\n\r\n", 403, "refused Host"},
		{"foreign Origin on a WebSocket", "GET /" + secret + "/devtools/browser HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: https://attacker.example\r\n" + upgrade + "\r\n", 403, "refused Origin"},
		{"localhost page Origin", "GET /" + secret + "/devtools/browser HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: http://localhost:3000\r\n" + upgrade + "\r\n", 403, "refused Origin"},
		{"DevTools' Origin", "GET /" + secret + "/devtools/browser HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: devtools://devtools\r\n" + upgrade + "\r\n", 403, "refused Origin"},
		{"foreign Origin on /json", "GET /" + secret + "/json/list HTTP/1.1\r\nHost: localhost:%d\r\nOrigin: https://attacker.example\r\n\r\n", 403, "refused Origin"},
		{"no secret", "GET /json/version HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", 401, "[proxy-auth-off]"},
		{"no secret on a WebSocket", "GET /devtools/browser HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" + upgrade + "\r\n", 401, "needs the coordinator's secret"},
		{"a wrong secret", "GET /s3cr3u/json/version HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", 401, "needs the coordinator's secret"},
		{"the secret's prefix", "GET /s3cr/json/version HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", 401, "needs the coordinator's secret"},
		{"a wrong token in the query", "GET /json/version?token=s3cr3u HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", 401, `"webSocketDebuggerUrl":"ws://127.0.0.1:`},
		{"the secret under another name", "GET /json/version?secret=s3cr3t HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", 401, "as ?token=SECRET for a client that replaces the path (chromedp, go-rod: give them {ws_endpoint})"},
		{"the path chromedp makes of {cdp_endpoint}", "GET /json/version HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", 401, `{"error":"browser-coordinator: this CDP endpoint needs the coordinator's secret`},
		{"a token in the query of a foreign Origin", "GET /json/version?token=s3cr3t HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: http://localhost:3000\r\n\r\n", 403, "refused Origin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, closed := rawExchange(t, p.Port(), fmt.Sprintf(tc.head, p.Port()), true)
			if code != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("got %d %q; want %d with %q", code, body, tc.status, tc.want)
			}
			if !closed {
				t.Fatal("the connection stayed open after a refusal (a refused client must not keep a connection slot)")
			}
		})
	}
	if n := resolved.Load(); n != 0 {
		t.Fatalf("refused requests reached the backend resolver %d times (a refusal must not launch a browser)", n)
	}
	// The proxy's own origin is allowed (the DevTools frontend it serves).
	code, _ := rawRequest(t, p.Port(), fmt.Sprintf("GET /%s/json/version HTTP/1.1\r\nHost: [::1]:%d\r\nOrigin: http://127.0.0.1:%d\r\n\r\n", secret, p.Port(), p.Port()))
	if code != http.StatusBadGateway {
		t.Fatalf("own origin: got %d, want the resolver's 502", code)
	}
	// So is the secret in the query (the resolver answers).
	if code, _ := rawRequest(t, p.Port(), "GET /json/version?token="+secret+" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); code != http.StatusBadGateway {
		t.Fatalf("the secret in the query: got %d, want the resolver's 502", code)
	}
}

// Clients that replace an endpoint's path keep its query: the secret there
// works for /json and WebSockets alike, and the URLs handed out carry it in
// the path, which those clients keep whole. The token never reaches the
// backend: a browser on a port (a remote service, in attach mode) is sent
// the request without it.
func TestTheSecretInTheQuery(t *testing.T) {
	b := testbrowser.Launch(t, "")
	var seen []string // what the browser was asked for, in order
	var mu sync.Mutex
	spy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { spy.Close() })
	go func() { // a browser's port that notes each request's target
		for {
			down, err := spy.Accept()
			if err != nil {
				return
			}
			go func() {
				defer down.Close()
				br := bufio.NewReader(down)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				mu.Lock()
				seen = append(seen, req.URL.RequestURI())
				mu.Unlock()
				up, err := net.Dial("tcp", b.Addr())
				if err != nil {
					return
				}
				defer up.Close()
				req.Host = b.Addr()
				_ = req.Write(up)
				go func() { _, _ = io.Copy(up, br) }()
				_, _ = io.Copy(down, up)
			}()
		}
	}()
	var logs bytes.Buffer // every level: the token must be in none of it
	var logMu sync.Mutex
	p, err := Listen(Config{Secret: secret, Resolver: static(Backend{Endpoint: &cdp.Endpoint{Addr: spy.Addr().String(), WSPath: b.WSPath}}),
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	base := fmt.Sprintf("http://127.0.0.1:%d", p.Port())
	// A refused one is logged: with its path, never its query.
	if code, _ := rawRequest(t, p.Port(), "GET /json/version?token="+secret+"x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); code != http.StatusUnauthorized {
		t.Fatalf("a wrong token: %d", code)
	}

	var version map[string]string
	getJSON(t, base+"/json/version?token="+secret, &version)
	ws := version["webSocketDebuggerUrl"]
	if !strings.HasPrefix(ws, fmt.Sprintf("ws://127.0.0.1:%d/%s/devtools/browser/", p.Port(), secret)) {
		t.Fatalf("/json/version hands out %q", ws)
	}
	for _, u := range []string{ws, fmt.Sprintf("ws://127.0.0.1:%d/devtools/browser/any?token=%s", p.Port(), secret)} {
		c, err := cdp.Dial(context.Background(), u, nil)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if _, err := cdp.GetVersion(context.Background(), c); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		c.Close()
	}
	logMu.Lock()
	if strings.Contains(logs.String(), secret) || !strings.Contains(logs.String(), "without the coordinator's secret") {
		t.Errorf("the log shows the token, or not the refusal:\n%s", logs.String())
	}
	logMu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(strings.Join(seen, " "), secret) || len(seen) != 3 || seen[0] != "/json/version" || !strings.HasPrefix(seen[2], b.WSPath) {
		t.Fatalf("the browser was asked for %q; want /json/version and its WebSocket twice, never the secret", seen)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// The WebSocket handshake takes what Chromium takes: any Sec-WebSocket-Key
// (go-rod sends "nil"), answered with the accept of the key as sent; none
// at all is refused, as Chromium refuses it.
func TestAnyWebSocketKeyIsAccepted(t *testing.T) {
	p := listen(t, static(backendOf(browser(t))))
	for _, key := range []string{"nil", "dGhlIHNhbXBsZSBub25jZQ==", "not base64!"} {
		conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(p.Port()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET /%s%s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n\r\n", secret, BrowserPath, key)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != acceptKey(key) {
			t.Fatalf("key %q: %s, accept %q", key, resp.Status, resp.Header.Get("Sec-WebSocket-Accept"))
		}
		// The connection works: a masked text frame with a command, and its answer.
		msg := []byte(`{"id":1,"method":"Browser.getVersion"}`)
		frame := append([]byte{0x81, 0x80 | byte(len(msg)), 0, 0, 0, 0}, msg...)
		if _, err := conn.Write(frame); err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 2)
		if _, err := io.ReadFull(br, head); err != nil || head[0] != 0x81 {
			t.Fatalf("key %q: no answer frame: %v %x", key, err, head)
		}
		conn.Close()
	}
	code, body := rawRequest(t, p.Port(), fmt.Sprintf("GET /%s%s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n", secret, BrowserPath))
	if code != http.StatusBadRequest || !strings.Contains(body, "needs a Sec-WebSocket-Key") {
		t.Fatalf("no key: %d %q", code, body)
	}
}

func TestNoBrowserIsA502WithTheReason(t *testing.T) {
	p := listen(t, ResolverFunc(func(context.Context) (Backend, error) {
		return Backend{}, errors.New("no browser found: install Chrome, Edge, Chromium or Brave, or pass --browser-path")
	}))
	resp, err := http.Get(p.Endpoint() + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "install Chrome") {
		t.Fatalf("got %s %q", resp.Status, body)
	}
	_, resp, err = websocket.DefaultDialer.Dial(p.WSEndpoint(), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("WebSocket without a browser: %v %v", err, resp)
	}
	// A backend whose browser is gone.
	dead := listen(t, static(Backend{Endpoint: &cdp.Endpoint{Addr: "127.0.0.1:1", WSPath: "/devtools/browser/x"}}))
	resp, err = http.Get(dead.Endpoint() + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("dead backend: %s", resp.Status)
	}
}

func TestPortInUse(t *testing.T) {
	p := listen(t, static(Backend{}))
	_, err := Listen(Config{Port: p.Port(), Resolver: static(Backend{})})
	if !errors.Is(err, ErrPortInUse) || !remedy.Has(err, remedy.ProxyPort) {
		t.Fatalf("err = %v", err)
	}
}

func TestUnknownPath(t *testing.T) {
	p := listen(t, static(Backend{}))
	resp, err := http.Get(p.Endpoint() + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("got %s", resp.Status)
	}
}

func TestRewriteURLs(t *testing.T) {
	to := "localhost:41000/sec"
	for _, tc := range []struct{ name, in, want string }{
		{"version",
			`{"Browser":"Chrome/156","webSocketDebuggerUrl":"ws://127.0.0.1:9222/devtools/browser/g"}`,
			`{"Browser":"Chrome/156","webSocketDebuggerUrl":"ws://localhost:41000/sec/devtools/browser/g"}`},
		{"list, page URL untouched",
			`[{"url":"http://127.0.0.1:9222/x","devtoolsFrontendUrl":"/devtools/inspector.html?ws=127.0.0.1:9222/devtools/page/A","webSocketDebuggerUrl":"ws://127.0.0.1:9222/devtools/page/A"},{"type":"worker"}]`,
			`[{"url":"http://127.0.0.1:9222/x","devtoolsFrontendUrl":"/sec/devtools/inspector.html?ws=localhost:41000/sec/devtools/page/A","webSocketDebuggerUrl":"ws://localhost:41000/sec/devtools/page/A"},{"type":"worker"}]`},
		{"a service that names another host, TLS and a token",
			`{"webSocketDebuggerUrl":"wss://0.0.0.0:3000/devtools/browser/g?token=secret","devtoolsFrontendUrl":"https://x/inspector.html?experiments=true&wss=0.0.0.0:3000/devtools/page/P"}`,
			`{"webSocketDebuggerUrl":"ws://localhost:41000/sec/devtools/browser/g","devtoolsFrontendUrl":"https://x/inspector.html?experiments=true&ws=localhost:41000/sec/devtools/page/P"}`},
		{"not JSON", `Using unsafe HTTP verb GET`, `Using unsafe HTTP verb GET`},
		{"empty list", `[]`, `[]`},
	} {
		if got := string(RewriteURLs([]byte(tc.in), to)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestRequestTarget(t *testing.T) {
	b := cdp.Endpoint{Query: "token=s"}
	for _, tc := range []struct{ path, client, wantPath, wantQuery string }{
		{"/json/version", "", "/json/version", "token=s"},
		{"/devtools/browser/g?token=t", "", "/devtools/browser/g", "token=t"},
		{"/devtools/page/P", "x=1", "/devtools/page/P", "token=s&x=1"},
	} {
		p, q := b.Target(tc.path, tc.client)
		if p != tc.wantPath || q != tc.wantQuery {
			t.Errorf("target(%q, %q) = %q %q", tc.path, tc.client, p, q)
		}
	}
	if p, q := (cdp.Endpoint{}).Target("/json/list", ""); p != "/json/list" || q != "" {
		t.Errorf("no query: %q %q", p, q)
	}
}

func TestMapPath(t *testing.T) {
	b := &cdp.Endpoint{WSPath: "/devtools/browser/new"}
	for in, want := range map[string]string{
		"/devtools/browser":        "/devtools/browser/new",
		"/devtools/browser/old":    "/devtools/browser/new",
		"/devtools/page/ABC":       "/devtools/page/ABC",
		"/devtools/browserish":     "/devtools/browserish",
		"/devtools/inspector.html": "/devtools/inspector.html",
	} {
		if got := mapPath(in, b); got != want {
			t.Errorf("mapPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// deadPipeConn is a connection to a browser that has just died, caught
// before its reader sees the end: the browser's side of the pipe no longer
// reads, so the first write fails (EPIPE) while nothing has said so yet.
func deadPipeConn(t *testing.T) *cdp.Conn {
	t.Helper()
	toR, toW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	toR.Close()
	c := cdp.NewConn(cdp.Pipe(fromR, toW), cdp.Options{})
	t.Cleanup(func() { c.Close(); fromW.Close() })
	return c
}

// A request that meets a browser dying under it (its write fails before its
// reader knows) is served by the next backend, as one a moment later would
// be: /json over the connection and a WebSocket client alike.
func TestARequestMeetingADeadPipeIsServedByTheNextBackend(t *testing.T) {
	live := backendOf(browser(t))
	var mu sync.Mutex
	fresh := true // the next request first meets a dead connection
	p := listen(t, ResolverFunc(func(context.Context) (Backend, error) {
		mu.Lock()
		defer mu.Unlock()
		if fresh {
			fresh = false
			return Backend{Conn: deadPipeConn(t), Version: live.Version}, nil
		}
		return live, nil
	}))
	again := func() { mu.Lock(); fresh = true; mu.Unlock() }

	var list []map[string]string
	getJSON(t, p.Endpoint()+"/json/list", &list)
	if len(list) == 0 {
		t.Fatal("/json/list from the live browser listed no page")
	}

	again()
	resp, err := http.Get(p.Endpoint() + "/json/close/" + list[0]["id"])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "CDP connection closed") {
		t.Fatalf("/json/close of a tab of the browser that died: %s %s (want a 502 that says the browser went)", resp.Status, body)
	}

	again()
	c, err := cdp.Dial(context.Background(), p.WSEndpoint(), nil)
	if err != nil {
		t.Fatalf("a WebSocket client that met the dead connection: %v", err)
	}
	defer c.Close()
	if _, err := c.Call(context.Background(), "", "Browser.getVersion", nil); err != nil {
		t.Fatal(err)
	}
}
