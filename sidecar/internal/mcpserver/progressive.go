package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagefocus"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/mark3labs/mcp-go/mcp"
)

// The seed's own surface (--tools progressive, 002's state machine):
//
//	DISCONNECTED                [connect_browser]
//	CONNECTED, no tabs          [list_tabs, open_tab]
//	CONNECTED, tabs, no focus   [list_tabs, open_tab, focus_tab]
//	TAB FOCUSED                 [list_tabs, open_tab, focus_tab, close_tab, + the page's tools]
//
// Tab ids are numbers (the coordinator's are CDP target ids): each tab gets
// the next number the first time it is shown, for the coordinator's life.
// Focus is explicit (focus_tab), or follows the tab in front too with
// --follow-user-focus. list_changed goes out whenever the set of tools
// changes, or focus moves.

const progressiveInstructions = `This server drives a web browser through tabs, and each focused tab brings its own tools.
Start with connect_browser (launch: true starts a browser when none is open). Then open_tab opens a page and focuses it; the focused tab's page tools (its forms, result lists and buttons, e.g. search_flights, open_result, get_page_content) appear in the tool list. focus_tab switches to another tab and its tools; list_tabs shows every tab with how many tools it has.`

// progressiveTools are the seed's tools for a state, in the seed's order.
func progressiveTools(connected bool, tabs int, focused bool) []string {
	switch {
	case !connected:
		return []string{"connect_browser"}
	case focused:
		return []string{"list_tabs", "open_tab", "focus_tab", "close_tab"}
	case tabs == 0:
		return []string{"list_tabs", "open_tab"}
	default:
		return []string{"list_tabs", "open_tab", "focus_tab"}
	}
}

type progressive struct {
	c     *coordinator.Coordinator
	p     *pageSurface
	words remedy.Words // this surface's (Words)

	mu        sync.Mutex
	connected bool
	backend   string          // the backend connect_browser connected to
	hidden    map[string]bool // a launched browser's first blank tab(s), until reused or navigated
	tabs      int             // tabs shown now
	ids       map[string]int  // target id → tab number
	byNum     map[int]string
	next      int

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newProgressive(c *coordinator.Coordinator, p *pageSurface, words remedy.Words) *progressive {
	return &progressive{c: c, p: p, words: words, hidden: map[string]bool{}, ids: map[string]int{}, byNum: map[int]string{}, next: 1}
}

func (pr *progressive) start() {
	pr.ctx, pr.cancel = context.WithCancel(context.Background())
	events, unsub := pr.c.Subscribe()
	pr.wg.Add(1)
	go func() {
		defer pr.wg.Done()
		defer unsub()
		for {
			select {
			case _, ok := <-events:
				if !ok {
					return
				}
				pr.onEvent()
			case <-pr.ctx.Done():
				return
			}
		}
	}()
}

func (pr *progressive) stop() {
	pr.cancel()
	pr.wg.Wait()
}

// onEvent: the browser changed, or its tabs did (the user opens or closes
// one, a page navigates).
func (pr *progressive) onEvent() {
	if !pr.isConnected() {
		return
	}
	ctx, cancel := context.WithTimeout(pr.ctx, 10*time.Second)
	defer cancel()
	if pr.c.BackendKey() != pr.backendKey() {
		pr.disconnect(ctx)
	} else if _, err := pr.recount(ctx); errors.Is(err, coordinator.ErrNotRunning) {
		pr.disconnect(ctx)
	} else {
		// A hidden blank tab someone navigated is shown from now on: with
		// --follow-user-focus focus may go there now.
		_ = pr.p.tr.Sync(ctx)
	}
	pr.p.refresh()
}

func (pr *progressive) backendKey() string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.backend
}

func (pr *progressive) isConnected() bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.connected
}

func (pr *progressive) hiddenTab(id string) bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.hidden[id]
}

// coreTools are the seed's tools listed now.
func (pr *progressive) coreTools(snap pagefocus.Focus) []string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	tools := progressiveTools(pr.connected, pr.tabs, pr.connected && snap.TabID != "")
	if pr.connected && snap.Dialog != nil {
		// A JavaScript dialog is open in the focused tab: the state that
		// allows answering it.
		tools = append(tools, "handle_dialog")
	}
	return tools
}

// disconnect: the browser went (or changed): back to DISCONNECTED.
func (pr *progressive) disconnect(ctx context.Context) {
	pr.mu.Lock()
	pr.connected, pr.backend, pr.tabs = false, "", 0
	clear(pr.hidden)
	pr.mu.Unlock()
	_ = pr.p.tr.SetActive(ctx, false)
}

