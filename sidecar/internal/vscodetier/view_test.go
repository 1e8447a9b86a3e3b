package vscodetier

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"
)

// workbench serves a stand-in for VS Code's window on localhost: a
// .monaco-workbench holding the Simple Browser's content from 127.0.0.1,
// another site, so that it is its own iframe target.
func workbench(t *testing.T) (windowURL string) {
	t.Helper()
	var port string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/window":
			fmt.Fprintf(w, `<title>workbench</title><div class="monaco-workbench"><h1>VS Code</h1>
				<iframe style="position:absolute;left:100px;top:50px;width:400px;height:300px;border:0"
				 src="http://127.0.0.1:%s/content?id=abc&vscodeBrowserReqId=1"></iframe></div>`, port)
		case "/content":
			fmt.Fprint(w, `<title>content</title><button onclick="this.textContent='clicked'">press</button>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	_, port, _ = strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	return "http://localhost:" + port + "/window"
}

func vscodeWindow(t *testing.T, url string) *testbrowser.Browser {
	t.Helper()
	return testbrowser.Launch(t, url)
}

type client struct {
	t      *testing.T
	conn   *cdp.Conn
	events chan cdp.Message
}

func dial(t *testing.T, url string) *client {
	t.Helper()
	c := &client{t: t, events: make(chan cdp.Message, 256)}
	conn, err := cdp.Dial(context.Background(), url, func(m cdp.Message) {
		select {
		case c.events <- m:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	c.conn = conn
	t.Cleanup(func() { conn.Close() })
	return c
}

func (c *client) call(session, method string, params any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Guard)
	defer cancel()
	return c.conn.Call(ctx, session, method, params)
}

func (c *client) must(session, method string, params any) json.RawMessage {
	c.t.Helper()
	res, err := c.call(session, method, params)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return res
}

// waitForIframe waits until VS Code's window holds its iframe target, as a
// window that has been open for a while does (the stand-in's page loads it:
// nothing announces it to a client of /json/list).
func waitForIframe(t *testing.T, b *testbrowser.Browser) {
	t.Helper()
	testutil.Poll(t, "the stand-in window loads its iframe", func() bool {
		resp, err := http.Get("http://" + b.Addr() + "/json/list")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var list []struct{ Type, URL string }
		json.NewDecoder(resp.Body).Decode(&list)
		return slices.ContainsFunc(list, func(l struct{ Type, URL string }) bool {
			return l.Type == "iframe" && strings.Contains(l.URL, "/content")
		})
	})
}

// waitCurrent waits until the View knows a view, looking again whenever its
// targets change (a probe that finds a page is not VS Code's window is one).
func waitCurrent(t *testing.T, v *View) cdp.Target {
	t.Helper()
	guard := time.After(testutil.Guard)
	for {
		changed := v.follow.Changed()
		if c, ok := v.Current(); ok {
			return c
		}
		select {
		case <-changed:
		case <-guard:
			t.Fatal("the page never became the view")
		}
	}
}

func TestSimpleBrowserIframeIsTheOnlyPage(t *testing.T) {
	vscode := vscodeWindow(t, workbench(t))
	waitForIframe(t, vscode)
	f := startFixture(t)
	writeAtomic(t, f.portFile, strconv.Itoa(vscode.Port))
	f.waitBackend(t, state.BackendTier2)

	c := dial(t, f.c.Proxy().WSEndpoint())
	var targets struct {
		TargetInfos []struct{ TargetID, Type, Title, URL, ParentFrameID string }
	}
	json.Unmarshal(c.must("", "Target.getTargets", nil), &targets)
	// (An iframe target's title is its URL: frames have no window title.)
	if len(targets.TargetInfos) != 1 || targets.TargetInfos[0].Type != "page" || !strings.Contains(targets.TargetInfos[0].URL, "/content") || targets.TargetInfos[0].ParentFrameID != "" {
		t.Fatalf("targets = %+v; want only the Simple Browser's content, as a page", targets.TargetInfos)
	}
	view := targets.TargetInfos[0].TargetID

	// Auto-attach reaches the view and nothing else.
	c.must("", "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true})
	var session string
	for session == "" {
		select {
		case ev := <-c.events:
			if ev.Method == "Target.attachedToTarget" {
				var a struct {
					SessionID  string
					TargetInfo struct{ TargetID, Type string }
				}
				json.Unmarshal(ev.Params, &a)
				if a.TargetInfo.TargetID != view || a.TargetInfo.Type != "page" {
					t.Fatalf("auto-attached to %+v", a.TargetInfo)
				}
				session = a.SessionID
			}
		case <-time.After(testutil.Guard):
			t.Fatal("no attachedToTarget for the view")
		}
	}

	// The page works like a page.
	tree := c.must(session, "Page.getFrameTree", nil)
	if strings.Contains(string(tree), "parentId") {
		t.Fatalf("the view's root frame names a parent: %s", tree)
	}
	c.must(session, "Runtime.evaluate", map[string]any{"expression": "document.querySelector('button').click()"})
	if res := c.must(session, "Runtime.evaluate", map[string]any{"expression": "document.querySelector('button').textContent", "returnByValue": true}); !strings.Contains(string(res), "clicked") {
		t.Fatalf("click: %s", res)
	}
	shot := c.must(session, "Page.captureScreenshot", map[string]any{"format": "png"})
	var img struct{ Data string }
	json.Unmarshal(shot, &img)
	raw, _ := base64.StdEncoding.DecodeString(img.Data)
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width != 400 || cfg.Height != 300 {
		t.Fatalf("screenshot %dx%d (%v); want the iframe's 400x300", cfg.Width, cfg.Height, err)
	}
	clipped := c.must(session, "Page.captureScreenshot", map[string]any{"format": "png", "clip": map[string]any{"x": 0, "y": 0, "width": 100, "height": 50, "scale": 1}})
	json.Unmarshal(clipped, &img)
	raw, _ = base64.StdEncoding.DecodeString(img.Data)
	if cfg, err = png.DecodeConfig(bytes.NewReader(raw)); err != nil || cfg.Width != 100 || cfg.Height != 50 {
		t.Fatalf("clipped screenshot %dx%d (%v)", cfg.Width, cfg.Height, err)
	}
	c.must(session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 800, "height": 600, "deviceScaleFactor": 1, "mobile": false})
	if _, err := c.call(session, "Page.navigate", map[string]any{"url": "about:blank"}); err != nil {
		t.Fatalf("navigate: %v", err)
	}

	// Nothing may close or reshape VS Code, or reach its window.
	for _, tc := range []struct {
		session, method string
		params          any
		want            string
	}{
		{"", "Browser.close", nil, "Browser.close is refused"},
		{"", "Target.createTarget", map[string]any{"url": "about:blank"}, "opening new windows"},
		{"", "Target.closeTarget", map[string]any{"targetId": view}, "closing targets is refused"},
		{"", "Browser.setWindowBounds", map[string]any{"windowId": 1, "bounds": map[string]any{"width": 10}}, "is refused"},
		{"", "Target.attachToTarget", map[string]any{"targetId": "0000", "flatten": true}, "No target with given id"},
		{"", "Target.getTargetInfo", map[string]any{"targetId": "0000"}, "No target with given id"},
		{"NOT-A-SESSION", "Runtime.evaluate", map[string]any{"expression": "1"}, "Session with given id not found"},
		{session, "Page.close", nil, "closing targets is refused"},
		{session, "Network.clearBrowserCookies", nil, "is refused"},
		// Browser-level commands reach all of VS Code: only those clients
		// need to find their page pass (policy.go's browserLevel).
		{"", "Storage.getCookies", nil, "Storage.getCookies without a sessionId would reach all of VS Code"},
		{"", "Storage.setCookies", map[string]any{"cookies": []any{}}, "would reach all of VS Code"},
		{"", "Browser.grantPermissions", map[string]any{"permissions": []string{"geolocation"}}, "would reach all of VS Code"},
		{"", "Browser.setPermission", map[string]any{"permission": map[string]string{"name": "geolocation"}, "setting": "granted"}, "would reach all of VS Code"},
		{"", "Tracing.start", nil, "would reach all of VS Code"},
		{"", "Fetch.enable", nil, "would reach all of VS Code"},
		{"", "SystemInfo.getProcessInfo", nil, "would reach all of VS Code"},
		{"", "Runtime.evaluate", map[string]any{"expression": "1"}, "send it on the page's session"},
	} {
		_, err := c.call(tc.session, tc.method, tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error with %q", tc.method, err, tc.want)
		}
	}
	if vscode.Port == 0 || !strings.Contains(string(c.must("", "Browser.getVersion", nil)), "protocolVersion") {
		t.Fatal("Browser.getVersion must pass")
	}
	// What Puppeteer sends as it connects passes; discovery shows the view alone.
	c.must("", "Target.getBrowserContexts", nil)
	c.must("", "Target.setDiscoverTargets", map[string]any{"discover": true})
	for deadline := time.After(2 * time.Second); ; {
		select {
		case ev := <-c.events:
			if ev.SessionID == "" && (!strings.HasPrefix(ev.Method, "Target.") || (ev.Method == "Target.targetCreated" && gjson.GetBytes(ev.Params, "targetInfo.targetId").String() != view)) {
				t.Fatalf("a browser-level event not about the view: %s %s", ev.Method, ev.Params)
			}
			continue
		case <-deadline:
		}
		break
	}

	// /json/list shows the view alone; /json/new and /json/close are refused.
	resp, err := http.Get(f.c.Proxy().Endpoint() + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	var list []map[string]string
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list) != 1 || list[0]["id"] != view || list[0]["type"] != "page" || !strings.Contains(list[0]["webSocketDebuggerUrl"], strconv.Itoa(f.c.Proxy().Port())) {
		t.Fatalf("/json/list = %v", list)
	}
	req, _ := http.NewRequest(http.MethodPut, f.c.Proxy().Endpoint()+"/json/new?about:blank", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("/json/new: %v %v", resp, err)
	}

	// A page-level client of the view works; one of VS Code's window is refused.
	pc := dial(t, list[0]["webSocketDebuggerUrl"])
	if res := pc.must("", "Runtime.evaluate", map[string]any{"expression": "location.href", "returnByValue": true}); !strings.Contains(string(res), "about:blank") {
		t.Fatalf("page-level client: %s", res)
	}
	if _, err := cdp.Dial(context.Background(), fmt.Sprintf("ws://127.0.0.1:%d/devtools/page/%s", f.c.Proxy().Port(), "FFFF"), nil); err == nil {
		t.Fatal("a page-level client of another target was let in")
	}

	// Tabs and currentUrl follow the view.
	tabs, _ := f.c.Tabs(context.Background())
	if len(tabs) != 1 || tabs[0].ID != view {
		t.Fatalf("tabs: %+v", tabs)
	}
	if _, err := f.c.OpenTab(context.Background(), "about:blank#second", true); err != nil {
		t.Fatalf("open tab navigates the view: %v", err)
	}
	if err := f.c.CloseTab(context.Background(), view); err == nil {
		t.Fatal("closing the view was allowed")
	}
}

func TestNoViewIsAClearError(t *testing.T) {
	// A window with no browser view and no palette: nothing to show.
	vscode := vscodeWindow(t, "data:text/html,<title>w</title><div class=monaco-workbench></div>")
	f := startFixture(t)
	writeAtomic(t, f.portFile, strconv.Itoa(vscode.Port))
	f.waitBackend(t, state.BackendTier2)
	// The coordinator tries the palette before it refuses: on a busy
	// machine that outlasts a dial's own 10 s handshake; the guard bounds it.
	_, err := cdp.Dial(testutil.Context(t), f.c.Proxy().WSEndpoint(), nil)
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("connecting with no browser view: %v", err)
	}
	resp, err := http.Get(f.c.Proxy().Endpoint() + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body.String(), "Simple Browser: Show") {
		t.Fatalf("/json/list with no view: %s %s", resp.Status, body.String())
	}
	_ = os.Getenv
}

// TestUnansweringViewIsNotProbedInALoop: a page that was a view but gives
// no answer now (attaching fails) is asked again after a pause, and the
// request's context ends the wait.
func TestUnansweringViewIsNotProbedInALoop(t *testing.T) {
	var attaches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			id, method := gjson.GetBytes(data, "id").Raw, gjson.GetBytes(data, "method").String()
			answer := `{"id":` + id + `,"result":{}}`
			switch method {
			case "Target.setDiscoverTargets":
				ws.WriteMessage(websocket.TextMessage, []byte(`{"id":`+id+`,"result":{}}`))
				answer = `{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"P","type":"page","url":"http://site/"}}}`
			case "Target.attachToTarget":
				if attaches.Add(1) > 1 { // the first probe finds a page; then it stops answering
					answer = `{"id":` + id + `,"error":{"code":-32000,"message":"no answer"}}`
				} else {
					answer = `{"id":` + id + `,"result":{"sessionId":"S"}}`
				}
			case "Runtime.evaluate":
				answer = `{"id":` + id + `,"result":{"result":{"value":{"url":"http://site/","workbench":false}}}}`
			}
			ws.WriteMessage(websocket.TextMessage, []byte(answer))
		}
	}))
	t.Cleanup(srv.Close)
	v, err := NewView(context.Background(), &cdp.Endpoint{Addr: strings.TrimPrefix(srv.URL, "http://"), WSPath: "/"}, nil, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Shutdown)
	waitCurrent(t, v)

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := v.ensureView(ctx, "")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a view that does not answer was handed out")
		}
	case <-time.After(testutil.Guard):
		t.Fatal("ensureView kept probing past its context")
	}
	if n := attaches.Load(); n > 20 {
		t.Fatalf("%d attaches in a second: probed in a loop", n)
	}
}

func TestAViewWhoseConnectionClosedSaysSoAtOnce(t *testing.T) {
	// The coordinator moved to another backend (or VS Code quit) while a
	// client was being set up on this View: it must not go on probing a
	// page it can no longer reach, nor try to open a Simple Browser.
	b := testbrowser.Launch(t, "data:text/html,<title>view</title>")
	v, err := NewView(context.Background(), &cdp.Endpoint{Addr: b.Addr(), WSPath: b.WSPath}, nil, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	waitCurrent(t, v)
	v.Shutdown()
	if _, err := v.ensureView(context.Background(), ""); !errors.Is(err, errViewGone) {
		t.Fatalf("ensureView on a closed View: %v", err)
	}
}
