package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
)

func TestProgressiveToolsByState(t *testing.T) {
	for _, tc := range []struct {
		connected bool
		tabs      int
		focused   bool
		want      string
	}{
		{false, 0, false, "connect_browser"},
		{false, 3, true, "connect_browser"},
		{true, 0, false, "list_tabs,open_tab"},
		{true, 2, false, "list_tabs,open_tab,focus_tab"},
		{true, 2, true, "list_tabs,open_tab,focus_tab,close_tab"},
		{true, 0, true, "list_tabs,open_tab,focus_tab,close_tab"}, // the count lags a tab just opened
	} {
		if got := strings.Join(progressiveTools(tc.connected, tc.tabs, tc.focused), ","); got != tc.want {
			t.Errorf("connected=%v tabs=%d focused=%v: %s, want %s", tc.connected, tc.tabs, tc.focused, got, tc.want)
		}
	}
}

// seedResult decodes a progressive tool's structured answer.
func seedResult(t *testing.T, s *session, name string, args map[string]any) map[string]any {
	t.Helper()
	res := s.call(name, args)
	if res.IsError {
		t.Fatalf("%s %v: %s", name, args, text(res))
	}
	return structured[map[string]any](t, res)
}

// exactly checks the listed tools, in any order.
func (s *session) exactly(t *testing.T, want ...string) {
	t.Helper()
	got := s.names()
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("tools: %v, want %v", got, want)
	}
}

