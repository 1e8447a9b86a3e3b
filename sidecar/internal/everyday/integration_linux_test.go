package everyday

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/userbrowser"
)

var stateDir = testutil.ShortDir // short: socket paths are limited to ~104 bytes

var isPage = userbrowser.IsPage

// The coordinator sees the tabs the user shared with it and the ones it
// opens, works in them with raw CDP, and never sees or touches the rest.
func TestSharedAndAgentTabs(t *testing.T) {
	srv := userbrowser.Pages(t)
	private, shared := srv.URL+"/private", srv.URL+"/shared"
	state := stateDir(t)
	user := userbrowser.Start(t, state, private, shared)
	folder := "/work/projA"

	c := openConn(t, state, folder)
	if err := c.conn.WaitConnected(ctxT(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	st := c.conn.Status()
	if st.Browser.Version == "" || !strings.Contains(st.Browser.UserAgent, "Chrome") || st.Extension.ID != extensionIDForTest {
		t.Fatalf("status does not name the browser and the extension: %+v", st)
	}

	// Nothing shared yet: no targets at all.
	if ts := c.pageTargets(""); len(ts) != 0 {
		t.Fatalf("before sharing the coordinator sees %+v", ts)
	}
	c.must("", "Target.setDiscoverTargets", map[string]any{"discover": true})

	user.Share(shared, folder)
	created := c.waitFor(10*time.Second, "targetCreated for the shared tab", func(m cdpMsg) bool {
		return m.Method == "Target.targetCreated" && strings.Contains(string(m.Params), "/shared")
	})
	var tc struct{ TargetInfo targetInfo }
	_ = json.Unmarshal(created.Params, &tc)
	ts := c.pageTargets("")
	if len(ts) != 1 || ts[0].URL != shared || ts[0].Title != "shared page" || ts[0].TargetID != tc.TargetInfo.TargetID {
		t.Fatalf("after sharing one tab the coordinator sees %+v", ts)
	}
	// The page target id is the browser's own.
	if !user.HasTarget(func(ti targetInfo) bool { return ti.TargetID == ts[0].TargetID && ti.URL == shared }) {
		t.Fatalf("target %s is not the browser's id for the shared tab", ts[0].TargetID)
	}

	// Work in the shared tab.
	s1 := c.attach("", ts[0].TargetID)
	if got := c.evalString(s1, "document.title"); got != "shared page" {
		t.Fatalf("title in the shared tab: %q", got)
	}

	// Open a tab, navigate it, evaluate, screenshot.
	var ct struct{ TargetID string }
	_ = json.Unmarshal(c.must("", "Target.createTarget", map[string]any{"url": srv.URL + "/agent"}), &ct)
	s2 := c.attach("", ct.TargetID)
	c.must(s2, "Page.enable", nil)
	c.must(s2, "Page.navigate", map[string]any{"url": srv.URL + "/second"})
	c.waitFor(10*time.Second, "Page.frameNavigated to /second", func(m cdpMsg) bool {
		return m.Method == "Page.frameNavigated" && m.SessionID == s2 && strings.Contains(string(m.Params), "/second")
	})
	c.waitFor(10*time.Second, "Page.loadEventFired", event("Page.loadEventFired", s2))
	if got := c.evalString(s2, "location.pathname + ' ' + document.title"); got != "/second second page" {
		t.Fatalf("after navigating: %q", got)
	}
	var shot struct{ Data string }
	_ = json.Unmarshal(c.must(s2, "Page.captureScreenshot", map[string]any{"format": "png"}), &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 1000 {
		t.Fatalf("screenshot is not a PNG (%d bytes, %v)", len(png), err)
	}

	// A command over Chrome's 1 MB limit for host → extension crosses in chunks.
	big := strings.Repeat("é", 700_000) // 1.4 MB of UTF-8
	v, err := c.eval(s2, "'"+big+"'.length")
	if err != nil || string(v) != "700000" {
		t.Fatalf("a 1.4 MB command: %s, %v", v, err)
	}
	// And an answer over it comes back whole.
	v, err = c.eval(s2, "'x'.repeat(3000000)")
	if err != nil || len(v) != 3000002 {
		t.Fatalf("a 3 MB answer: %d bytes, %v", len(v), err)
	}

	// The user's private tab: not a target, cannot be attached, unchanged.
	privateID := ""
	for _, ti := range user.Targets() {
		if ti.URL == private {
			privateID = ti.TargetID
		}
	}
	for _, ti := range c.pageTargets("") {
		if ti.URL == private || ti.TargetID == privateID {
			t.Fatalf("the private tab is visible: %+v", ti)
		}
	}
	if _, err := c.call("", "Target.attachToTarget", map[string]any{"targetId": privateID, "flatten": true}); err == nil {
		t.Fatal("attached to the user's private tab")
	}
	if _, err := c.call("", "Target.closeTarget", map[string]any{"targetId": privateID}); err == nil {
		t.Fatal("closed the user's private tab")
	}

	// The shared tab is the user's: the coordinator may not close it.
	_, err = c.call("", "Target.closeTarget", map[string]any{"targetId": ts[0].TargetID})
	if err == nil || !strings.Contains(err.Error(), "not opened by the agent") {
		t.Fatalf("closing the user's shared tab: %v", err)
	}
	// Its own tab it may close.
	c.must("", "Target.closeTarget", map[string]any{"targetId": ct.TargetID})
	// As in Chrome: its session detaches, then the target is destroyed.
	c.waitFor(10*time.Second, "detachedFromTarget of the agent's tab", func(m cdpMsg) bool {
		return m.Method == "Target.detachedFromTarget" && strings.Contains(string(m.Params), s2)
	})
	c.waitFor(10*time.Second, "targetDestroyed of the agent's tab", func(m cdpMsg) bool {
		return m.Method == "Target.targetDestroyed" && strings.Contains(string(m.Params), ct.TargetID)
	})

	// Closing the Conn leaves the browser and the user's tabs.
	c.conn.Close()
	if !user.HasTarget(isPage(private)) || !user.HasTarget(isPage(shared)) {
		t.Fatalf("the user's tabs changed: %+v", user.Targets())
	}
	if got := string(user.EvalIn(isPage(private), "document.title")); got != `"private page"` {
		t.Fatalf("the private tab's title is %s", got)
	}
}

// Two coordinators (two project folders) use the one browser, each in its
// own tabs; neither sees the other's.
func TestTwoCoordinators(t *testing.T) {
	srv := userbrowser.Pages(t)
	state := stateDir(t)
	user := userbrowser.Start(t, state, srv.URL+"/mine")
	a := openConn(t, state, "/work/projA")
	b := openConn(t, state, "/work/projB")
	for _, c := range []*cdpClient{a, b} {
		if err := c.conn.WaitConnected(ctxT(t, 30*time.Second)); err != nil {
			t.Fatal(err)
		}
		c.must("", "Target.setDiscoverTargets", map[string]any{"discover": true})
	}
	var ta, tb struct{ TargetID string }
	_ = json.Unmarshal(a.must("", "Target.createTarget", map[string]any{"url": srv.URL + "/a"}), &ta)
	_ = json.Unmarshal(b.must("", "Target.createTarget", map[string]any{"url": srv.URL + "/b"}), &tb)
	sa, sb := a.attach("", ta.TargetID), b.attach("", tb.TargetID)
	// Each works in its own tab, at the same time.
	done := make(chan string, 2)
	go func() {
		v, _ := a.eval(sa, "new Promise((r) => setTimeout(() => r(location.pathname), 200))")
		done <- "a" + string(v)
	}()
	go func() {
		v, _ := b.eval(sb, "new Promise((r) => setTimeout(() => r(location.pathname), 200))")
		done <- "b" + string(v)
	}()
	got := map[string]bool{<-done: true, <-done: true}
	if !got[`a"/a"`] || !got[`b"/b"`] {
		t.Fatalf("evaluations in the two coordinators' tabs gave %v", got)
	}
	for _, tc := range []struct {
		c           *cdpClient
		own, others string
	}{{a, ta.TargetID, tb.TargetID}, {b, tb.TargetID, ta.TargetID}} {
		ts := tc.c.pageTargets("")
		if len(ts) != 1 || ts[0].TargetID != tc.own {
			t.Fatalf("a coordinator sees %+v, want only its own tab %s", ts, tc.own)
		}
		if tc.c.has(func(m cdpMsg) bool { return strings.Contains(string(m.Params), tc.others) }) {
			t.Fatal("a coordinator got an event about the other's tab")
		}
		if _, err := tc.c.call("", "Target.attachToTarget", map[string]any{"targetId": tc.others, "flatten": true}); err == nil {
			t.Fatal("a coordinator attached to the other's tab")
		}
	}
	if !user.HasTarget(isPage(srv.URL + "/mine")) {
		t.Fatal("the user's tab is gone")
	}
}

// The extension's service worker stops (the browser does that to idle
// workers; here the harness does it): the Conn says so, calls fail with a
// clear error, and when the worker is back (woken by the user opening a
// tab) the Conn reconnects by itself and work continues.
func TestServiceWorkerStopsAndComesBack(t *testing.T) {
	srv := userbrowser.Pages(t)
	state := stateDir(t)
	user := userbrowser.Start(t, state, srv.URL+"/shared")
	c := openConn(t, state, "/work/proj")
	if err := c.conn.WaitConnected(ctxT(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	user.Share(srv.URL+"/shared", "/work/proj")
	c.must("", "Target.setAutoAttach", map[string]any{"autoAttach": true, "flatten": true, "waitForDebuggerOnStart": true})
	var ct struct{ TargetID string }
	_ = json.Unmarshal(c.must("", "Target.createTarget", map[string]any{"url": srv.URL + "/agent"}), &ct)
	attached := c.waitFor(10*time.Second, "auto-attach of the agent's tab", func(m cdpMsg) bool {
		return m.Method == "Target.attachedToTarget" && strings.Contains(string(m.Params), ct.TargetID)
	})
	var at struct{ SessionID string }
	_ = json.Unmarshal(attached.Params, &at)
	if got := c.evalString(at.SessionID, "location.pathname"); got != "/agent" {
		t.Fatalf("before the stop: %q", got)
	}

	user.StopServiceWorker()
	c.waitFor(15*time.Second, "the agent tab's session detaching", func(m cdpMsg) bool {
		return m.Method == "Target.detachedFromTarget" && strings.Contains(string(m.Params), at.SessionID)
	})
	for c.conn.Status().Connected {
		<-c.conn.Changes()
	}
	if st := c.conn.Status(); !strings.Contains(st.Reason, "disconnected") {
		t.Fatalf("status while the worker is stopped: %+v", st)
	}
	_, err := c.call(at.SessionID, "Runtime.evaluate", map[string]any{"expression": "1"})
	if err == nil {
		t.Fatal("a call on a session of the stopped extension succeeded")
	}
	_, err = c.call("", "Target.createTarget", map[string]any{"url": srv.URL + "/x"})
	if err == nil || !strings.Contains(err.Error(), "not connected") {
		t.Fatalf("createTarget while disconnected: %v", err)
	}

	// The user opens a tab: the browser wakes the worker, which connects again.
	user.Must("", "Target.createTarget", map[string]any{"url": srv.URL + "/wake"})
	if err := c.conn.WaitConnected(ctxT(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	// The tabs come back (the agent's tab and the shared one survive in the
	// extension's session storage) and are auto-attached again.
	back := c.waitFor(15*time.Second, "auto-attach of the agent's tab after the restart", func(m cdpMsg) bool {
		return m.Method == "Target.attachedToTarget" && strings.Contains(string(m.Params), ct.TargetID)
	})
	_ = json.Unmarshal(back.Params, &at)
	if got := c.evalString(at.SessionID, "location.pathname"); got != "/agent" {
		t.Fatalf("after the restart: %q", got)
	}
	urls := map[string]bool{}
	for _, ti := range c.pageTargets("") {
		urls[ti.URL] = true
	}
	if !urls[srv.URL+"/agent"] || !urls[srv.URL+"/shared"] || urls[srv.URL+"/wake"] {
		t.Fatalf("after the restart the coordinator sees %v", urls)
	}
}

// Clients behind the proxy each get a browser session of their own
// (Target.attachToBrowserTarget), with discovery of their own; Playwright's
// connectOverCDP auto-attaches pages and expects a new page attached before
// createTarget answers; Puppeteer reaches pages through tab targets.
func TestBrowserSessionsAsClientsUseThem(t *testing.T) {
	srv := userbrowser.Pages(t)
	state := stateDir(t)
	userbrowser.Start(t, state)
	c := openConn(t, state, "/work/proj")
	if err := c.conn.WaitConnected(ctxT(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	var b1, b2 struct{ SessionID string }
	_ = json.Unmarshal(c.must("", "Target.attachToBrowserTarget", nil), &b1)
	_ = json.Unmarshal(c.must("", "Target.attachToBrowserTarget", nil), &b2)
	if b1.SessionID == "" || b1.SessionID == b2.SessionID {
		t.Fatalf("browser sessions %q and %q", b1.SessionID, b2.SessionID)
	}
	if !c.has(func(m cdpMsg) bool {
		return m.Method == "Target.attachedToTarget" && m.SessionID == "" && strings.Contains(string(m.Params), `"type":"browser"`)
	}) {
		t.Fatal("attachToBrowserTarget sent no attachedToTarget for the browser target")
	}
	var v struct{ Product, UserAgent string }
	_ = json.Unmarshal(c.must(b1.SessionID, "Browser.getVersion", nil), &v)
	if !strings.HasPrefix(v.Product, "Chrome/1") || v.UserAgent == "" {
		t.Fatalf("Browser.getVersion: %+v", v)
	}

	// Playwright: auto-attach with flatten on session 1 only.
	c.must(b1.SessionID, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true})
	c.must(b1.SessionID, "Browser.setDownloadBehavior", map[string]any{"behavior": "allowAndName", "downloadPath": "/tmp", "eventsEnabled": true})
	var ct struct{ TargetID string }
	_ = json.Unmarshal(c.must(b1.SessionID, "Target.createTarget", map[string]any{"url": "about:blank"}), &ct)
	// The page's attachedToTarget was in before the answer.
	if !c.has(func(m cdpMsg) bool {
		return m.Method == "Target.attachedToTarget" && m.SessionID == b1.SessionID && strings.Contains(string(m.Params), ct.TargetID)
	}) {
		t.Fatal("createTarget answered before the new page was auto-attached")
	}
	if c.has(func(m cdpMsg) bool { return m.SessionID == b2.SessionID }) {
		t.Fatal("session 2 got events of session 1's auto-attach")
	}
	if _, err := c.call(b1.SessionID, "Browser.close", nil); err == nil || !strings.Contains(err.Error(), "never closes") {
		t.Fatalf("Browser.close: %v", err)
	}
	if _, err := c.call(b1.SessionID, "Target.createBrowserContext", nil); err == nil {
		t.Fatal("createBrowserContext succeeded in the user's browser")
	}

	// Puppeteer: discover everything, auto-attach all but pages (so: tab
	// targets), then auto-attach the page from the tab's session.
	c.must(b2.SessionID, "Target.setDiscoverTargets", map[string]any{"discover": true, "filter": []any{map[string]any{}}})
	c.must(b2.SessionID, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true,
		"filter": []any{map[string]any{"type": "page", "exclude": true}, map[string]any{}}})
	tabAttach := c.waitFor(10*time.Second, "a tab target attached on session 2", func(m cdpMsg) bool {
		return m.Method == "Target.attachedToTarget" && m.SessionID == b2.SessionID && strings.Contains(string(m.Params), `"type":"tab"`)
	})
	var tabAt struct{ SessionID string }
	_ = json.Unmarshal(tabAttach.Params, &tabAt)
	c.must(tabAt.SessionID, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true, "filter": []any{map[string]any{}}})
	pageAttach := c.waitFor(10*time.Second, "the page attached in the tab's session", func(m cdpMsg) bool {
		return m.Method == "Target.attachedToTarget" && m.SessionID == tabAt.SessionID && strings.Contains(string(m.Params), ct.TargetID)
	})
	var pageAt struct{ SessionID string }
	_ = json.Unmarshal(pageAttach.Params, &pageAt)
	c.must(pageAt.SessionID, "Runtime.runIfWaitingForDebugger", nil)
	c.must(pageAt.SessionID, "Page.navigate", map[string]any{"url": srv.URL + "/puppeteer"})
	// The session enabled no domain: nothing announces the load.
	testutil.Poll(t, "the page loaded through the tab target's page session", func() bool {
		return c.evalString(pageAt.SessionID, "document.readyState + location.pathname") == "complete/puppeteer"
	})
}

// A page in the agent's tab opens a popup: the popup is the agent's too,
// auto-attached, with its opener, as Playwright's Page.popup expects.
func TestPopupOfAgentTab(t *testing.T) {
	srv := userbrowser.Pages(t)
	state := stateDir(t)
	userbrowser.Start(t, state)
	c := openConn(t, state, "/work/proj")
	if err := c.conn.WaitConnected(ctxT(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	c.must("", "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true})
	var ct struct{ TargetID string }
	_ = json.Unmarshal(c.must("", "Target.createTarget", map[string]any{"url": srv.URL + "/opener"}), &ct)
	at := c.waitFor(10*time.Second, "the agent's tab attached", func(m cdpMsg) bool {
		return m.Method == "Target.attachedToTarget" && strings.Contains(string(m.Params), ct.TargetID)
	})
	var s struct{ SessionID string }
	_ = json.Unmarshal(at.Params, &s)
	c.must(s.SessionID, "Runtime.evaluate", map[string]any{"expression": "window.open('/popup'), 1", "userGesture": true})
	popup := c.waitFor(10*time.Second, "the popup attached", func(m cdpMsg) bool {
		return m.Method == "Target.attachedToTarget" && m.SessionID == "" && !strings.Contains(string(m.Params), `"targetId":"`+ct.TargetID)
	})
	var p struct {
		SessionID  string
		TargetInfo struct {
			TargetID, OpenerID string
		}
	}
	_ = json.Unmarshal(popup.Params, &p)
	if p.TargetInfo.OpenerID != ct.TargetID {
		// The opener may arrive in a targetInfoChanged right after.
		c.must("", "Target.setDiscoverTargets", map[string]any{"discover": true})
		var info struct{ TargetInfo struct{ OpenerID string } }
		_ = json.Unmarshal(c.must("", "Target.getTargetInfo", map[string]any{"targetId": p.TargetInfo.TargetID}), &info)
		if info.TargetInfo.OpenerID != ct.TargetID {
			t.Fatalf("the popup's opener is %q, want the agent's tab %s", info.TargetInfo.OpenerID, ct.TargetID)
		}
	}
	// The popup's session enabled no domain: nothing announces the load.
	testutil.Poll(t, "the popup loaded /popup", func() bool { return c.evalString(p.SessionID, "location.pathname") == "/popup" })
	// The agent opened it (through its page), so the agent may close it.
	c.must("", "Target.closeTarget", map[string]any{"targetId": p.TargetInfo.TargetID})
}

// The user closes a tab while a call runs in it: the call fails with an
// error naming the tab, and the tab's session detaches.
func TestUserClosesTabMidCall(t *testing.T) {
	srv := userbrowser.Pages(t)
	state := stateDir(t)
	user := userbrowser.Start(t, state, srv.URL+"/doomed")
	c := openConn(t, state, "/work/proj")
	if err := c.conn.WaitConnected(ctxT(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	c.must("", "Target.setDiscoverTargets", map[string]any{"discover": true}) // the shared tab's arrival is an event
	user.Share(srv.URL+"/doomed", "/work/proj")
	var tid string
	for tid == "" {
		for _, ti := range c.pageTargets("") {
			tid = ti.TargetID
		}
		if tid == "" {
			c.waitFor(5*time.Second, "any event", func(cdpMsg) bool { return true })
		}
	}
	s := c.attach("", tid)
	errc := make(chan error, 1)
	go func() {
		_, err := c.eval(s, "new Promise(() => {})") // never settles
		errc <- err
	}()
	// Let the call reach the tab, then close the tab as the user.
	c.must(s, "Runtime.evaluate", map[string]any{"expression": "1"})
	user.Must("", "Target.closeTarget", map[string]any{"targetId": tid})
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "tab ") || !strings.Contains(err.Error(), "closed") {
			t.Fatalf("the pending call ended with %v; want an error naming the closed tab", err)
		}
		t.Logf("the pending call: %v", err)
	case <-time.After(testutil.Guard):
		t.Fatal("the pending call never ended")
	}
	c.waitFor(10*time.Second, "the tab's session detaching", func(m cdpMsg) bool {
		return m.Method == "Target.detachedFromTarget" && strings.Contains(string(m.Params), s)
	})
}

// Input that is not CDP gets an error answer, and the Conn goes on.
func TestBadInput(t *testing.T) {
	conn, err := Open(Options{StateDir: stateDir(t), Folder: "/work/proj"}) // no browser: none of these needs one
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cases := map[int64]struct{ msg, want string }{
		0:  {`not json`, "not a CDP command"},
		7:  {`{"id":7}`, "not a CDP command"},
		8:  {`{"id":8,"method":"Runtime.evaluate","sessionId":"NOPE"}`, "Session with given id not found"},
		9:  {`{"id":9,"method":"Browser.getVersion"}`, "not connected"},
		10: {`{"id":10,"method":"Target.attachToTarget","params":{"targetId":"X"}}`, "flatten: true"},
		11: {`{"id":11,"method":"Target.createBrowserContext"}`, "one profile"},
	}
	for id := int64(0); id <= 11; id++ {
		if tc, ok := cases[id]; ok {
			if err := conn.WriteMessage(ctxT(t, time.Second), []byte(tc.msg)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range cases {
		raw, err := conn.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var m cdpMsg
		if json.Unmarshal(raw, &m) != nil || m.Error == nil {
			t.Fatalf("not an error answer: %s", raw)
		}
		if want := cases[m.ID].want; !strings.Contains(m.Error.Message, want) {
			t.Errorf("answer to %s: %q, want it to say %q", cases[m.ID].msg, m.Error.Message, want)
		}
	}
	// Still serving.
	_ = conn.WriteMessage(ctxT(t, time.Second), []byte(`{"id":12,"method":"Target.getBrowserContexts"}`))
	raw, _ := conn.ReadMessage()
	if !strings.Contains(string(raw), `"id":12,"result"`) {
		t.Fatalf("after bad input: %s", raw)
	}
	conn.Close()
	if _, err := conn.ReadMessage(); !errors.Is(err, ErrClosed) {
		t.Fatalf("ReadMessage after Close: %v", err)
	}
	if err := conn.WriteMessage(ctxT(t, time.Second), []byte(`{"id":13,"method":"Browser.getVersion"}`)); !errors.Is(err, ErrClosed) {
		t.Fatalf("WriteMessage after Close: %v", err)
	}
}

// Two clients attached to one tab share the extension's debugger session on
// it: the second one's Runtime.enable still hears of the page's execution
// contexts, and the first one's Runtime.disable does not silence the second.
func TestTwoClientsOnOneTab(t *testing.T) {
	srv := userbrowser.Pages(t)
	state := stateDir(t)
	userbrowser.Start(t, state)
	c := openConn(t, state, "/work/proj")
	if err := c.conn.WaitConnected(ctxT(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	var ct struct{ TargetID string }
	_ = json.Unmarshal(c.must("", "Target.createTarget", map[string]any{"url": srv.URL + "/both"}), &ct)
	var b1, b2 struct{ SessionID string }
	_ = json.Unmarshal(c.must("", "Target.attachToBrowserTarget", nil), &b1)
	_ = json.Unmarshal(c.must("", "Target.attachToBrowserTarget", nil), &b2)
	p1 := c.attach(b1.SessionID, ct.TargetID)
	c.must(p1, "Runtime.enable", nil)
	first := c.waitFor(10*time.Second, "an execution context for client 1", event("Runtime.executionContextCreated", p1))
	// Client 2 comes later: it was not there when the contexts were reported.
	p2 := c.attach(b2.SessionID, ct.TargetID)
	c.must(p2, "Runtime.enable", nil)
	// The replay came before the answer: no waiting needed.
	var ctx1 struct{ Context struct{ ID int64 } }
	_ = json.Unmarshal(first.Params, &ctx1)
	if !c.has(func(m cdpMsg) bool {
		return m.Method == "Runtime.executionContextCreated" && m.SessionID == p2 && strings.Contains(string(m.Params), fmt.Sprintf(`"id":%d,`, ctx1.Context.ID))
	}) {
		t.Fatal("client 2's Runtime.enable did not hear of the page's main context")
	}

	c.must(p1, "Runtime.disable", nil)
	c.must(p2, "Runtime.evaluate", map[string]any{"expression": "console.log('still on')"})
	c.waitFor(10*time.Second, "console output for client 2 after client 1 disabled Runtime", func(m cdpMsg) bool {
		return m.Method == "Runtime.consoleAPICalled" && m.SessionID == p2 && strings.Contains(string(m.Params), "still on")
	})
	// Detaching one leaves the other working.
	c.must(b1.SessionID, "Target.detachFromTarget", map[string]any{"sessionId": p1})
	if got := c.evalString(p2, "location.pathname"); got != "/both" {
		t.Fatalf("client 2 after client 1 detached: %q", got)
	}
}

// The tab in front: the browser brings a tab to the front (the user clicks
// it) and CDP has no event for that, so the Conn says it (Activations,
// Active) for the tabs it sees, never for the user's private ones. After
// the extension comes back, the tabs are announced in the order they were
// active, the one in front last (the coordinator's follower takes the last
// announced as the tab in front).
func TestTheTabInFront(t *testing.T) {
	srv := userbrowser.Pages(t)
	private, shared := srv.URL+"/private", srv.URL+"/shared"
	state := stateDir(t)
	user := userbrowser.Start(t, state, private, shared)
	c := openConn(t, state, "/work/proj")
	if err := c.conn.WaitConnected(ctxT(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	c.must("", "Target.setDiscoverTargets", map[string]any{"discover": true})
	var agent struct{ TargetID string }
	_ = json.Unmarshal(c.must("", "Target.createTarget", map[string]any{"url": srv.URL + "/agent"}), &agent)
	user.Share(shared, "/work/proj")
	c.waitFor(10*time.Second, "the shared tab", func(m cdpMsg) bool {
		return m.Method == "Target.targetCreated" && strings.Contains(string(m.Params), "/shared")
	})
	sharedID := ""
	for _, ti := range c.pageTargets("") {
		if ti.URL == shared {
			sharedID = ti.TargetID
		}
	}
	privateID := ""
	for _, ti := range user.Targets() {
		if ti.URL == private {
			privateID = ti.TargetID
		}
	}
	activate := func(id string) { user.Must("", "Target.activateTarget", map[string]any{"targetId": id}) }
	// waitActive waits for want in front; the private tab must never be
	// seen on the way (the extension's messages come in order: a click on
	// it, were it told, would come before the click waited for).
	waitActive := func(want string) {
		t.Helper()
		deadline := time.After(testutil.Guard)
		for {
			got := c.conn.Active()
			if got == privateID {
				t.Fatalf("the user's private tab was told as the tab in front")
			}
			if got == want {
				return
			}
			select {
			case <-c.conn.Activations():
			case <-deadline:
				t.Fatalf("the tab in front is %q, want %q", c.conn.Active(), want)
			}
		}
	}

	// The agent's tab was opened in front; the user clicks the private tab
	// (nothing this coordinator may know), then the shared one.
	activate(privateID)
	activate(sharedID)
	waitActive(sharedID)
	activate(privateID)
	activate(agent.TargetID)
	waitActive(agent.TargetID)
	activate(privateID)
	activate(sharedID)
	waitActive(sharedID) // the private tab in between never showed

	// The extension goes and comes back: the shared tab, in front when it
	// went, is announced last.
	user.StopServiceWorker()
	for c.conn.Status().Connected {
		<-c.conn.Changes()
	}
	c.waitFor(10*time.Second, "the shared tab destroyed", func(m cdpMsg) bool {
		return m.Method == "Target.targetDestroyed" && strings.Contains(string(m.Params), sharedID)
	})
	if got := c.conn.Active(); got != "" {
		t.Fatalf("a tab in front while disconnected: %q", got)
	}
	user.Must("", "Target.createTarget", map[string]any{"url": srv.URL + "/wake"})
	if err := c.conn.WaitConnected(ctxT(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	var order []string
	for len(order) < 2 {
		m := c.waitFor(15*time.Second, "the tabs back", event("Target.targetCreated", ""))
		var tc struct{ TargetInfo targetInfo }
		_ = json.Unmarshal(m.Params, &tc)
		if tc.TargetInfo.Type == "page" {
			order = append(order, tc.TargetInfo.TargetID)
		}
	}
	if order[0] != agent.TargetID || order[1] != sharedID {
		t.Fatalf("the tabs came back in the order %v, want the agent's %s then the shared %s (in front when the extension went)", order, agent.TargetID, sharedID)
	}
	activate(agent.TargetID)
	waitActive(agent.TargetID)
}
