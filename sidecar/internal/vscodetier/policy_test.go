package vscodetier

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"
)

// fakeVSCode is a CDP endpoint with two pages, the view and VS Code's
// window, that answers every command and records what reaches it.
type fakeVSCode struct {
	mu       sync.Mutex
	received []string // "method targetOfItsSession"
}

func (f *fakeVSCode) serve(t *testing.T) *cdp.Endpoint {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		var wmu sync.Mutex
		write := func(s string) {
			wmu.Lock()
			defer wmu.Unlock()
			ws.WriteMessage(websocket.TextMessage, []byte(s))
		}
		onTarget := map[string]string{} // session → target
		for n := 0; ; n++ {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			cmd := gjson.ParseBytes(data)
			id, method, session := cmd.Get("id").Raw, cmd.Get("method").String(), cmd.Get("sessionId").String()
			f.mu.Lock()
			f.received = append(f.received, strings.TrimSpace(method+" "+onTarget[session]))
			f.mu.Unlock()
			result := `{}`
			switch method {
			case "Browser.getVersion":
				result = `{"protocolVersion":"1.3","product":"Chrome/156","userAgent":"UA"}`
			case "Target.setDiscoverTargets":
				write(`{"id":` + id + `,"result":{}}`)
				write(`{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"VIEW","type":"page","title":"view","url":"http://site/view"}}}`)
				write(`{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"WORKBENCH","type":"page","title":"VS Code","url":"http://site/workbench"}}}`)
				continue
			case "Target.attachToTarget":
				s := fmt.Sprintf("S%d", n)
				onTarget[s] = cmd.Get("params.targetId").String()
				result = `{"sessionId":"` + s + `"}`
			case "Runtime.evaluate":
				if strings.Contains(cmd.Get("params.expression").String(), "monaco-workbench") { // the probe
					result = fmt.Sprintf(`{"result":{"value":{"url":"http://site/","workbench":%v}}}`, onTarget[session] == "WORKBENCH")
				}
			case "Browser.getWindowBounds":
				// Browser-level events of VS Code's, on their way before the
				// answer: no client may hear them.
				write(`{"method":"Browser.downloadWillBegin","params":{"frameId":"F","guid":"g","url":"http://x/","suggestedFilename":"x"}}`)
				write(`{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"WORKBENCH2","type":"page","title":"VS Code","url":"vscode-file://w"}}}`)
				write(`{"method":"Tracing.dataCollected","params":{"value":[]}}`)
			}
			answer := `{"id":` + id + `,"result":` + result
			if session != "" {
				answer += `,"sessionId":"` + session + `"`
			}
			write(answer + `}`)
		}
	}))
	t.Cleanup(srv.Close)
	return &cdp.Endpoint{Addr: strings.TrimPrefix(srv.URL, "http://"), WSPath: "/"}
}

func (f *fakeVSCode) reached(method string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var on []string
	for _, r := range f.received {
		if m, target, _ := strings.Cut(r, " "); m == method {
			on = append(on, target)
		}
	}
	return on
}

// virtualClient is a client of the View's virtual browser, on a browser
// session of its own, as the proxy gives one.
type virtualClient struct {
	t      *testing.T
	peer   *cdp.Peer
	mu     sync.Mutex
	events []cdp.Message
	answer map[string]chan cdp.Message
	id     int
}