// recount lists the tabs shown (a hidden blank tab that navigated is shown
// from then on) and keeps their number.
func (pr *progressive) recount(ctx context.Context) ([]coordinator.Tab, error) {
	tabs, err := pr.c.RunningTabs(ctx)
	if err != nil {
		return nil, err
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	shown := make([]coordinator.Tab, 0, len(tabs))
	for _, t := range tabs {
		if pr.hidden[t.ID] {
			if cdp.IsBlank(t.URL) {
				continue
			}
			delete(pr.hidden, t.ID)
		}
		pr.numLocked(t.ID)
		shown = append(shown, t)
	}
	pr.tabs = len(shown)
	return shown, nil
}

func (pr *progressive) numLocked(id string) int {
	if n, ok := pr.ids[id]; ok {
		return n
	}
	n := pr.next
	pr.next++
	pr.ids[id], pr.byNum[n] = n, id
	return n
}

func (pr *progressive) num(id string) int {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.numLocked(id)
}

// target is the tab with number n among tabs.
func (pr *progressive) target(tool string, raw any, tabs []coordinator.Tab) (string, error) {
	f, ok := raw.(float64)
	if !ok {
		return "", fmt.Errorf("%s: tabId must be a number, got %s", tool, jsonText(raw))
	}
	pr.mu.Lock()
	id, known := pr.byNum[int(f)]
	pr.mu.Unlock()
	if f != math.Trunc(f) || !known || !slices.ContainsFunc(tabs, func(t coordinator.Tab) bool { return t.ID == id }) {
		return "", fmt.Errorf("%s: no tab has id %s; list_tabs shows the open tabs and their ids", tool, jsonText(raw))
	}
	return id, nil
}

// answer is a structured result whose text is its JSON, as the seed shows
// its responses.
func answer(v any) *mcp.CallToolResult {
	b, _ := json.Marshal(v)
	return mcp.NewToolResultStructured(v, string(b))
}

func (pr *progressive) notConnected(tool string) *mcp.CallToolResult {
	return toolError(fmt.Errorf("%s: no browser is connected; call connect_browser first", tool))
}

// The seed's schemas (its input schemas exactly); the output schemas say
// what each answers.
const (
	seedTabSchema = `{"type":"object","properties":{"id":{"type":"number"},"title":{"type":"string"},"url":{"type":"string"}},"required":["id","title","url"]}`
)

func (pr *progressive) tools() []toolDef {
	def := func(name, title, desc string, readOnly, destructive bool, input, output string, h func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error)) toolDef {
		t := newTool(name, title, desc, readOnly, destructive, false, input, output)
		t.Annotations.OpenWorldHint = hint(name != "list_tabs")
		return toolDef{t, h}
	}
	return []toolDef{
		def("connect_browser", "Connect to a browser",
			"Establish connection to browser (attach to existing or launch new). Answers the browser's name and version and how many tabs it has; then list_tabs and open_tab appear.",
			false, false, `{"type":"object","properties":{"launch":{"type":"boolean","description":"Launch new browser instance if none found","default":false}}}`,
			`{"type":"object","properties":{
				"connected":{"type":"boolean"},
				"browser":{"type":"object","properties":{"name":{"type":"string"},"version":{"type":"string"}},"required":["name","version"]},
				"tabCount":{"type":"number"},
				"error":{"type":"string"},
				"instructions":{"type":"string"}
			},"required":["connected"]}`, pr.connect),
		def("list_tabs", "List tabs",
			"See all open tabs without loading their tools: id, title, url, whether it is focused (its tools are loaded) and how many tools its page has (toolCount helps decide whether to focus it).",
			true, false, `{"type":"object","properties":{}}`,
			`{"type":"object","properties":{
				"tabs":{"type":"array","items":{"type":"object","properties":{
					"id":{"type":"number"},"title":{"type":"string"},"url":{"type":"string"},"focused":{"type":"boolean"},
					"toolCount":{"type":"number","description":"absent when the tab's tools could not be found in time"}
				},"required":["id","title","url","focused"]}},
				"focusedTabId":{"description":"the focused tab's id, or null when no tab is focused"}
			},"required":["tabs","focusedTabId"]}`, pr.listTabs),
		def("open_tab", "Open a tab",
			"Open a new browser tab. With focus (the default) it is focused and its page tools appear; answers the tools available on its page.",
			false, false, `{"type":"object","properties":{"url":{"type":"string","description":"URL to open"},"focus":{"type":"boolean","description":"Focus the new tab after opening","default":true}},"required":["url"]}`,
			`{"type":"object","properties":{"tab":`+seedTabSchema+`,"focused":{"type":"boolean"},"toolsAvailable":{"type":"array","items":{"type":"string"}}},"required":["tab","focused","toolsAvailable"]}`, pr.openTab),
		def("focus_tab", "Focus a tab",
			"Switch focus to a different tab, loading its tools: the previous tab's tools disappear and the new tab's appear.",
			false, false, `{"type":"object","properties":{"tabId":{"type":"number","description":"ID of the tab to focus"}},"required":["tabId"]}`,
			`{"type":"object","properties":{"success":{"type":"boolean"},"tab":`+seedTabSchema+`,"toolsAvailable":{"type":"array","items":{"type":"string"}}},"required":["success","tab","toolsAvailable"]}`, pr.focusTab),
		def("close_tab", "Close a tab",
			"Close a tab (the focused tab by default). Closing the focused tab leaves no tab focused: call focus_tab to select another.",
			false, true, `{"type":"object","properties":{"tabId":{"type":"number","description":"ID of tab to close. Defaults to focused tab."}}}`,
			`{"type":"object","properties":{"closed":{"type":"boolean"},"tabId":{"type":"number"}},"required":["closed","tabId"]}`, pr.closeTab),
	}
}

