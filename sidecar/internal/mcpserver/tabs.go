package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
	"github.com/mark3labs/mcp-go/mcp"
)

// The tab tools, in the seed's tab model: the focused tab is the tab in
// front (its page tools are the ones in use), each tab says how many tools
// its page has, and opening or focusing a tab answers its tools.

const tabItemSchema = `{"type":"object","properties":{
	"id":{"type":"string"},"title":{"type":"string"},"url":{"type":"string"},
	"focused":{"type":"boolean","description":"the focused tab: the one in front, whose page tools are in use"},
	"toolCount":{"type":"integer","description":"how many page tools its page has; absent when they could not be found in time"}
},"required":["id","url","focused"]}`

const tabsSchema = `{"type":"object","properties":{
	"tabs":{"type":"array","items":` + tabItemSchema + `},
	"focusedTabId":{"type":"string","description":"the focused tab; absent when none is"}
},"required":["tabs"]}`

const tabSchema = `{"type":"object","properties":{
	"id":{"type":"string"},"title":{"type":"string"},"url":{"type":"string"},
	"focused":{"type":"boolean"},
	"toolsAvailable":{"type":"array","items":{"type":"string"},"description":"the tab's page tools"},
	"dialog":` + dialogSchema + `
},"required":["id","url","focused"]}`

// tabItem is one tab as the tab tools show it.
type tabItem struct {
	ID             string            `json:"id"`
	Title          string            `json:"title"`
	URL            string            `json:"url"`
	Focused        bool              `json:"focused"`
	ToolCount      *int              `json:"toolCount,omitempty"`
	ToolsAvailable []string          `json:"toolsAvailable,omitempty"`
	Dialog         *pagetools.Dialog `json:"dialog,omitempty"`
	dialogText     string
}

func (h *handlers) tabTools() []toolDef {
	pagesNote := ""
	if h.pages != nil {
		pagesNote = " Its page tools are the ones in use."
	}
	return []toolDef{
		{newTool("coordinator_list_tabs", "List tabs",
			"List the browser's open tabs (id, title, url), which one is focused (the tab in front), and how many page tools each page has. Starts the browser if it is not running.",
			true, false, true, `{"type":"object","properties":{},"additionalProperties":false}`, tabsSchema),
			h.listTabs},
		{newTool("coordinator_open_tab", "Open a tab",
			"Open a new tab at url; with focus (the default) it comes to the front and becomes the focused tab."+pagesNote+" Answers the page's tools. Starts the browser if it is not running.",
			false, false, false, `{"type":"object","properties":{
				"url":{"type":"string","description":"Page to open (http, https, file, about or data URL)."},
				"focus":{"type":"boolean","default":true,"description":"Bring the new tab to the front and focus it."}
			},"required":["url"],"additionalProperties":false}`, tabSchema),
			h.openTab},
		{newTool("coordinator_focus_tab", "Focus a tab",
			"Bring the tab with this id (from coordinator_list_tabs) to the front: it becomes the focused tab."+pagesNote+" Answers the page's tools.",
			false, false, true, `{"type":"object","properties":{
				"tabId":{"type":"string","description":"The tab's id from coordinator_list_tabs."}
			},"required":["tabId"],"additionalProperties":false}`, tabSchema),
			h.focusTab},
		{newTool("coordinator_close_tab", "Close a tab",
			"Close the tab with this id (from coordinator_list_tabs), or the focused tab when no id is given. Closing the focused tab leaves no tab focused until another comes to the front.",
			false, true, false, `{"type":"object","properties":{
				"tabId":{"type":"string","description":"The tab's id from coordinator_list_tabs; default: the focused tab."}
			},"additionalProperties":false}`, `{"type":"object","properties":{"closed":{"type":"string"}},"required":["closed"]}`),
			h.closeTab},
	}
}

// focusedTab is the focused tab's id: the page tools' focus, or without
// page tools the tab in front.
func (h *handlers) focusedTab(ctx context.Context, tabs []coordinator.Tab) string {
	if h.pages != nil {
		_ = h.pages.tr.Sync(ctx)
		return h.pages.tr.Snapshot().TabID
	}
	for _, t := range tabs {
		if t.Front {
			return t.ID
		}
	}
	return ""
}