func connectVirtual(t *testing.T, v *View) *virtualClient {
	c := &virtualClient{t: t, answer: map[string]chan cdp.Message{}}
	peer, err := v.Browser().Open(testutil.Context(t), cdp.PeerOptions{Mode: cdp.Browser, Deliver: func(data []byte) error {
		var m cdp.Message
		json.Unmarshal(data, &m)
		c.mu.Lock()
		defer c.mu.Unlock()
		if ch := c.answer[string(m.ID)]; ch != nil {
			ch <- m
		} else if m.Method != "" {
			c.events = append(c.events, m)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(peer.Close)
	c.peer = peer
	return c
}

func (c *virtualClient) send(session, method, params string) cdp.Message {
	c.t.Helper()
	c.mu.Lock()
	c.id++
	id := fmt.Sprint(c.id)
	ch := make(chan cdp.Message, 1)
	c.answer[id] = ch
	c.mu.Unlock()
	msg := `{"id":` + id + `,"method":"` + method + `"`
	if session != "" {
		msg += `,"sessionId":"` + session + `"`
	}
	if params != "" {
		msg += `,"params":` + params
	}
	if err := c.peer.Send(context.Background(), []byte(msg+"}")); err != nil {
		c.t.Fatal(err)
	}
	select {
	case m := <-ch:
		return m
	case <-time.After(testutil.Guard):
		c.t.Fatalf("no answer to %s", method)
		return cdp.Message{}
	}
}

// The policy of the virtual browser whose only page is VS Code's view, at
// a client: what clients need to find their page passes (or is answered
// here), anything else at the browser level is refused with a reason that
// says what to do; the view's session keeps its page commands and reaches
// nothing else of VS Code; no browser-level event of VS Code's reaches a
// client, and discovery announces the view alone.
func TestBrowserLevelIsAnAllowlist(t *testing.T) {
	vscode := &fakeVSCode{}
	v, err := NewView(context.Background(), vscode.serve(t), nil, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Shutdown)
	if view := waitCurrent(t, v); view.ID != "VIEW" {
		t.Fatalf("the view is %+v", view)
	}
	c := connectVirtual(t, v)
	page := gjson.GetBytes(c.send("", "Target.attachToTarget", `{"targetId":"VIEW","flatten":true}`).Result, "sessionId").String()
	if page == "" {
		t.Fatal("no session on the view")
	}
	for _, tc := range []struct {
		session, method, params string
		want                    string // "ok", or part of the error
	}{
		{"", "Browser.getVersion", ``, "ok"},
		{"", "Target.getBrowserContexts", ``, "ok"},
		{"", "Target.setDiscoverTargets", `{"discover":true}`, "ok"},
		{"", "Target.getTargets", ``, "ok"},
		{"", "Target.attachToTarget", `{"targetId":"WORKBENCH","flatten":true}`, "No target with given id"},
		{"", "Browser.setDownloadBehavior", `{"behavior":"deny"}`, "ok"},
		{"", "Target.getDevToolsTarget", `{"targetId":"VIEW"}`, "ok"},
		{"", "Target.getDevToolsTarget", `{"targetId":"WORKBENCH"}`, "No target with given id"},
		{"", "Browser.getWindowBounds", `{"windowId":1}`, "ok"},
		{"", "Browser.setContentsSize", `{"windowId":1,"width":800}`, "may close or reshape VS Code: Browser.setContentsSize is refused"},
		{"", "Storage.getCookies", ``, "Storage.getCookies without a sessionId would reach all of VS Code, and is refused"},
		{"", "Tracing.start", ``, "would reach all of VS Code"},
		{"", "Browser.grantPermissions", `{"permissions":["clipboardReadWrite"]}`, "would reach all of VS Code"},
		{"", "Browser.resetPermissions", ``, "would reach all of VS Code"},
		{"", "Fetch.enable", ``, "would reach all of VS Code"},
		{"", "SystemInfo.getInfo", ``, "would reach all of VS Code"},
		{"", "Network.setCookie", `{"name":"a","value":"b"}`, "would reach all of VS Code"},
		{"", "Browser.close", ``, "Browser.close is refused"},
		// On the view's session, page commands pass; the Target domain
		// reaches the view's own frames and workers, nothing else.
		{page, "Storage.getCookies", ``, "ok"},
		{page, "Network.getCookies", ``, "ok"},
		{page, "Target.getTargets", ``, "Target.getTargets is refused"},
		{page, "Target.attachToTarget", `{"targetId":"WORKBENCH","flatten":true}`, "Target.attachToTarget is refused"},
		{page, "Target.createTarget", `{"url":"about:blank"}`, "opening new windows or tabs is refused"},
		{"OTHER", "Runtime.evaluate", `{"expression":"1"}`, "Session with given id not found"},
	} {
		a := c.send(tc.session, tc.method, tc.params)
		switch {
		case tc.want == "ok" && a.Error == nil:
		case tc.want != "ok" && a.Error != nil && strings.Contains(a.Error.Message, tc.want):
		default:
			t.Errorf("%s %s: %s %v, want %q", tc.session, tc.method, a.Result, a.Error, tc.want)
		}
	}

	var targets struct{ TargetInfos []cdp.Target }
	json.Unmarshal(c.send("", "Target.getTargets", "").Result, &targets)
	if len(targets.TargetInfos) != 1 || targets.TargetInfos[0].ID != "VIEW" || targets.TargetInfos[0].Type != "page" {
		t.Errorf("the client sees %+v; want the view alone, as a page", targets.TargetInfos)
	}
	c.mu.Lock()
	events := c.events
	c.mu.Unlock()
	if len(events) == 0 {
		t.Error("the client heard no event (discovery announces the view)")
	}
	for _, e := range events {
		about := gjson.GetBytes(e.Params, "targetInfo.targetId").String() + gjson.GetBytes(e.Params, "targetId").String()
		if e.SessionID == "" && (!strings.HasPrefix(e.Method, "Target.") || about != "VIEW") {
			t.Errorf("a browser-level event not about the view reached the client: %s %s", e.Method, e.Params)
		}
	}
	for _, method := range []string{"Browser.setDownloadBehavior", "Storage.getCookies", "Browser.close", "Browser.setContentsSize", "Target.createTarget"} {
		for _, on := range vscode.reached(method) {
			if on != "VIEW" {
				t.Errorf("%s reached VS Code on %q", method, on)
			}
		}
	}
	if on := vscode.reached("Network.getCookies"); len(on) != 1 || on[0] != "VIEW" {
		t.Errorf("the view's Network.getCookies reached VS Code on %q, want once, on the view", on)
	}
}