func TestProgressiveStateMachine(t *testing.T) {
	site := serveSite(t)
	c := headless(t)
	s := build(t, c, Options{Progressive: true})
	n := listen(s)
	core := []string{"list_tabs", "open_tab", "focus_tab", "close_tab"}

	// DISCONNECTED
	s.exactly(t, "connect_browser")
	r := seedResult(t, s, "connect_browser", nil)
	if r["connected"] != false || r["error"] != "No browser found" || !strings.Contains(r["instructions"].(string), "launch: true") {
		t.Fatalf("connect_browser with no browser: %v", r)
	}
	if c.Status().State != coordinator.Idle {
		t.Fatal("connect_browser without launch launched")
	}
	if res := s.call("list_tabs", nil); !res.IsError || !strings.Contains(text(res), "connect_browser first") {
		t.Fatalf("list_tabs while disconnected: %s", text(res))
	}
	n.quiet(t, 300*time.Millisecond, "a failed connect")

	// CONNECTED (no tabs): the launched browser's blank page is not shown.
	r = seedResult(t, s, "connect_browser", map[string]any{"launch": true})
	browser, _ := r["browser"].(map[string]any)
	if r["connected"] != true || r["tabCount"] != 0.0 || browser["name"] != "Chromium" || browser["version"] == "" {
		t.Fatalf("connect_browser: %v", r)
	}
	n.wait(t, "connected")
	s.exactly(t, "list_tabs", "open_tab")
	// Once connected, connect_browser (still callable by a client that
	// kept an old list) changes nothing.
	if r := seedResult(t, s, "connect_browser", map[string]any{"launch": true}); r["connected"] != true || r["tabCount"] != 0.0 {
		t.Fatalf("connect_browser again: %v", r)
	}
	n.quiet(t, 300*time.Millisecond, "connect_browser again")
	if r := seedResult(t, s, "list_tabs", nil); len(r["tabs"].([]any)) != 0 || r["focusedTabId"] != nil {
		t.Fatalf("list_tabs with no tabs: %v", r)
	}

	// Bad input changes nothing.
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"open_tab", map[string]any{"url": "not a url"}, "not a URL"},
		{"open_tab", map[string]any{}, "url is required"},
		{"focus_tab", map[string]any{"tabId": 7}, "no tab has id 7"},
		{"focus_tab", map[string]any{"tabId": "1"}, "tabId must be a number"},
		{"close_tab", nil, "no tab is focused"},
	} {
		if res := s.call(tc.name, tc.args); !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v: %s", tc.name, tc.args, text(res))
		}
	}
	s.exactly(t, "list_tabs", "open_tab")

	// open_tab without focus, from no tabs: focus_tab appears.
	n.drain()
	r = seedResult(t, s, "open_tab", map[string]any{"url": site + "/flights.html", "focus": false})
	tab := r["tab"].(map[string]any)
	if r["focused"] != false || tab["id"] != 1.0 || !slices.Contains(anyStrings(r["toolsAvailable"]), "search_flights") {
		t.Fatalf("open_tab behind: %v", r)
	}
	n.wait(t, "the first tab")
	s.exactly(t, "list_tabs", "open_tab", "focus_tab")
	if tabs, _ := c.RunningTabs(context.Background()); len(tabs) != 1 {
		t.Fatalf("the first open_tab did not reuse the blank page: %d tabs", len(tabs))
	}
	// ... from some tabs: nothing changes, nothing is sent.
	r = seedResult(t, s, "open_tab", map[string]any{"url": site + "/jetcheap.html", "focus": false})
	if r["tab"].(map[string]any)["id"] != 2.0 {
		t.Fatalf("second tab: %v", r)
	}
	n.quiet(t, 500*time.Millisecond, "a tab opened behind others")
	s.exactly(t, "list_tabs", "open_tab", "focus_tab")

	// TAB FOCUSED: the page's tools appear.
	r = seedResult(t, s, "focus_tab", map[string]any{"tabId": 1})
	if r["success"] != true || r["tab"].(map[string]any)["id"] != 1.0 {
		t.Fatalf("focus_tab: %v", r)
	}
	n.wait(t, "focus")
	s.exactly(t, append(core, "search_flights", "subscribe_newsletter", "get_page_content")...)
	lt := seedResult(t, s, "list_tabs", nil)
	if lt["focusedTabId"] != 1.0 || len(lt["tabs"].([]any)) != 2 {
		t.Fatalf("list_tabs: %v", lt)
	}
	for _, raw := range lt["tabs"].([]any) {
		tb := raw.(map[string]any)
		want := map[float64]float64{1: 3, 2: 2}[tb["id"].(float64)] // Skyways has a newsletter form too
		if tb["toolCount"] != want || tb["focused"] != (tb["id"] == 1.0) {
			t.Fatalf("list_tabs row: %v", tb)
		}
	}
	res := s.call("search_flights", map[string]any{"from": "SFO", "to": "NYC", "depart_date": "2026-06-05"})
	if res.IsError || !strings.Contains(text(res), "$450") {
		t.Fatalf("search_flights on Skyways: %s", text(res))
	}
	s.untilTools(t, n, append(core, "open_result", "sort_by_price", "get_page_content")...)

	// Focus moves to the other shop.
	n.drain()
	seedResult(t, s, "focus_tab", map[string]any{"tabId": 2})
	n.wait(t, "focus moved")
	s.exactly(t, append(core, "search_flights", "get_page_content")...)
	res = s.call("search_flights", map[string]any{"from": "SFO", "to": "NYC", "depart_date": "2026-06-05"})
	if res.IsError || !strings.Contains(text(res), "$520") {
		t.Fatalf("search_flights on JetCheap: %s", text(res))
	}

	// Closing the focused tab: no tab focused, focus_tab stays.
	n.drain()
	r = seedResult(t, s, "close_tab", nil)
	if r["closed"] != true || r["tabId"] != 2.0 {
		t.Fatalf("close_tab: %v", r)
	}
	n.wait(t, "the focused tab closed")
	s.exactly(t, "list_tabs", "open_tab", "focus_tab")
	// Closing the last tab: back to no tabs.
	seedResult(t, s, "close_tab", map[string]any{"tabId": 1})
	s.untilTools(t, n, "list_tabs", "open_tab")

	// open_tab with focus: its tools at once.
	r = seedResult(t, s, "open_tab", map[string]any{"url": site + "/signin.html"})
	if r["focused"] != true || !slices.Contains(anyStrings(r["toolsAvailable"]), "sign_in") {
		t.Fatalf("open_tab focused: %v", r)
	}
	s.untilTools(t, n, append(core, "sign_in", "get_page_content")...)

	// The browser goes: DISCONNECTED.
	n.drain()
	if _, err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.untilTools(t, n, "connect_browser")
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
