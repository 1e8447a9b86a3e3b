package everyday

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

func stateDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "st") // short: socket paths are limited to ~104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func isPage(url string) func(targetInfo) bool {
	return func(ti targetInfo) bool { return ti.Type == "page" && ti.URL == url }
}

// The coordinator sees the tabs the user shared with it and the ones it
// opens, works in them with raw CDP, and never sees or touches the rest.
func TestSharedAndAgentTabs(t *testing.T) {
	srv := pages(t)
	private, shared := srv.URL+"/private", srv.URL+"/shared"
	state := stateDir(t)
	user := startUserBrowser(t, state, private, shared)
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

	user.share(shared, folder)
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
	if !user.hasTarget(func(ti targetInfo) bool { return ti.TargetID == ts[0].TargetID && ti.URL == shared }) {
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
	for _, ti := range user.targets() {
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
	if !user.hasTarget(isPage(private)) || !user.hasTarget(isPage(shared)) {
		t.Fatalf("the user's tabs changed: %+v", user.targets())
	}
	if got := string(user.evalIn(isPage(private), "document.title")); got != `"private page"` {
		t.Fatalf("the private tab's title is %s", got)
	}
}