func renderTabs(tabs []tabItem) string {
	if len(tabs) == 0 {
		return "No tabs open."
	}
	var b strings.Builder
	for _, t := range tabs {
		mark := " "
		if t.Focused {
			mark = "*"
		}
		tools := ""
		if t.ToolCount != nil {
			tools = fmt.Sprintf("  (%d page tools)", *t.ToolCount)
		}
		fmt.Fprintf(&b, "%s %s  %s  %s%s\n", mark, t.ID, orDash(t.Title), t.URL, tools)
	}
	return strings.TrimSpace(b.String()) + "\n(* = focused)"
}

func (h *handlers) listTabs(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if _, err := parseArgs(req); err != nil {
		return toolError(err), nil
	}
	tabs, err := h.c.Tabs(ctx)
	if err != nil {
		return toolError(err), nil
	}
	focused := h.focusedTab(ctx, tabs)
	var counts map[string]int
	if h.pages != nil {
		counts = map[string]int{}
		for id, tools := range h.pages.tr.Peek(ctx, tabs) {
			counts[id] = len(tools)
		}
	}
	items := make([]tabItem, 0, len(tabs))
	for _, t := range boundTabs(tabs) {
		it := tabItem{ID: t.ID, Title: t.Title, URL: t.URL, Focused: t.ID == focused}
		if n, ok := counts[t.ID]; ok {
			it.ToolCount = &n
		}
		items = append(items, it)
	}
	out := map[string]any{"tabs": items}
	if focused != "" {
		out["focusedTabId"] = focused
	}
	return mcp.NewToolResultStructured(out, renderTabs(items)), nil
}

// tabAnswer is a tab the agent opened or focused, with its page tools.
// The focused tab's tools it names are what the session was shown (a tab
// that is not focused has none to call).
func (h *handlers) tabAnswer(ctx context.Context, tab coordinator.Tab, focus bool, wantURL string) tabItem {
	it := tabItem{ID: tab.ID, Title: tab.Title, URL: tab.URL, Focused: focus}
	if h.pages == nil {
		return boundItem(it)
	}
	if focus {
		f, err := h.pages.tr.Focus(ctx, tab.ID, wantURL)
		h.pages.refresh() // tools/list says so before the answer does
		if err == nil && f.TabID == tab.ID {
			it.ToolsAvailable = h.pages.names(pagetools.Names(f.Tools))
			it.URL, it.Title = f.URL, f.Title
			if f.Dialog != nil {
				it.Dialog, it.dialogText = f.Dialog, h.pages.dialogText(f.Dialog)
			}
			h.pages.show(ctx, f.Shown(), pagetools.Names(f.Tools))
		} else {
			it.Focused = false
		}
	} else if peeked, err := h.pages.tr.PeekTab(ctx, tab.ID, wantURL); err == nil {
		it.ToolsAvailable = pagetools.Names(peeked.Tools)
	}
	if it.ToolsAvailable == nil {
		it.ToolsAvailable = []string{}
	}
	return boundItem(it)
}

// boundItem bounds what a tab's page chose (its URL and title) and labels
// its title as the page's text.
func boundItem(it tabItem) tabItem {
	it.URL = clip(it.URL, maxURLShown)
	it.Title = pagetools.Label(it.Title, maxTitleShown)
	return it
}

func renderTab(verb string, it tabItem) string {
	s := fmt.Sprintf("%s tab %s at %s", verb, it.ID, it.URL)
	if it.Focused {
		s += " (focused)"
	}
	if it.ToolsAvailable != nil {
		s += fmt.Sprintf("\nIts page tools: %s", listOr(it.ToolsAvailable, "none"))
	}
	if it.dialogText != "" {
		s += "\n" + it.dialogText
	}
	return s
}

func (h *handlers) openTab(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	u, focus, err := openTabArgs(req, "coordinator_open_tab")
	if err != nil {
		return toolError(err), nil
	}
	if h.pages != nil && focus && !cdp.IsBlank(u) {
		return h.openFollowed(ctx, u), nil
	}
	tab, err := h.c.OpenTab(ctx, u, focus)
	if err != nil {
		return toolError(err), nil
	}
	it := h.tabAnswer(ctx, tab, focus, u)
	return mcp.NewToolResultStructured(it, renderTab("Opened", it)), nil
}

