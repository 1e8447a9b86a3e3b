package cdpproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/endpoint"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"
)

// agentsOf is an isolated coordinator's agents, as the coordinator keeps
// them: each secret an agent with a context of its own in the browser on
// conn; the coordinator's own endpoint a new agent per connection.
type agentsOf struct {
	conn *cdp.Conn

	mu     sync.Mutex
	named  map[string]*cdp.AgentContexts
	joined []string // "" for a connection of the coordinator's endpoint
	left   []string // contexts disposed as connections left
}

func (g *agentsOf) IsAgent(secret string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.named[secret]
	return ok
}

func (g *agentsOf) newContext(ctx context.Context) (*cdp.AgentContexts, error) {
	res, err := g.conn.Call(ctx, "", "Target.createBrowserContext", nil)
	if err != nil {
		return nil, err
	}
	return cdp.NewAgentContexts(gjson.GetBytes(res, "browserContextId").String()), nil
}

func (g *agentsOf) Join(ctx context.Context, agent string) (*cdp.AgentContexts, func(), error) {
	g.mu.Lock()
	g.joined = append(g.joined, agent)
	named := g.named[agent]
	g.mu.Unlock()
	if agent != "" {
		return named, func() {}, nil
	}
	ctxs, err := g.newContext(ctx)
	if err != nil {
		return nil, nil, err
	}
	return ctxs, func() {
		_, _ = g.conn.Call(context.Background(), "", "Target.disposeBrowserContext", map[string]string{"browserContextId": ctxs.Base()})
		g.mu.Lock()
		g.left = append(g.left, ctxs.Base())
		g.mu.Unlock()
	}, nil
}

func (g *agentsOf) Peek(_ context.Context, agent string) (*cdp.AgentContexts, error) {
	if agent == "" {
		return nil, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.named[agent], nil
}

func isolatedProxy(t *testing.T, agents ...string) (*Proxy, *agentsOf, *cdp.Conn) {
	t.Helper()
	b := browser(t)
	g := &agentsOf{conn: b.Conn, named: map[string]*cdp.AgentContexts{}}
	for _, a := range agents {
		ctxs, err := g.newContext(testutil.Context(t))
		if err != nil {
			t.Fatal(err)
		}
		g.named[a] = ctxs
	}
	backend := backendOf(b)
	backend.Isolation = g
	p, err := Listen(Config{Resolver: static(backend), Secret: secret, Agents: g, Words: testWords})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, g, b.Conn
}

func get(t *testing.T, method, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestAnAgentsEndpointIsItsOwn(t *testing.T) {
	p, g, conn := isolatedProxy(t, "agentA000000000000000000000000000", "agentB000000000000000000000000000")
	a := endpoint.Proxy{Port: p.Port(), Secret: "agentA000000000000000000000000000"}
	b := endpoint.Proxy{Port: p.Port(), Secret: "agentB000000000000000000000000000"}

	// Its secret lets it in, and what the proxy hands it names it again.
	var version map[string]string
	getJSON(t, a.HTTP()+"/json/version", &version)
	if version["webSocketDebuggerUrl"] != a.WS() {
		t.Fatalf("an agent's /json/version leads to %s, want its own %s", version["webSocketDebuggerUrl"], a.WS())
	}
	getJSON(t, fmt.Sprintf("http://127.0.0.1:%d/json/version?token=%s", p.Port(), b.Secret), &version)
	if version["webSocketDebuggerUrl"] != b.WS() {
		t.Fatalf("with the agent's secret in the query: %s", version["webSocketDebuggerUrl"])
	}
	if code, _ := get(t, http.MethodGet, endpoint.Proxy{Port: p.Port(), Secret: "agentC000000000000000000000000000"}.HTTP()+"/json/version"); code != http.StatusUnauthorized {
		t.Fatalf("an unknown agent's secret: %d", code)
	}

	// /json/new lands in the agent's context; /json/list shows each its own.
	var created map[string]string
	if code, body := get(t, http.MethodPut, a.HTTP()+"/json/new?about:blank"); code != 200 || json.Unmarshal([]byte(body), &created) != nil {
		t.Fatalf("/json/new: %d %s", code, body)
	}
	if !strings.HasPrefix(created["webSocketDebuggerUrl"], "ws://"+a.Authority()+"/devtools/page/") {
		t.Fatalf("/json/new's page URL does not name the agent: %s", created["webSocketDebuggerUrl"])
	}
	info, err := conn.Call(testutil.Context(t), "", "Target.getTargetInfo", map[string]string{"targetId": created["id"]})
	if err != nil || gjson.GetBytes(info, "targetInfo.browserContextId").String() != g.named[a.Secret].Base() {
		t.Fatalf("the new page is not in the agent's context: %s %v", info, err)
	}
	ids := func(e endpoint.Proxy) string {
		var list []map[string]string
		getJSON(t, e.HTTP()+"/json/list", &list)
		var out []string
		for _, x := range list {
			if x["type"] == "page" {
				out = append(out, x["id"])
			}
		}
		return strings.Join(out, ",")
	}
	if got := ids(a); got != created["id"] {
		t.Fatalf("a lists %q, want %q", got, created["id"])
	}
	if got := ids(b); got != "" {
		t.Fatalf("b lists %q", got)
	}
	if got := ids(p.Endpoints()); got != "" {
		t.Fatalf("the coordinator's endpoint lists %q: a request has no context of its own", got)
	}
	if code, body := get(t, http.MethodPut, p.Endpoint()+"/json/new?about:blank"); code != http.StatusConflict || !strings.Contains(body, "Target.createTarget") {
		t.Fatalf("/json/new on the coordinator's endpoint: %d %s", code, body)
	}
	for _, path := range []string{"/json/activate/", "/json/close/"} {
		if code, _ := get(t, http.MethodGet, b.HTTP()+path+created["id"]); code != http.StatusNotFound {
			t.Fatalf("b %s a's page: %d", path, code)
		}
	}

	// A page WebSocket of the agent's page is its own; another's is not.
	if _, resp, err := websocket.DefaultDialer.Dial("ws://"+b.Authority()+"/devtools/page/"+created["id"], nil); err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("b reached a's page: %v", err)
	}
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+a.Authority()+"/devtools/page/"+created["id"], nil)
	if err != nil {
		t.Fatalf("a's own page: %v", err)
	}
	ws.Close()
}

