package cdp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"
)

// isoClient is one raw CDP client of a browser on its pipe, served through
// an Isolation, as the proxy serves an isolated client; it keeps every
// message it was sent.
type isoClient struct {
	t      *testing.T
	ws     *websocket.Conn
	policy *cdp.Isolation
	ended  chan struct{}

	mu      sync.Mutex
	seen    []string
	answers map[int64]chan string
	next    int64
}

func isolated(t *testing.T, conn *cdp.Conn, ctxs *cdp.AgentContexts) *isoClient {
	t.Helper()
	c := &isoClient{t: t, policy: cdp.NewIsolation(ctxs), answers: map[int64]chan string{}, ended: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(c.ended)
		relay := cdp.NewRelay(c.policy)
		peer, err := conn.Open(r.Context(), relay.Options(cdp.PeerOptions{Mode: cdp.Browser}))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		ws, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			peer.Close()
			return
		}
		_ = relay.Serve(context.Background(), cdp.WebSocket(ws), peer)
		c.policy.Close()
	}))
	t.Cleanup(srv.Close)
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.ws = ws
	t.Cleanup(func() { ws.Close(); <-c.ended })
	go func() {
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			c.mu.Lock()
			c.seen = append(c.seen, string(data))
			if id := gjson.GetBytes(data, "id"); id.Exists() {
				if ch := c.answers[id.Int()]; ch != nil {
					ch <- string(data)
				}
			}
			c.mu.Unlock()
		}
	}()
	return c
}

// send sends a command (session "" for the browser's) and returns its answer.
func (c *isoClient) send(session, method string, params any) gjson.Result {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan string, 1)
	c.answers[id] = ch
	c.mu.Unlock()
	m := map[string]any{"id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	if session != "" {
		m["sessionId"] = session
	}
	data, _ := json.Marshal(m)
	if err := c.ws.WriteMessage(websocket.TextMessage, data); err != nil {
		c.t.Fatal(err)
	}
	select {
	case a := <-ch:
		return gjson.Parse(a)
	case <-time.After(testutil.Guard):
		c.t.Fatalf("%s: no answer", method)
		return gjson.Result{}
	}
}

func (c *isoClient) ok(session, method string, params any) gjson.Result {
	c.t.Helper()
	a := c.send(session, method, params)
	if a.Get("error").Exists() {
		c.t.Fatalf("%s: %s", method, a.Get("error").Raw)
	}
	return a.Get("result")
}

