package vscodetier

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/tidwall/gjson"
)

// framedWorkbench is the stand-in window of workbench(t) whose browser view
// (from 127.0.0.1) embeds a frame of another site (localhost, the window's)
// when asked: the page's own cross-site frame, its own iframe target.
func framedWorkbench(t *testing.T) (windowURL, frameURL string) {
	t.Helper()
	var port string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/window":
			fmt.Fprintf(w, `<title>workbench secret-file.go</title><div class="monaco-workbench"><h1>VS Code</h1>
				<iframe style="position:absolute;left:100px;top:50px;width:400px;height:300px;border:0"
				 src="http://127.0.0.1:%s/content?id=abc&vscodeBrowserReqId=1"></iframe></div>`, port)
		case "/content":
			fmt.Fprint(w, `<title>content</title><p>the view</p>`)
		case "/embedded":
			fmt.Fprint(w, `<title>embedded</title><p>a frame of the view's page</p>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	_, port, _ = strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	return "http://localhost:" + port + "/window", "http://localhost:" + port + "/embedded"
}

// viewSession attaches to the view through the coordinator's proxy, as a
// client does, and returns the client and the view's session.
func viewSession(t *testing.T, f *fixture) (*client, string) {
	t.Helper()
	c := dial(t, f.c.Proxy().WSEndpoint())
	c.must("", "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true})
	return c, c.attached(t, "")
}

// attached waits for a Target.attachedToTarget on parent ("" for the
// browser's) and returns its session.
func (c *client) attached(t *testing.T, parent string) string {
	t.Helper()
	guard := time.After(testutil.Guard)
	for {
		select {
		case ev := <-c.events:
			if ev.Method == "Target.attachedToTarget" && ev.SessionID == parent {
				return gjson.GetBytes(ev.Params, "sessionId").String()
			}
		case <-guard:
			t.Fatalf("no Target.attachedToTarget on session %q", parent)
		}
	}
}

// TestAFrameInTheViewStaysTheViews: a cross-site frame of the page in the
// view (an embedded video, a sign-in frame, one a hostile page adds) is the
// view's, never a view of its own: the view stays the one shown, and its
// clients' sessions go on.
func TestAFrameInTheViewStaysTheViews(t *testing.T) {
	window, frame := framedWorkbench(t)
	vscode := vscodeWindow(t, window)
	waitForIframe(t, vscode)
	v, err := NewView(context.Background(), &cdp.Endpoint{Addr: vscode.Addr(), WSPath: vscode.WSPath}, nil, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Shutdown)
	view := waitCurrent(t, v)
	if !strings.Contains(view.URL, "/content") {
		t.Fatalf("the view is %s; want the Simple Browser's content", view.URL)
	}

	// A client on the view auto-attaches to its frames, as Playwright and
	// Puppeteer do (the frame becomes a target of its own then); the
	// view's page adds the frame, as the page's script would.
	direct := dial(t, "ws://"+vscode.Addr()+vscode.WSPath)
	session := gjson.GetBytes(direct.must("", "Target.attachToTarget", map[string]any{"targetId": view.ID, "flatten": true}), "sessionId").String()
	direct.must(session, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true})
	direct.must(session, "Runtime.evaluate", map[string]any{"expression": fmt.Sprintf(
		"document.body.append(Object.assign(document.createElement('iframe'), {src: %q}))", frame)})

	// Once the View knows the frame at its address, the view is still the
	// content, not the frame.
	guard := time.After(testutil.Guard)
	for {
		changed := v.follow.Changed()
		if seen := v.follow.Targets(func(t cdp.Target) bool { return t.URL == frame }); len(seen) > 0 {
			if seen[0].ParentID != view.ID {
				t.Fatalf("the frame's parent is %q; want the view %q", seen[0].ParentID, view.ID)
			}
			break
		}
		select {
		case <-changed:
		case <-guard:
			t.Fatalf("the View never saw the view's frame %s: it knows %+v", frame, v.follow.Targets(func(cdp.Target) bool { return true }))
		}
	}
	if now, ok := v.Current(); !ok || now.ID != view.ID {
		t.Fatalf("after the view's page embedded a frame, the view is %+v (ok=%v); want %s", now, ok, view.URL)
	}
}

// TestAFrameSessionIsToldOfTheViewOnly: on a frame's session below the
// view, Target.getTargetInfo about VS Code's window (whose title names the
// file being edited) is refused; about the frame itself, it is answered.
func TestAFrameSessionIsToldOfTheViewOnly(t *testing.T) {
	window, frame := framedWorkbench(t)
	vscode := vscodeWindow(t, window)
	waitForIframe(t, vscode)
	f := startFixture(t)
	writeAtomic(t, f.portFile, strconv.Itoa(vscode.Port))
	f.waitBackend(t, state.BackendTier2)

	var windowID string
	direct := dial(t, "ws://"+vscode.Addr()+vscode.WSPath)
	for _, ti := range gjson.GetBytes(direct.must("", "Target.getTargets", nil), "targetInfos").Array() {
		if ti.Get("type").String() == "page" && ti.Get("url").String() == window {
			windowID = ti.Get("targetId").String()
		}
	}
	if windowID == "" {
		t.Fatal("VS Code's window is not among the browser's targets")
	}

	c, session := viewSession(t, f)
	c.must(session, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true})
	c.must(session, "Runtime.evaluate", map[string]any{"expression": fmt.Sprintf(
		"document.body.append(Object.assign(document.createElement('iframe'), {src: %q}))", frame)})
	child := c.attached(t, session)
	self := gjson.GetBytes(c.must(child, "Target.getTargetInfo", nil), "targetInfo.targetId").String()
	if self == "" {
		t.Fatal("the frame's session cannot read its own target")
	}
	if res := c.must(child, "Target.getTargetInfo", map[string]any{"targetId": self}); gjson.GetBytes(res, "targetInfo.targetId").String() != self {
		t.Fatalf("the frame asked about itself by id: %s", res)
	}
	res, err := c.call(child, "Target.getTargetInfo", map[string]any{"targetId": windowID})
	if err == nil || strings.Contains(string(res), "secret-file") {
		t.Fatalf("a frame's session was told about VS Code's window: %s (err %v)", res, err)
	}
	// The view's session is still the view's.
	if title := gjson.GetBytes(c.must(session, "Runtime.evaluate", map[string]any{"expression": "document.title", "returnByValue": true}), "result.value").String(); title != "content" {
		t.Fatalf("the view's session now evaluates in %q", title)
	}
}
