package coordinator

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/tidwall/gjson"
)

// browserContexts are the contexts the launched browser has, asked on the
// coordinator's own pipe (what no agent is shown).
func browserContexts(t *testing.T, c *Coordinator) []string {
	t.Helper()
	b, err := c.running()
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.proxy.Conn.Call(testutil.Context(t), "", "Target.getBrowserContexts", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, id := range gjson.GetBytes(res, "browserContextIds").Array() {
		ids = append(ids, id.String())
	}
	return ids
}

// pageContexts maps the launched browser's pages to their contexts.
func pageContexts(t *testing.T, c *Coordinator) map[string]string {
	t.Helper()
	b, err := c.running()
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.proxy.Conn.Call(testutil.Context(t), "", "Target.getTargets", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	gjson.GetBytes(res, "targetInfos").ForEach(func(_, ti gjson.Result) bool {
		if ti.Get("type").String() == "page" {
			out[ti.Get("targetId").String()] = ti.Get("browserContextId").String()
		}
		return true
	})
	return out
}

func TestAgentsHaveContextsOfTheirOwnDisposedWhenTheyLeave(t *testing.T) {
	c := newCoordinator(t, Config{Isolation: IsolatedPerConnection})
	ctx := testutil.Context(t)
	a, b := c.NewAgent("a"), c.NewAgent("b")
	if a.Endpoints().Secret == b.Endpoints().Secret || a.Endpoints().Secret == c.proxy.Secret() {
		t.Fatal("agents share a secret")
	}
	if !c.IsAgent(a.Endpoints().Secret) || c.IsAgent(c.proxy.Secret()) {
		t.Fatal("the proxy does not know the agents by their secrets")
	}
	if _, err := c.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Own().Tabs(ctx); err != nil { // the coordinator's own agent makes its context
		t.Fatal(err)
	}
	before := browserContexts(t, c) // no other agent has a context yet
	ta, err := a.OpenTab(ctx, "about:blank", true)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.OpenTab(ctx, "about:blank", true)
	if err != nil {
		t.Fatal(err)
	}
	pages := pageContexts(t, c)
	if pages[ta.ID] == pages[tb.ID] || slices.Contains(before, pages[ta.ID]) {
		t.Fatalf("a's tab in %s, b's in %s, contexts before %v", pages[ta.ID], pages[tb.ID], before)
	}
	for _, x := range []struct {
		agent      *Agent
		own, other string
	}{{a, ta.ID, tb.ID}, {b, tb.ID, ta.ID}} {
		tabs, err := x.agent.Tabs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(tabs) != 1 || tabs[0].ID != x.own {
			t.Fatalf("%s lists %v, want its own tab %s only", x.agent.name, tabs, x.own)
		}
		if front, ok := x.agent.FrontTab(); !ok || front.ID != x.own {
			t.Fatalf("%s's tab in front: %v %v", x.agent.name, front, ok)
		}
		if _, err := x.agent.FocusTab(ctx, x.other); !errors.Is(err, ErrNoTab) {
			t.Fatalf("%s focused the other's tab: %v", x.agent.name, err)
		}
		if err := x.agent.CloseTab(ctx, x.other); !errors.Is(err, ErrNoTab) {
			t.Fatalf("%s closed the other's tab: %v", x.agent.name, err)
		}
		if _, err := x.agent.AttachTab(ctx, x.other, nil); !errors.Is(err, ErrNoTab) {
			t.Fatalf("%s attached to the other's tab: %v", x.agent.name, err)
		}
	}
	if tabs, _ := c.Own().Tabs(ctx); slices.ContainsFunc(tabs, func(x Tab) bool { return x.ID == ta.ID || x.ID == tb.ID }) {
		t.Fatalf("the coordinator's own agent sees the agents' tabs: %v", tabs)
	}

	// Reset: a starts afresh in a new context; its tab goes, b's stays.
	if err := a.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	pages = pageContexts(t, c)
	if _, open := pages[ta.ID]; open {
		t.Fatal("a's tab outlived its reset")
	}
	if _, open := pages[tb.ID]; !open {
		t.Fatal("b's tab went with a's reset")
	}
	if tabs, _ := a.Tabs(ctx); len(tabs) != 0 {
		t.Fatalf("a after its reset: %v", tabs)
	}

	// Leaving: b's context is disposed, in the browser itself; its secret
	// no longer lets anyone in.
	ctxB := pages[tb.ID]
	b.Close()
	if slices.Contains(browserContexts(t, c), ctxB) {
		t.Fatal("b's context outlived b")
	}
	if _, open := pageContexts(t, c)[tb.ID]; open {
		t.Fatal("b's tab outlived b")
	}
	if c.IsAgent(b.Endpoints().Secret) {
		t.Fatal("b's endpoint still lets in")
	}
	if _, err := b.Tabs(ctx); !errors.Is(err, ErrAgentGone) {
		t.Fatalf("b after it left: %v", err)
	}
	a.Close()
	if got := browserContexts(t, c); len(got) != len(before) {
		t.Fatalf("contexts left behind: %v (before %v)", got, before)
	}
}

// A restarted browser takes the contexts with it; an agent's next need
// makes a new one there.
func TestAnAgentFollowsTheBrowserAcrossARestart(t *testing.T) {
	c := newCoordinator(t, Config{Isolation: IsolatedOwn})
	ctx := testutil.Context(t)
	first, err := c.OpenTab(ctx, "about:blank", true)
	if err != nil {
		t.Fatal(err)
	}
	old := pageContexts(t, c)[first.ID]
	if _, err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	second, err := c.OpenTab(ctx, "about:blank", true)
	if err != nil {
		t.Fatal(err)
	}
	now := pageContexts(t, c)[second.ID]
	if now == "" || now == old {
		t.Fatalf("after a restart the own agent's tab is in %q (before: %q)", now, old)
	}
	tabs, err := c.Tabs(ctx)
	if err != nil || len(tabs) != 1 || tabs[0].ID != second.ID {
		t.Fatalf("tabs after the restart: %v %v", tabs, err)
	}
}

// Without isolation an agent is the coordinator's own, the whole browser.
func TestWithoutIsolationEveryAgentIsTheCoordinators(t *testing.T) {
	c := newCoordinator(t, Config{})
	if a := c.NewAgent("x"); a != c.Own() || c.IsAgent(a.Endpoints().Secret) {
		t.Fatal("an agent without isolation is not the coordinator's own")
	}
	if c.proxyAgents() != nil {
		t.Fatal("the proxy knows agents without isolation")
	}
	ctx, cancel := context.WithCancel(testutil.Context(t))
	defer cancel()
	b, err := c.ensure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.proxyBackend(b)
	if err != nil || p.Isolation != nil {
		t.Fatalf("a shared coordinator's backend: isolation %v, err %v", p.Isolation, err)
	}
}

// targetsIn are every target (of any type: pages, workers, the browser's
// own WebUI) in one browser context, asked on the coordinator's own pipe.
func targetsIn(t *testing.T, c *Coordinator, ctxID string) []string {
	t.Helper()
	b, err := c.running()
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.proxy.Conn.Call(testutil.Context(t), "", "Target.getTargets", nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	gjson.GetBytes(res, "targetInfos").ForEach(func(_, ti gjson.Result) bool {
		if ti.Get("browserContextId").String() == ctxID {
			out = append(out, ti.Get("type").String()+" "+ti.Get("url").String())
		}
		return true
	})
	return out
}

// renderers counts the browser's renderer processes.
func renderers(t *testing.T, c *Coordinator) int {
	t.Helper()
	b, err := c.running()
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.proxy.Conn.Call(testutil.Context(t), "", "SystemInfo.getProcessInfo", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	gjson.GetBytes(res, "processInfo.#.type").ForEach(func(_, typ gjson.Result) bool {
		if typ.String() == "renderer" {
			n++
		}
		return true
	})
	return n
}

// What one more agent costs the browser (issue 19, ≤ ¼ of a browser): its
// context holds the tabs it opened and nothing else (no page before it asks
// for one; none of the browser's own WebUI, such as the omnibox popups
// Chromium preloads in a renderer of their own for every context's window),
// and when it leaves its renderers go with it.
func TestAnAgentsContextHoldsOnlyWhatItOpened(t *testing.T) {
	c := newCoordinator(t, Config{Isolation: IsolatedPerConnection})
	ctx := testutil.Context(t)
	if _, err := c.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Own().Tabs(ctx); err != nil {
		t.Fatal(err)
	}
	a := c.NewAgent("a")
	if _, err := a.Tabs(ctx); err != nil { // makes its context
		t.Fatal(err)
	}
	b, err := c.running()
	if err != nil {
		t.Fatal(err)
	}
	ctxA := a.known(b).Base()
	if got := targetsIn(t, c, ctxA); len(got) != 0 {
		t.Fatalf("a's context holds %v before a opened anything", got)
	}
	tab, err := a.OpenTab(ctx, "about:blank", true)
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.AttachTab(ctx, tab.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "document.readyState"}); err != nil { // its window is up and its page answers
		t.Fatal(err)
	}
	s.Close()
	if got := targetsIn(t, c, ctxA); len(got) != 1 || got[0] != "page about:blank" {
		t.Fatalf("a's context holds %q, want only the tab a opened", got)
	}
	during := renderers(t, c)
	a.Close()
	testutil.Poll(t, "a's renderer exits when a leaves", func() bool { return renderers(t, c) < during })
}