// saw reports whether any message the client got contains s.
func (c *isoClient) saw(s string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.seen {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

func newContext(t *testing.T, conn *cdp.Conn) *cdp.AgentContexts {
	t.Helper()
	res, err := conn.Call(testutil.Context(t), "", "Target.createBrowserContext", nil)
	if err != nil {
		t.Fatal(err)
	}
	return cdp.NewAgentContexts(gjson.GetBytes(res, "browserContextId").String())
}

func contextOf(t *testing.T, conn *cdp.Conn, target string) string {
	t.Helper()
	res, err := conn.Call(testutil.Context(t), "", "Target.getTargetInfo", map[string]string{"targetId": target})
	if err != nil {
		t.Fatal(err)
	}
	return gjson.GetBytes(res, "targetInfo.browserContextId").String()
}

// Two clients, as Playwright and Puppeteer connect (discovery and
// auto-attach with waitForDebuggerOnStart at the browser level): what one
// opens lands in its own context, runs although the other is auto-attached
// to every target, and the other never hears of it.
func TestIsolatedClientsSeeOnlyTheirOwnContexts(t *testing.T) {
	b := testbrowser.OnPipe(t)
	ctxA, ctxB := newContext(t, b.Conn), newContext(t, b.Conn)
	a, bb := isolated(t, b.Conn, ctxA), isolated(t, b.Conn, ctxB)
	for _, c := range []*isoClient{a, bb} {
		c.ok("", "Target.setDiscoverTargets", map[string]any{"discover": true})
		c.ok("", "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true})
	}
	if got := a.ok("", "Target.getTargets", nil).Get("targetInfos").Array(); len(got) != 0 {
		t.Fatalf("a new agent sees targets: %v (the launched browser's first page is in the default context)", got)
	}

	target := a.ok("", "Target.createTarget", map[string]any{"url": "about:blank"}).Get("targetId").String()
	if got := contextOf(t, b.Conn, target); got != ctxA.Base() {
		t.Fatalf("a target opened without a context is in %s, want the agent's own %s", got, ctxA.Base())
	}
	// a is auto-attached to it; it runs though b was attached too (and let go).
	var session string
	testutil.Poll(t, "a's auto-attach to its target", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, m := range a.seen {
			if gjson.Get(m, "method").String() == "Target.attachedToTarget" && gjson.Get(m, "params.targetInfo.targetId").String() == target {
				session = gjson.Get(m, "params.sessionId").String()
			}
		}
		return session != ""
	})
	a.ok(session, "Runtime.runIfWaitingForDebugger", nil)
	if v := a.ok(session, "Runtime.evaluate", map[string]any{"expression": "6*7", "returnByValue": true}).Get("result.value").Int(); v != 42 {
		t.Fatalf("evaluate = %d", v)
	}

	if ids := bb.ok("", "Target.getTargets", nil).Get("targetInfos.#.targetId").Array(); len(ids) != 0 {
		t.Fatalf("b lists %v", ids)
	}
	if bb.saw(target) {
		t.Fatalf("b heard of a's target %s", target)
	}
	for _, method := range []string{"Target.attachToTarget", "Target.activateTarget", "Target.closeTarget", "Target.getTargetInfo"} {
		a := bb.send("", method, map[string]any{"targetId": target, "flatten": true})
		if !strings.Contains(a.Get("error.message").String(), "No target with given id") {
			t.Fatalf("b %s a's target: %s", method, a.Raw)
		}
	}
	if got := contextOf(t, b.Conn, target); got == "" {
		t.Fatal("b closed a's target")
	}
	if a := bb.send("", "Target.createTarget", map[string]any{"url": "about:blank", "browserContextId": ctxA.Base()}); !a.Get("error").Exists() {
		t.Fatalf("b opened a target in a's context: %s", a.Raw)
	}
}

// Cookies: what names no context is the agent's own; another agent's
// context is refused.
func TestIsolatedCookiesAndContexts(t *testing.T) {
	b := testbrowser.OnPipe(t)
	ctxA, ctxB := newContext(t, b.Conn), newContext(t, b.Conn)
	a, bb := isolated(t, b.Conn, ctxA), isolated(t, b.Conn, ctxB)
	a.ok("", "Storage.setCookies", map[string]any{"cookies": []map[string]any{{"name": "who", "value": "a", "domain": "127.0.0.1", "path": "/", "httpOnly": true}}})
	cookies := func(ctx string) string {
		res, err := b.Conn.Call(testutil.Context(t), "", "Storage.getCookies", map[string]string{"browserContextId": ctx})
		if err != nil {
			t.Fatal(err)
		}
		return string(res)
	}
	if !strings.Contains(cookies(ctxA.Base()), `"who"`) || strings.Contains(cookies(ctxB.Base()), `"who"`) {
		t.Fatalf("a's cookie: in a %s, in b %s", cookies(ctxA.Base()), cookies(ctxB.Base()))
	}
	if got := bb.ok("", "Storage.getCookies", nil).Raw; strings.Contains(got, `"who"`) {
		t.Fatalf("b reads a's cookie: %s", got)
	}
	if res, err := b.Conn.Call(testutil.Context(t), "", "Storage.getCookies", nil); err != nil || strings.Contains(string(res), `"who"`) {
		t.Fatalf("the default context has a's cookie: %s %v", res, err)
	}
	if a := bb.send("", "Storage.getCookies", map[string]any{"browserContextId": ctxA.Base()}); !a.Get("error").Exists() {
		t.Fatalf("b read a's context: %s", a.Raw)
	}

	// A context a client creates is the agent's: listed for it (its own
	// stays its default, unlisted), not for the other; another client of
	// the same agent sees it too.
	made := a.ok("", "Target.createBrowserContext", nil).Get("browserContextId").String()
	if got := a.ok("", "Target.getBrowserContexts", nil).Get("browserContextIds").Raw; got != `["`+made+`"]` {
		t.Fatalf("a's contexts: %s", got)
	}
	if got := bb.ok("", "Target.getBrowserContexts", nil).Get("browserContextIds").Raw; got != `[]` {
		t.Fatalf("b's contexts: %s", got)
	}
	a2 := isolated(t, b.Conn, ctxA)
	in := a2.ok("", "Target.createTarget", map[string]any{"url": "about:blank", "browserContextId": made}).Get("targetId").String()
	if ids := a.ok("", "Target.getTargets", nil).Get("targetInfos.#.targetId").Raw; !strings.Contains(ids, in) {
		t.Fatalf("a does not see the target its agent opened in its context: %s", ids)
	}
	if a := bb.send("", "Target.disposeBrowserContext", map[string]any{"browserContextId": made}); !a.Get("error").Exists() {
		t.Fatalf("b disposed a's context: %s", a.Raw)
	}
	if a := a.send("", "Target.disposeBrowserContext", map[string]any{"browserContextId": ctxA.Base()}); !strings.Contains(a.Get("error.message").String(), "disposed when the agent leaves") {
		t.Fatalf("a disposed its own context: %s", a.Raw)
	}
	a.ok("", "Target.disposeBrowserContext", map[string]any{"browserContextId": made})
	if ctxA.Has(made) {
		t.Fatal("a disposed context is still the agent's")
	}
}

// Browser.close from an isolated client ends that client, not the browser.
func TestIsolatedBrowserCloseEndsTheClientOnly(t *testing.T) {
	b := testbrowser.OnPipe(t)
	a := isolated(t, b.Conn, newContext(t, b.Conn))
	a.ok("", "Browser.close", nil)
	<-a.ended
	if _, err := b.Conn.Call(testutil.Context(t), "", "Browser.getVersion", nil); err != nil {
		t.Fatalf("the browser went: %v", err)
	}
}
