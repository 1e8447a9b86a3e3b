package pagefocus

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// The tracker against a real coordinator, a real Chromium and the fixture
// site (scripts/fixtures/site).

func serveSite(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "fixtures", "site")
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}

func newCoordinator(t *testing.T) *coordinator.Coordinator {
	t.Helper()
	dir := testutil.ShortDir(t)
	c, err := coordinator.New(coordinator.Config{StateDir: dir, Options: coordinator.Options{BrowserPath: testutil.BrowserPath(t), Headless: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func names(tools []pagetools.Tool) []string {
	out := []string{}
	for _, tl := range tools {
		out = append(out, tl.Name)
	}
	return out
}

// waitFocus waits until the tracker's snapshot satisfies ok.
func waitFocus(t *testing.T, tr *Tracker, what string, ok func(Focus) bool) Focus {
	t.Helper()
	deadline := time.After(testutil.Guard) // a busy machine launches slowly
	for {
		f := tr.Snapshot()
		if ok(f) {
			return f
		}
		select {
		case <-tr.Changed():
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%s: focus is %+v (tools %v)", what, f, names(f.Tools))
		}
	}
}

func TestFollowTheTabInFront(t *testing.T) {
	site := serveSite(t)
	c := newCoordinator(t)
	tr := New(Coordinator(c), Config{Follow: true}, true)
	defer tr.Close()
	ctx := ctxFor(t)

	if f := tr.Snapshot(); f.TabID != "" {
		t.Fatalf("focused before any browser runs: %+v", f)
	}
	if c.Status().State != coordinator.Idle {
		t.Fatal("the tracker started a browser")
	}
	flights, err := c.OpenTab(ctx, site+"/flights.html", true)
	if err != nil {
		t.Fatal(err)
	}
	waitFocus(t, tr, "the tab opened in front", func(f Focus) bool {
		return f.TabID == flights.ID && slices.Contains(names(f.Tools), "search_flights")
	})

	// A tab opened in the background does not take the focus, not even
	// when its page has loaded.
	inbox, err := c.OpenTab(ctx, site+"/inbox.html", false)
	if err != nil {
		t.Fatal(err)
	}
	peeked, err := tr.PeekTab(ctx, inbox.ID, inbox.URL)
	if err != nil || !slices.Contains(names(peeked.Tools), "search_inbox") {
		t.Fatalf("the background tab's tools: %v %v", names(peeked.Tools), err)
	}
	if f := tr.Snapshot(); f.TabID != flights.ID {
		t.Fatalf("focus moved to the background tab: %+v", f)
	}

	// A call that navigates: the focused tab's tools follow.
	res, err := tr.CallShown(ctx, tr.Snapshot().Shown(), "search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-05-01"})
	if err != nil || !res.Navigated {
		t.Fatalf("search_flights: %+v %v", res, err)
	}
	waitFocus(t, tr, "the results page", func(f Focus) bool {
		return f.TabID == flights.ID && slices.Contains(names(f.Tools), "open_result")
	})

	// coordinator_focus_tab's way: the tab comes to the front, focus follows.
	if _, err := c.FocusTab(ctx, inbox.ID); err != nil {
		t.Fatal(err)
	}
	waitFocus(t, tr, "the tab brought to the front", func(f Focus) bool { return f.TabID == inbox.ID })

	// Counting the tools of every tab: the focused one's from its engine,
	// the others' on demand.
	tabs, err := c.RunningTabs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	counted := tr.Peek(ctx, tabs)
	if got := names(counted[flights.ID]); !slices.Contains(got, "open_result") {
		t.Fatalf("the unfocused results tab: %v (all: %v)", got, counted)
	}

	// Closing the focused tab leaves none focused, although another is in front now.
	done := tr.Closing(ctx, inbox.ID)
	err = c.CloseTab(ctx, inbox.ID)
	done(err == nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := tr.Snapshot(); f.TabID != "" {
		t.Fatalf("focused after closing the focused tab: %+v", f)
	}
	if err := tr.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if f := tr.Snapshot(); f.TabID != "" {
		t.Fatalf("the tab behind took the focus: %+v", f)
	}
	// ... until a tab becomes front again: a child MCP navigates it.
	child, err := c.AttachTab(ctx, flights.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := child.Call(ctx, "Page.navigate", map[string]any{"url": site + "/signin.html"}); err != nil {
		t.Fatal(err)
	}
	child.Close()
	waitFocus(t, tr, "the tab a child navigated", func(f Focus) bool {
		return f.TabID == flights.ID && slices.Contains(names(f.Tools), "sign_in")
	})

	// The browser goes: no tab is focused.
	if _, err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	waitFocus(t, tr, "after stop", func(f Focus) bool { return f.TabID == "" })
	if _, err := tr.CallShown(ctx, Shown{}, "open_result", map[string]any{"index": 0.0}); !errors.Is(err, ErrNoFocus) {
		t.Fatalf("a call with no focus: %v", err)
	}
	if c.Status().State != coordinator.Stopped {
		t.Fatalf("the tracker brought the browser back: %s", c.Status().State)
	}
}

func TestExplicitFocus(t *testing.T) {
	site := serveSite(t)
	c := newCoordinator(t)
	tr := New(Coordinator(c), Config{Engine: pagetools.Config{ContentTool: true}}, true)
	defer tr.Close()
	ctx := ctxFor(t)

	shopA, err := c.OpenTab(ctx, site+"/flights.html", true)
	if err != nil {
		t.Fatal(err)
	}
	if f := tr.Snapshot(); f.TabID != "" {
		t.Fatalf("explicit focus followed the tab in front: %+v", f)
	}
	f, err := tr.Focus(ctx, shopA.ID, shopA.URL)
	if err != nil || f.TabID != shopA.ID || !slices.Contains(names(f.Tools), "search_flights") || !slices.Contains(names(f.Tools), pagetools.ContentToolName) {
		t.Fatalf("focus: %+v %v", f, err)
	}
	// A tab opened in front now does not move the focus.
	shopB, err := c.OpenTab(ctx, site+"/jetcheap.html", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if f := tr.Snapshot(); f.TabID != shopA.ID {
		t.Fatalf("focus moved by itself: %+v", f)
	}
	// An unknown tab changes nothing.
	if _, err := tr.Focus(ctx, "NO-SUCH-TAB", ""); !errors.Is(err, coordinator.ErrNoTab) {
		t.Fatalf("focus on an unknown tab: %v", err)
	}
	if f := tr.Snapshot(); f.TabID != shopA.ID {
		t.Fatalf("a failed focus changed the focus: %+v", f)
	}
	f, err = tr.Focus(ctx, shopB.ID, "")
	if err != nil || f.TabID != shopB.ID {
		t.Fatalf("focus B: %+v %v", f, err)
	}
	res, err := tr.CallShown(ctx, f.Shown(), "search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-05-01"})
	if err != nil || !strings.Contains(res.PageText, "$") {
		t.Fatalf("search on shop B: %+v %v", res, err)
	}
	// The user closes the focused tab in the browser (not through us).
	if err := c.CloseTab(ctx, shopB.ID); err != nil {
		t.Fatal(err)
	}
	waitFocus(t, tr, "after the focused tab closed", func(f Focus) bool { return f.TabID == "" })
}

func TestACrashedTabIsNotFocused(t *testing.T) {
	site := serveSite(t)
	c := newCoordinator(t)
	tr := New(Coordinator(c), Config{Follow: true}, true)
	defer tr.Close()
	ctx := ctxFor(t)
	tab, err := c.OpenTab(ctx, site+"/flights.html", true)
	if err != nil {
		t.Fatal(err)
	}
	waitFocus(t, tr, "the tab", func(f Focus) bool { return f.TabID == tab.ID && len(f.Tools) > 0 })
	s, err := c.AttachTab(ctx, tab.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	crash, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, _ = s.Call(crash, "Page.crash", nil) // answers never: the renderer is gone
	waitFocus(t, tr, "after the crash", func(f Focus) bool { return f.TabID == "" })
	if err := tr.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if f := tr.Snapshot(); f.TabID != "" {
		t.Fatalf("the crashed tab was focused again: %+v", f)
	}
}

// untilTabs waits until the browser's tabs satisfy ok.
func untilTabs(t *testing.T, c *coordinator.Coordinator, what string, ok func([]coordinator.Tab) bool) []coordinator.Tab {
	t.Helper()
	events, unsub := c.Subscribe()
	defer unsub()
	deadline := time.After(20 * time.Second)
	for {
		tabs, err := c.RunningTabs(ctxFor(t))
		if err == nil && ok(tabs) {
			return tabs
		}
		select {
		case <-events:
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%s: tabs %+v (%v)", what, tabs, err)
		}
	}
}

// A tab a page opened (window.open from a tab behind, a link with a
// target) comes to the front of the browser but does not take the focus by
// itself, not even when it navigates; the agent's focus_tab still moves it.
func TestATabAPageOpenedDoesNotTakeTheFocus(t *testing.T) {
	site := serveSite(t)
	c := newCoordinator(t)
	tr := New(Coordinator(c), Config{Follow: true}, true)
	defer tr.Close()
	ctx := ctxFor(t)
	behind, err := c.OpenTab(ctx, site+"/inbox.html", true)
	if err != nil {
		t.Fatal(err)
	}
	bank, err := c.OpenTab(ctx, site+"/signin.html", true)
	if err != nil {
		t.Fatal(err)
	}
	waitFocus(t, tr, "the bank", func(f Focus) bool { return f.TabID == bank.ID && slices.Contains(names(f.Tools), "sign_in") })

	s, err := c.AttachTab(ctx, behind.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Call(ctx, "Runtime.evaluate", map[string]any{"expression": `window.open('/flights.html?popup'); const a = Object.assign(document.createElement('a'), {href: '/stores.html?blank', target: '_blank'}); document.body.append(a); a.click()`, "userGesture": true}); err != nil {
		t.Fatal(err)
	}
	opened := func(tabs []coordinator.Tab, query string) (coordinator.Tab, bool) {
		for _, tab := range tabs {
			if strings.HasSuffix(tab.URL, query) {
				return tab, true
			}
		}
		return coordinator.Tab{}, false
	}
	tabs := untilTabs(t, c, "the popups", func(tabs []coordinator.Tab) bool {
		_, a := opened(tabs, "?popup")
		_, b := opened(tabs, "?blank")
		return a && b
	})
	popup, _ := opened(tabs, "?popup")
	blank, _ := opened(tabs, "?blank")
	if popup.OpenerID != behind.ID || blank.OpenerID != behind.ID {
		t.Fatalf("openers: popup %q, link %q, want %q", popup.OpenerID, blank.OpenerID, behind.ID)
	}
	if err := tr.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if front, _ := c.FrontTab(); front.ID == bank.ID {
		t.Fatalf("the popups never came to the front: %+v", front)
	}
	if f := tr.Snapshot(); f.TabID != bank.ID {
		t.Fatalf("a tab a page opened took the focus: %+v", f)
	}
	// It navigates by itself: still not focused.
	p, err := c.AttachTab(ctx, popup.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Call(ctx, "Runtime.evaluate", map[string]any{"expression": `location.href = '/flights.html?again'`}); err != nil {
		t.Fatal(err)
	}
	untilTabs(t, c, "the popup navigated", func(tabs []coordinator.Tab) bool { _, ok := opened(tabs, "?again"); return ok })
	if err := tr.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if f := tr.Snapshot(); f.TabID != bank.ID {
		t.Fatalf("a tab a page opened took the focus when it navigated: %+v", f)
	}
	// coordinator_focus_tab's way: the agent brings it to the front.
	if _, err := c.FocusTab(ctx, popup.ID); err != nil {
		t.Fatal(err)
	}
	waitFocus(t, tr, "the popup the agent focused", func(f Focus) bool { return f.TabID == popup.ID })
}