// openFollowed opens a blank tab, focuses it (its engine attached) and
// only then loads u through the engine's session: a dialog the page opens
// as it loads is seen, said and can be answered (a session attached after
// a dialog opened can do neither).
func (h *handlers) openFollowed(ctx context.Context, u string) *mcp.CallToolResult {
	if err := h.c.CheckOpen(u); err != nil {
		return toolError(err)
	}
	tab, err := h.c.OpenTab(ctx, "about:blank", true)
	if errors.Is(err, coordinator.ErrNeedsURL) {
		// VS Code's Simple Browser opens only with its page: the page as
		// it is (a dialog during this load is seen by the next call).
		if tab, err = h.c.OpenTab(ctx, u, true); err != nil {
			return toolError(err)
		}
		it := h.tabAnswer(ctx, tab, true, u)
		return mcp.NewToolResultStructured(it, renderTab("Opened", it))
	}
	if err != nil {
		return toolError(err)
	}
	if _, err := h.pages.tr.Focus(ctx, tab.ID, ""); err != nil {
		return toolError(fmt.Errorf("coordinator_open_tab: opened tab %s, but could not follow its page: %w", tab.ID, err))
	}
	if err := h.pages.tr.Navigate(ctx, tab.ID, u); err != nil {
		return toolError(fmt.Errorf("coordinator_open_tab: opened tab %s, but could not load %s in it: %w", tab.ID, u, err))
	}
	tab.URL = u
	it := h.tabAnswer(ctx, tab, true, u)
	if it.Title == "" {
		// A page slow to look at: its title as the browser has it.
		if tabs, err := h.c.RunningTabs(ctx); err == nil {
			for _, t := range tabs {
				if t.ID == tab.ID && t.Title != "" && !cdp.IsBlank(t.URL) {
					it.Title = pagetools.Label(t.Title, maxTitleShown)
				}
			}
		}
	}
	return mcp.NewToolResultStructured(it, renderTab("Opened", it))
}

func (h *handlers) focusTab(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, err := tabID(req, "coordinator_focus_tab", true)
	if err != nil {
		return toolError(err), nil
	}
	tab, err := h.c.FocusTab(ctx, id)
	if err != nil {
		return toolError(fmt.Errorf("%w; see coordinator_list_tabs for the open tabs", err)), nil
	}
	it := h.tabAnswer(ctx, tab, true, "")
	return mcp.NewToolResultStructured(it, renderTab("Focused", it)), nil
}

func (h *handlers) closeTab(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, err := tabID(req, "coordinator_close_tab", false)
	if err != nil {
		return toolError(err), nil
	}
	if id == "" {
		tabs, err := h.c.Tabs(ctx)
		if err != nil {
			return toolError(err), nil
		}
		if id = h.focusedTab(ctx, tabs); id == "" {
			return toolError(fmt.Errorf("coordinator_close_tab: no tab is focused; pass tabId (see coordinator_list_tabs)")), nil
		}
	}
	done := func(bool) {}
	if h.pages != nil {
		done = h.pages.tr.Closing(ctx, id)
	}
	err = h.c.CloseTab(ctx, id)
	done(err == nil)
	if err != nil {
		return toolError(fmt.Errorf("%w; see coordinator_list_tabs for the open tabs", err)), nil
	}
	if h.pages != nil {
		h.pages.refresh()
	}
	return mcp.NewToolResultStructured(map[string]any{"closed": id}, "Closed tab "+id), nil
}

func tabID(req mcp.CallToolRequest, tool string, required bool) (string, error) {
	a, err := parseArgs(req, "tabId")
	if err != nil {
		return "", err
	}
	id, ok, err := a.str("tabId")
	if err != nil {
		return "", err
	}
	if required && (!ok || id == "") {
		return "", fmt.Errorf("%s: tabId is required (see coordinator_list_tabs)", tool)
	}
	return id, nil
}

// openTabArgs reads an open_tab call's arguments: a url the coordinator
// may open, and focus (true unless said otherwise).
func openTabArgs(req mcp.CallToolRequest, tool string) (u string, focus bool, err error) {
	a, err := parseArgs(req, "url", "focus")
	if err != nil {
		return "", false, err
	}
	u, ok, err := a.str("url")
	if err != nil {
		return "", false, err
	}
	if !ok {
		return "", false, fmt.Errorf("%s: url is required", tool)
	}
	if err := coordinator.CheckURL(u); err != nil {
		return "", false, fmt.Errorf("%s: %w", tool, err)
	}
	focus, hasFocus, err := a.boolean("focus")
	if err != nil {
		return "", false, err
	}
	return u, focus || !hasFocus, nil
}
