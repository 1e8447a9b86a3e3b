package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
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

// progressive is 002's tools over the seed's state, the focus tracker and
// the page surface.
type progressive struct {
	c     *coordinator.Coordinator
	tabs  *coordinator.Agent // whose tabs (Options.Agent)
	st    *seedState
	p     *pageSurface
	words remedy.Words // this surface's (Words)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// start follows the coordinator's events until stop.
func (pr *progressive) start() {
	pr.ctx, pr.cancel = context.WithCancel(context.Background())
	events, unsub := pr.c.Subscribe()
	pr.wg.Go(func() {
		defer unsub()
		follow(pr.ctx, events, pr.onEvent)
	})
}

func (pr *progressive) stop() {
	pr.cancel()
	pr.wg.Wait()
}

// onEvent: the browser changed, or its tabs did (the user opens or closes
// one, a page navigates).
func (pr *progressive) onEvent() {
	if !pr.st.isConnected() {
		return
	}
	ctx, cancel := context.WithTimeout(pr.ctx, 10*time.Second)
	defer cancel()
	if pr.c.BackendKey() != pr.st.backendKey() {
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

// disconnect: the browser went (or changed): back to DISCONNECTED.
func (pr *progressive) disconnect(ctx context.Context) {
	pr.st.disconnect()
	_ = pr.p.tr.SetActive(ctx, false)
}

// recount lists the tabs shown and keeps their number.
func (pr *progressive) recount(ctx context.Context) ([]coordinator.Tab, error) {
	tabs, err := pr.tabs.RunningTabs(ctx)
	if err != nil {
		return nil, err
	}
	return pr.st.shown(tabs), nil
}

// The seed's arguments: their schemas are the seed's input schemas,
// exactly (no additionalProperties).
type (
	connectArgs struct {
		Launch bool `json:"launch,omitempty" jsonschema:"Launch new browser instance if none found"`
	}
	seedOpenArgs struct {
		URL   string `json:"url" jsonschema:"URL to open"`
		Focus *bool  `json:"focus,omitempty" jsonschema:"Focus the new tab after opening"`
	}
	seedFocusArgs struct {
		TabID float64 `json:"tabId" jsonschema:"ID of the tab to focus"`
	}
	seedCloseArgs struct {
		TabID *float64 `json:"tabId,omitempty" jsonschema:"ID of tab to close. Defaults to focused tab."`
	}
)

// The seed's answers. Their text is their JSON, with the fields in the
// order these answers have always been written in: by name.
type (
	connectAnswer struct {
		Browser      *seedBrowser `json:"browser,omitempty"`
		Connected    bool         `json:"connected"`
		Error        string       `json:"error,omitempty"`
		Instructions string       `json:"instructions,omitempty"`
		TabCount     *int         `json:"tabCount,omitempty"`
	}
	seedBrowser struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	seedTabList struct {
		FocusedTabID any          `json:"focusedTabId" jsonschema:"the focused tab's id, or null when no tab is focused"`
		Tabs         []seedTabRow `json:"tabs"`
	}
	seedTabRow struct {
		ID        int    `json:"id"`
		Title     string `json:"title"`
		URL       string `json:"url"`
		Focused   bool   `json:"focused"`
		ToolCount *int   `json:"toolCount,omitempty" jsonschema:"absent when the tab's tools could not be found in time"`
	}
	seedTab struct {
		ID    int    `json:"id"`
		Title string `json:"title"`
		URL   string `json:"url"`
	}
	seedOpened struct {
		Focused        bool     `json:"focused"`
		Tab            seedTab  `json:"tab"`
		ToolsAvailable []string `json:"toolsAvailable"`
	}
	seedFocused struct {
		Success        bool     `json:"success"`
		Tab            seedTab  `json:"tab"`
		ToolsAvailable []string `json:"toolsAvailable"`
	}
	seedClosed struct {
		Closed bool `json:"closed"`
		TabID  int  `json:"tabId"`
	}
)

// tools are the seed's, in the seed's order.
func (pr *progressive) tools() []toolDef {
	return []toolDef{
		typed(spec{name: "connect_browser", title: "Connect to a browser",
			description: "Establish connection to browser (attach to existing or launch new). Answers the browser's name and version and how many tabs it has; then list_tabs and open_tab appear.",
			openWorld:   true, openInput: true, in: about{"launch": {def: false}}}, pr.connect),
		typed(spec{name: "list_tabs", title: "List tabs",
			description: "See all open tabs without loading their tools: id, title, url, whether it is focused (its tools are loaded) and how many tools its page has (toolCount helps decide whether to focus it).",
			readOnly:    true, openInput: true}, pr.listTabs),
		typed(spec{name: "open_tab", title: "Open a tab",
			description: "Open a new browser tab. With focus (the default) it is focused and its page tools appear; answers the tools available on its page.",
			openWorld:   true, openInput: true, in: about{"focus": {def: true}}}, pr.openTab),
		typed(spec{name: "focus_tab", title: "Focus a tab",
			description: "Switch focus to a different tab, loading its tools: the previous tab's tools disappear and the new tab's appear.",
			openWorld:   true, openInput: true, needs: "list_tabs shows the open tabs and their ids"}, pr.focusTab),
		typed(spec{name: "close_tab", title: "Close a tab",
			description: "Close a tab (the focused tab by default). Closing the focused tab leaves no tab focused: call focus_tab to select another.",
			destructive: true, openWorld: true, openInput: true}, pr.closeTab),
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

func (pr *progressive) connect(ctx context.Context, a connectArgs) (connectAnswer, string, error) {
	const instructions = "Call connect_browser with launch: true to launch a browser, or start browser-coordinator with --cdp-endpoint to attach to one that runs with remote debugging."
	if pr.st.isConnected() && pr.st.backendKey() == pr.c.BackendKey() {
		// Connected already: nothing changes.
		tabs, err := pr.recount(ctx)
		if err == nil {
			return asJSON(pr.success(len(tabs)))
		}
	}
	st := pr.c.Status()
	there := st.State == coordinator.Running || st.Backend != state.BackendTier1
	if !there && !a.Launch {
		return asJSON(connectAnswer{Error: "No browser found", Instructions: instructions})
	}
	fresh := st.State != coordinator.Running && st.Backend == state.BackendTier1
	if _, err := pr.c.Ensure(ctx); err != nil {
		return asJSON(connectAnswer{Error: pr.words.Error(err), Instructions: instructions})
	}
	hidden := map[string]bool{}
	if fresh {
		// The launched browser's first page is blank: not a tab the agent
		// opened. It is reused by the first open_tab.
		if tabs, err := pr.tabs.RunningTabs(ctx); err == nil {
			for _, t := range tabs {
				if cdp.IsBlank(t.URL) {
					hidden[t.ID] = true
				}
			}
		}
	}
	pr.st.connect(pr.c.BackendKey(), hidden)
	if err := pr.p.tr.SetActive(ctx, true); err != nil {
		return connectAnswer{}, "", err
	}
	tabs, err := pr.recount(ctx)
	if err != nil {
		pr.disconnect(ctx)
		return asJSON(connectAnswer{Error: pr.words.Error(err), Instructions: instructions})
	}
	pr.p.refresh()
	return asJSON(pr.success(len(tabs)))
}

// success is connect_browser's answer when a browser is connected.
func (pr *progressive) success(tabCount int) connectAnswer {
	if err := pr.c.Disconnected(); err != nil {
		return connectAnswer{Error: pr.words.Error(err)} // the error says what to do
	}
	st := pr.c.Status()
	version := ""
	if st.Browser != nil {
		version = st.Browser.Version
	}
	return connectAnswer{Connected: true, Browser: &seedBrowser{Name: browserName(st), Version: version}, TabCount: &tabCount}
}

func (pr *progressive) listTabs(ctx context.Context, _ noArgs) (seedTabList, string, error) {
	if err := pr.st.ready("list_tabs"); err != nil {
		return seedTabList{}, "", err
	}
	_ = pr.p.tr.Sync(ctx)
	tabs, err := pr.recount(ctx)
	if err == nil {
		err = pr.c.Disconnected() // the user's browser away: its tabs cannot be seen, not none
	}
	if err != nil {
		return seedTabList{}, "", fmt.Errorf("list_tabs: %w", err)
	}
	snap := pr.p.tr.Snapshot()
	peeked := pr.p.tr.Peek(ctx, tabs)
	out := seedTabList{Tabs: []seedTabRow{}} // focusedTabId: null when none, as the seed says
	for _, t := range boundTabs(tabs) {
		row := seedTabRow{ID: pr.st.num(t.ID), Title: t.Title, URL: t.URL, Focused: t.ID == snap.TabID}
		if tools, ok := peeked[t.ID]; ok {
			n := len(tools)
			row.ToolCount = &n
		}
		if row.Focused {
			out.FocusedTabID = row.ID
		}
		out.Tabs = append(out.Tabs, row)
	}
	pr.p.refresh()
	return asJSON(out)
}

func (pr *progressive) openTab(ctx context.Context, a seedOpenArgs) (seedOpened, string, error) {
	u, focus, err := openTarget("open_tab", a.URL, a.Focus)
	if err != nil {
		return seedOpened{}, "", err
	}
	if err := pr.st.ready("open_tab"); err != nil {
		return seedOpened{}, "", err
	}
	if err := pr.c.CheckOpen(u); err != nil { // the blank tab reused below is loaded directly
		return seedOpened{}, "", fmt.Errorf("open_tab: %w", err)
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
		return seedOpened{}, "", fmt.Errorf("open_tab: %w", err)
	}
	if id == "" {
		tab, err := pr.tabs.OpenTab(ctx, u, focus)
		if err != nil {
			return seedOpened{}, "", fmt.Errorf("open_tab: %w", err)
		}
		id = tab.ID
	}
	n := pr.st.num(id)
	var snapURL, title string
	tools := []string{}
	if focus {
		f, err := pr.p.tr.Focus(ctx, id, u)
		if err != nil {
			return seedOpened{}, "", fmt.Errorf("open_tab: the tab opened (id %d) but cannot be focused: %w", n, err)
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
	return asJSON(seedOpened{
		Tab:            seedTab{ID: n, Title: pagetools.Label(title, maxTitleShown), URL: clip(snapURL, maxURLShown)},
		Focused:        focus,
		ToolsAvailable: tools,
	})
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
		tab, err := pr.tabs.OpenTab(ctx, "about:blank", true)
		if errors.Is(err, coordinator.ErrNeedsURL) {
			// VS Code's Simple Browser opens only with its page: the
			// page as it is.
			if tab, err = pr.tabs.OpenTab(ctx, u, true); err != nil {
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
		return "", fmt.Errorf("the tab opened (id %d) but cannot be focused: %w", pr.st.num(id), err)
	}
	if err := pr.p.tr.Navigate(ctx, id, u); err != nil {
		return "", fmt.Errorf("the tab opened (id %d) but could not load %s: %w", pr.st.num(id), u, err)
	}
	return id, nil
}

// reuseBlank loads u ("": nothing, the tab stays blank) in the launched
// browser's first blank tab, if it is still there; it answers that tab's
// id, or "" when there is none.
func (pr *progressive) reuseBlank(ctx context.Context, u string, focus bool) (string, error) {
	id := pr.st.aHidden()
	if id == "" {
		return "", nil
	}
	sess, err := pr.tabs.AttachRunningTab(ctx, id, nil)
	if err != nil {
		pr.st.unhide(id) // gone: open a new tab instead
		return "", nil
	}
	defer sess.Close()
	if u != "" {
		if _, err := sess.Call(ctx, "Page.navigate", map[string]any{"url": u}); err != nil {
			return "", err
		}
	}
	pr.st.unhide(id)
	if focus {
		if _, err := pr.tabs.FocusTab(ctx, id); err != nil {
			return "", err
		}
	}
	return id, nil
}

// named is the tab a tool's tabId names among the tabs open now, or with
// none the focused tab; first of all, a browser must be connected.
func (pr *progressive) named(ctx context.Context, tool string, tabID *float64) (string, error) {
	if err := pr.st.ready(tool); err != nil {
		return "", err
	}
	tabs, err := pr.recount(ctx)
	if err != nil {
		return "", err
	}
	if tabID != nil {
		return pr.st.target(tool, *tabID, tabs)
	}
	if id := pr.p.tr.Snapshot().TabID; id != "" {
		return id, nil
	}
	return "", errors.New(tool + ": no tab is focused; pass tabId (list_tabs shows the open tabs and their ids)")
}

func (pr *progressive) focusTab(ctx context.Context, a seedFocusArgs) (seedFocused, string, error) {
	id, err := pr.named(ctx, "focus_tab", &a.TabID)
	if err != nil {
		return seedFocused{}, "", err
	}
	if _, err := pr.tabs.FocusTab(ctx, id); err != nil {
		return seedFocused{}, "", fmt.Errorf("focus_tab: %w", err)
	}
	f, err := pr.p.tr.Focus(ctx, id, "")
	if err != nil {
		return seedFocused{}, "", fmt.Errorf("focus_tab: %w", err)
	}
	pr.p.refresh()
	pr.p.show(ctx, f.Shown(), pagetools.Names(f.Tools))
	return asJSON(seedFocused{
		Success:        true,
		Tab:            seedTab{ID: pr.st.num(id), Title: pagetools.Label(f.Title, maxTitleShown), URL: clip(f.URL, maxURLShown)},
		ToolsAvailable: pr.p.names(pagetools.Names(f.Tools)),
	})
}

func (pr *progressive) closeTab(ctx context.Context, a seedCloseArgs) (seedClosed, string, error) {
	id, err := pr.named(ctx, "close_tab", a.TabID)
	if err != nil {
		return seedClosed{}, "", err
	}
	done := pr.p.tr.Closing(ctx, id)
	err = pr.tabs.CloseTab(ctx, id)
	done(err == nil)
	if err != nil {
		return seedClosed{}, "", fmt.Errorf("close_tab: %w", err)
	}
	_, _ = pr.recount(ctx)
	pr.p.refresh()
	return asJSON(seedClosed{Closed: true, TabID: pr.st.num(id)})
}