// browserName is what connect_browser calls the browser.
func browserName(s coordinator.Status) string {
	if s.Browser == nil {
		return "Chromium"
	}
	switch s.Backend {
	case state.BackendTier2:
		return "VS Code's browser view"
	case state.BackendAttach:
		return "Chromium-based browser at " + s.CDPEndpoint
	case state.BackendEveryday:
		return "Everyday browser"
	}
	switch browsers.Type(s.Browser.Type) {
	case browsers.Chrome:
		return "Chrome"
	case browsers.Edge:
		return "Edge"
	case browsers.Brave:
		return "Brave"
	case browsers.ChromeForTesting:
		return "Chrome for Testing"
	case browsers.Vivaldi:
		return "Vivaldi"
	}
	return "Chromium"
}

func (pr *progressive) connect(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := parseArgs(req, "launch")
	if err != nil {
		return toolError(err), nil
	}
	launch, _, err := a.boolean("launch")
	if err != nil {
		return toolError(err), nil
	}
	const instructions = "Call connect_browser with launch: true to launch a browser, or start browser-coordinator with --cdp-endpoint to attach to one that runs with remote debugging."
	if pr.isConnected() && pr.backendKey() == pr.c.BackendKey() {
		// Connected already: nothing changes.
		tabs, err := pr.recount(ctx)
		if err == nil {
			return pr.success(len(tabs)), nil
		}
	}
	st := pr.c.Status()
	there := st.State == coordinator.Running || st.Backend != state.BackendTier1
	if !there && !launch {
		return answer(map[string]any{"connected": false, "error": "No browser found", "instructions": instructions}), nil
	}
	fresh := st.State != coordinator.Running && st.Backend == state.BackendTier1
	if _, err := pr.c.Ensure(ctx); err != nil {
		return answer(map[string]any{"connected": false, "error": pr.words.Error(err), "instructions": instructions}), nil
	}
	hidden := map[string]bool{}
	if fresh {
		// The launched browser's first page is blank: not a tab the agent
		// opened. It is reused by the first open_tab.
		if tabs, err := pr.c.RunningTabs(ctx); err == nil {
			for _, t := range tabs {
				if cdp.IsBlank(t.URL) {
					hidden[t.ID] = true
				}
			}
		}
	}
	pr.mu.Lock()
	pr.connected, pr.backend, pr.hidden = true, pr.c.BackendKey(), hidden
	pr.mu.Unlock()
	if err := pr.p.tr.SetActive(ctx, true); err != nil {
		return toolError(err), nil
	}
	tabs, err := pr.recount(ctx)
	if err != nil {
		pr.disconnect(ctx)
		return answer(map[string]any{"connected": false, "error": pr.words.Error(err), "instructions": instructions}), nil
	}
	pr.p.refresh()
	return pr.success(len(tabs)), nil
}