// Every connection to the coordinator's own endpoint is an agent of its
// own: its context goes when it closes.
func TestAConnectionOfTheCoordinatorsEndpointIsAnAgent(t *testing.T) {
	p, g, conn := isolatedProxy(t)
	one, _, err := websocket.DefaultDialer.Dial(p.WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	send := func(ws *websocket.Conn, msg string) gjson.Result {
		t.Helper()
		if err := ws.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			if r := gjson.ParseBytes(data); r.Get("id").Exists() {
				return r
			}
		}
	}
	target := send(one, `{"id":1,"method":"Target.createTarget","params":{"url":"about:blank"}}`).Get("result.targetId").String()
	two, _, err := websocket.DefaultDialer.Dial(p.WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	if got := send(two, `{"id":1,"method":"Target.getTargets"}`).Get(`result.targetInfos.#(type=="page")#.targetId`).Raw; got != "[]" {
		t.Fatalf("a second connection sees %s", got)
	}
	one.Close()
	testutil.Poll(t, "the first connection's context to be disposed", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.left) == 1
	})
	if _, err := conn.Call(testutil.Context(t), "", "Target.getTargetInfo", map[string]string{"targetId": target}); err == nil {
		t.Fatal("the first connection's page outlived it")
	}
}

// A backend that cannot isolate serves no agent's endpoint: it would show
// the whole browser.
func TestAnAgentsEndpointIsRefusedWhereTheBackendCannotIsolate(t *testing.T) {
	b := browser(t)
	agents := &agentsOf{named: map[string]*cdp.AgentContexts{"agentA000000000000000000000000000": cdp.NewAgentContexts("x")}}
	p, err := Listen(Config{Resolver: static(backendOf(b)), Secret: secret, Agents: agents, Words: testWords})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	a := endpoint.Proxy{Port: p.Port(), Secret: "agentA000000000000000000000000000"}
	if code, body := get(t, http.MethodGet, a.HTTP()+"/json/list"); code != http.StatusServiceUnavailable || !strings.Contains(body, "cannot give agents browser contexts") {
		t.Fatalf("/json/list: %d %s", code, body)
	}
	if _, resp, err := websocket.DefaultDialer.Dial(a.WS(), nil); err == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("WebSocket: %v", err)
	}
}