// success is connect_browser's answer when a browser is connected.
func (pr *progressive) success(tabCount int) *mcp.CallToolResult {
	if err := pr.c.Disconnected(); err != nil {
		return answer(map[string]any{"connected": false, "error": pr.words.Error(err)}) // the error says what to do
	}
	st := pr.c.Status()
	version := ""
	if st.Browser != nil {
		version = st.Browser.Version
	}
	return answer(map[string]any{"connected": true, "browser": map[string]any{"name": browserName(st), "version": version}, "tabCount": tabCount})
}

func (pr *progressive) listTabs(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if _, err := parseArgs(req); err != nil {
		return toolError(err), nil
	}
	if !pr.isConnected() {
		return pr.notConnected("list_tabs"), nil
	}
	_ = pr.p.tr.Sync(ctx)
	tabs, err := pr.recount(ctx)
	if err == nil {
		err = pr.c.Disconnected() // the user's browser away: its tabs cannot be seen, not none
	}
	if err != nil {
		return toolError(fmt.Errorf("list_tabs: %w", err)), nil
	}
	snap := pr.p.tr.Snapshot()
	peeked := pr.p.tr.Peek(ctx, tabs)
	type item struct {
		ID        int    `json:"id"`
		Title     string `json:"title"`
		URL       string `json:"url"`
		Focused   bool   `json:"focused"`
		ToolCount *int   `json:"toolCount,omitempty"`
	}
	items := []item{}
	var focused any // null when none, as the seed says
	for _, t := range boundTabs(tabs) {
		it := item{ID: pr.num(t.ID), Title: t.Title, URL: t.URL, Focused: t.ID == snap.TabID}
		if tools, ok := peeked[t.ID]; ok {
			n := len(tools)
			it.ToolCount = &n
		}
		if it.Focused {
			focused = it.ID
		}
		items = append(items, it)
	}
	pr.p.refresh()
	return answer(map[string]any{"tabs": items, "focusedTabId": focused}), nil
}

func (pr *progressive) openTab(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	u, focus, err := openTabArgs(req, "open_tab")
	if err != nil {
		return toolError(err), nil
	}
	if !pr.isConnected() {
		return pr.notConnected("open_tab"), nil
	}
	if err := pr.c.CheckOpen(u); err != nil { // the blank tab reused below is loaded directly
		return toolError(fmt.Errorf("open_tab: %w", err)), nil
	}
	var id string
	if focus && !cdp.IsBlank(u) {
		// Followed from before its first byte: a dialog the page opens as
		// it loads is seen (handle_dialog is listed) and answerable.
		id, err = pr.openFollowed(ctx, u)
	} else {
		id, err = pr.reuseBlank(ctx, u, focus)
	}
	if err != nil {
		return toolError(fmt.Errorf("open_tab: %w", err)), nil
	}
	if id == "" {
		tab, err := pr.c.OpenTab(ctx, u, focus)
		if err != nil {
			return toolError(fmt.Errorf("open_tab: %w", err)), nil
		}
		id = tab.ID
	}
	n := pr.num(id)
	var snapURL, title string
	tools := []string{}
	if focus {
		f, err := pr.p.tr.Focus(ctx, id, u)
		if err != nil {
			return toolError(fmt.Errorf("open_tab: the tab opened (id %d) but cannot be focused: %w", n, err)), nil
		}
		snapURL, title, tools = f.URL, f.Title, pr.p.names(pagetools.Names(f.Tools))
		pr.p.show(ctx, f.Shown(), pagetools.Names(f.Tools))
	} else if found, err := pr.p.tr.PeekTab(ctx, id, u); err == nil {
		tools = pagetools.Names(found.Tools)
	}
	shown, _ := pr.recount(ctx)
	for _, t := range shown {
		if t.ID == id {
			if snapURL == "" {
				snapURL = t.URL
			}
			if title == "" {
				title = t.Title
			}
		}
	}
	if snapURL == "" {
		snapURL = u
	}
	pr.p.refresh()
	return answer(map[string]any{
		"tab":            map[string]any{"id": n, "title": pagetools.Label(title, maxTitleShown), "url": clip(snapURL, maxURLShown)},
		"focused":        focus,
		"toolsAvailable": tools,
	}), nil
}

// openFollowed opens a blank tab (the launched browser's first one, when
// it is still there), focuses it, and loads u through the focused tab's
// engine.
func (pr *progressive) openFollowed(ctx context.Context, u string) (string, error) {
	id, err := pr.reuseBlank(ctx, "", true)
	if err != nil {
		return "", err
	}
	if id == "" {
		tab, err := pr.c.OpenTab(ctx, "about:blank", true)
		if errors.Is(err, coordinator.ErrNeedsURL) {
			// VS Code's Simple Browser opens only with its page: the
			// page as it is.
			if tab, err = pr.c.OpenTab(ctx, u, true); err != nil {
				return "", err
			}
			return tab.ID, nil
		}
		if err != nil {
			return "", err
		}
		id = tab.ID
	}
	if _, err := pr.p.tr.Focus(ctx, id, ""); err != nil {
		return "", fmt.Errorf("the tab opened (id %d) but cannot be focused: %w", pr.num(id), err)
	}
	if err := pr.p.tr.Navigate(ctx, id, u); err != nil {
		return "", fmt.Errorf("the tab opened (id %d) but could not load %s: %w", pr.num(id), u, err)
	}
	return id, nil
}

// reuseBlank loads u ("": nothing, the tab stays blank) in the launched
// browser's first blank tab, if it is still there; it answers that tab's
// id, or "" when there is none.
func (pr *progressive) reuseBlank(ctx context.Context, u string, focus bool) (string, error) {
	pr.mu.Lock()
	var id string
	for h := range pr.hidden {
		id = h
		break
	}
	pr.mu.Unlock()
	if id == "" {
		return "", nil
	}
	sess, err := pr.c.AttachRunningTab(ctx, id, nil)
	if err != nil {
		pr.mu.Lock()
		delete(pr.hidden, id) // gone: open a new tab instead
		pr.mu.Unlock()
		return "", nil
	}
	defer sess.Close()
	if u != "" {
		if _, err := sess.Call(ctx, "Page.navigate", map[string]any{"url": u}); err != nil {
			return "", err
		}
	}
	pr.mu.Lock()
	delete(pr.hidden, id)
	pr.mu.Unlock()
	if focus {
		if _, err := pr.c.FocusTab(ctx, id); err != nil {
			return "", err
		}
	}
	return id, nil
}

func (pr *progressive) focusTab(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := parseArgs(req, "tabId")
	if err != nil {
		return toolError(err), nil
	}
	raw, ok := a.m["tabId"]
	if !ok || raw == nil {
		return toolError(errors.New("focus_tab: tabId is required (list_tabs shows the open tabs and their ids)")), nil
	}
	if !pr.isConnected() {
		return pr.notConnected("focus_tab"), nil
	}
	tabs, err := pr.recount(ctx)
	if err != nil {
		return toolError(err), nil
	}
	id, err := pr.target("focus_tab", raw, tabs)
	if err != nil {
		return toolError(err), nil
	}
	if _, err := pr.c.FocusTab(ctx, id); err != nil {
		return toolError(fmt.Errorf("focus_tab: %w", err)), nil
	}
	f, err := pr.p.tr.Focus(ctx, id, "")
	if err != nil {
		return toolError(fmt.Errorf("focus_tab: %w", err)), nil
	}
	pr.p.refresh()
	pr.p.show(ctx, f.Shown(), pagetools.Names(f.Tools))
	return answer(map[string]any{
		"success":        true,
		"tab":            map[string]any{"id": pr.num(id), "title": pagetools.Label(f.Title, maxTitleShown), "url": clip(f.URL, maxURLShown)},
		"toolsAvailable": pr.p.names(pagetools.Names(f.Tools)),
	}), nil
}

func (pr *progressive) closeTab(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := parseArgs(req, "tabId")
	if err != nil {
		return toolError(err), nil
	}
	if !pr.isConnected() {
		return pr.notConnected("close_tab"), nil
	}
	tabs, err := pr.recount(ctx)
	if err != nil {
		return toolError(err), nil
	}
	var id string
	if raw, ok := a.m["tabId"]; ok && raw != nil {
		if id, err = pr.target("close_tab", raw, tabs); err != nil {
			return toolError(err), nil
		}
	} else if id = pr.p.tr.Snapshot().TabID; id == "" {
		return toolError(errors.New("close_tab: no tab is focused; pass tabId (list_tabs shows the open tabs and their ids)")), nil
	}
	done := pr.p.tr.Closing(ctx, id)
	err = pr.c.CloseTab(ctx, id)
	done(err == nil)
	if err != nil {
		return toolError(fmt.Errorf("close_tab: %w", err)), nil
	}
	_, _ = pr.recount(ctx)
	pr.p.refresh()
	return answer(map[string]any{"closed": true, "tabId": pr.num(id)}), nil
}
