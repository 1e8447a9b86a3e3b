package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
)

// The tab tools, in the seed's tab model: the focused tab is the tab in
// front (its page tools are the ones in use), each tab says how many tools
// its page has, and opening or focusing a tab answers its tools.

// tabRow is one tab as coordinator_list_tabs shows it.
type tabRow struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	URL       string `json:"url"`
	Focused   bool   `json:"focused" jsonschema:"the focused tab: the one in front, whose page tools are in use"`
	ToolCount *int   `json:"toolCount,omitempty" jsonschema:"how many page tools its page has; absent when they could not be found in time"`
}

type tabList struct {
	Tabs         []tabRow `json:"tabs"`
	FocusedTabID string   `json:"focusedTabId,omitempty" jsonschema:"the focused tab; absent when none is"`
}

// tabAnswer is a tab the agent opened or focused, with its page tools.
type tabAnswer struct {
	ID             string            `json:"id"`
	Title          string            `json:"title"`
	URL            string            `json:"url"`
	Focused        bool              `json:"focused"`
	ToolsAvailable []string          `json:"toolsAvailable,omitempty" jsonschema:"the tab's page tools"`
	Dialog         *pagetools.Dialog `json:"dialog,omitempty"`
	dialogText     string
	toolsUnknown   string // why its tools could not be found (none said: unknown is not none)
}

type closedTab struct {
	Closed string `json:"closed"`
}

type openTabArgs struct {
	URL   string `json:"url" jsonschema:"Page to open (http, https, file, about or data URL)."`
	Focus *bool  `json:"focus,omitempty" jsonschema:"Bring the new tab to the front and focus it."`
}

type focusTabArgs struct {
	TabID string `json:"tabId" jsonschema:"The tab's id from coordinator_list_tabs."`
}

type closeTabArgs struct {
	TabID string `json:"tabId,omitempty" jsonschema:"The tab's id from coordinator_list_tabs; default: the focused tab."`
}

func (h *handlers) tabTools() []toolDef {
	pagesNote := ""
	if h.pages != nil {
		pagesNote = " Its page tools are the ones in use."
	}
	return []toolDef{
		typed(spec{name: "coordinator_list_tabs", title: "List tabs",
			description: "List the browser's open tabs (id, title, url), which one is focused (the tab in front), and how many page tools each page has. Starts the browser if it is not running.",
			readOnly:    true, idem: true}, h.listTabs),
		typed(spec{name: "coordinator_open_tab", title: "Open a tab",
			description: "Open a new tab at url; with focus (the default) it comes to the front and becomes the focused tab." + pagesNote + " Answers the page's tools. Starts the browser if it is not running.",
			in:          about{"focus": {def: true}}, out: under("dialog", dialogAbout)}, h.openTab),
		typed(spec{name: "coordinator_focus_tab", title: "Focus a tab",
			description: "Bring the tab with this id (from coordinator_list_tabs) to the front: it becomes the focused tab." + pagesNote + " Answers the page's tools.",
			idem:        true, needs: "see coordinator_list_tabs", out: under("dialog", dialogAbout)}, h.focusTab),
		typed(spec{name: "coordinator_close_tab", title: "Close a tab",
			description: "Close the tab with this id (from coordinator_list_tabs), or the focused tab when no id is given. Closing the focused tab leaves no tab focused until another comes to the front.",
			destructive: true}, h.closeTab),
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

func renderTabs(tabs []tabRow) string {
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

func (h *handlers) listTabs(ctx context.Context, _ noArgs) (tabList, string, error) {
	tabs, err := h.tabs.Tabs(ctx)
	if err != nil {
		return tabList{}, "", err
	}
	focused := h.focusedTab(ctx, tabs)
	var counts map[string]int
	if h.pages != nil {
		counts = map[string]int{}
		for id, tools := range h.pages.tr.Peek(ctx, tabs) {
			counts[id] = len(tools)
		}
	}
	out := tabList{Tabs: make([]tabRow, 0, len(tabs)), FocusedTabID: focused}
	for _, t := range boundTabs(tabs) {
		row := tabRow{ID: t.ID, Title: t.Title, URL: t.URL, Focused: t.ID == focused}
		if n, ok := counts[t.ID]; ok {
			row.ToolCount = &n
		}
		out.Tabs = append(out.Tabs, row)
	}
	return out, renderTabs(out.Tabs), nil
}

// answer is a tab the agent opened or focused, with its page tools. The
// focused tab's tools it names are what the session was shown (a tab that
// is not focused has none to call).
func (h *handlers) answer(ctx context.Context, tab coordinator.Tab, focus bool, wantURL string) tabAnswer {
	it := tabAnswer{ID: tab.ID, Title: tab.Title, URL: tab.URL, Focused: focus}
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
	} else {
		it.toolsUnknown = err.Error()
		return boundItem(it)
	}
	if it.ToolsAvailable == nil {
		it.ToolsAvailable = []string{}
	}
	return boundItem(it)
}

// boundItem bounds what a tab's page chose (its URL and title) and labels
// its title as the page's text.
func boundItem(it tabAnswer) tabAnswer {
	it.URL = clip(it.URL, maxURLShown)
	it.Title = pagetools.Label(it.Title, maxTitleShown)
	return it
}

func renderTab(verb string, it tabAnswer) (tabAnswer, string, error) {
	s := fmt.Sprintf("%s tab %s at %s", verb, it.ID, it.URL)
	if it.Focused {
		s += " (focused)"
	}
	if it.toolsUnknown != "" {
		s += fmt.Sprintf("\nIts page tools are not known yet (%s): %s counts them once it has loaded.", it.toolsUnknown, defaultVocab.listTabs)
	} else if it.ToolsAvailable != nil {
		s += fmt.Sprintf("\nIts page tools: %s", listOr(it.ToolsAvailable, "none"))
	}
	if it.dialogText != "" {
		s += "\n" + it.dialogText
	}
	return it, s, nil
}

func (h *handlers) openTab(ctx context.Context, a openTabArgs) (tabAnswer, string, error) {
	u, focus, err := openTarget("coordinator_open_tab", a.URL, a.Focus)
	if err != nil {
		return tabAnswer{}, "", err
	}
	if h.pages != nil && focus && !cdp.IsBlank(u) {
		return h.openFollowed(ctx, u)
	}
	tab, err := h.tabs.OpenTab(ctx, u, focus)
	if err != nil {
		return tabAnswer{}, "", err
	}
	return renderTab("Opened", h.answer(ctx, tab, focus, u))
}

// openFollowed opens a blank tab, focuses it (its engine attached) and
// only then loads u through the engine's session: a dialog the page opens
// as it loads is seen, said and can be answered (a session attached after
// a dialog opened can do neither).
func (h *handlers) openFollowed(ctx context.Context, u string) (tabAnswer, string, error) {
	if err := h.c.CheckOpen(u); err != nil {
		return tabAnswer{}, "", err
	}
	tab, err := h.tabs.OpenTab(ctx, "about:blank", true)
	if errors.Is(err, coordinator.ErrNeedsURL) {
		// VS Code's Simple Browser opens only with its page: the page as
		// it is (a dialog during this load is seen by the next call).
		if tab, err = h.tabs.OpenTab(ctx, u, true); err != nil {
			return tabAnswer{}, "", err
		}
		return renderTab("Opened", h.answer(ctx, tab, true, u))
	}
	if err != nil {
		return tabAnswer{}, "", err
	}
	if _, err := h.pages.tr.Focus(ctx, tab.ID, ""); err != nil {
		return tabAnswer{}, "", fmt.Errorf("coordinator_open_tab: opened tab %s, but could not follow its page: %w", tab.ID, err)
	}
	if err := h.pages.tr.Navigate(ctx, tab.ID, u); err != nil {
		return tabAnswer{}, "", fmt.Errorf("coordinator_open_tab: opened tab %s, but could not load %s in it: %w", tab.ID, u, err)
	}
	tab.URL = u
	it := h.answer(ctx, tab, true, u)
	if it.Title == "" {
		// A page slow to look at: its title as the browser has it.
		if tabs, err := h.tabs.RunningTabs(ctx); err == nil {
			for _, t := range tabs {
				if t.ID == tab.ID && t.Title != "" && !cdp.IsBlank(t.URL) {
					it.Title = pagetools.Label(t.Title, maxTitleShown)
				}
			}
		}
	}
	return renderTab("Opened", it)
}

func (h *handlers) focusTab(ctx context.Context, a focusTabArgs) (tabAnswer, string, error) {
	tab, err := h.tabs.FocusTab(ctx, a.TabID)
	if err != nil {
		return tabAnswer{}, "", fmt.Errorf("%w; see coordinator_list_tabs for the open tabs", err)
	}
	return renderTab("Focused", h.answer(ctx, tab, true, ""))
}

func (h *handlers) closeTab(ctx context.Context, a closeTabArgs) (closedTab, string, error) {
	id := a.TabID
	if id == "" {
		tabs, err := h.tabs.Tabs(ctx)
		if err != nil {
			return closedTab{}, "", err
		}
		if id = h.focusedTab(ctx, tabs); id == "" {
			return closedTab{}, "", errors.New("coordinator_close_tab: no tab is focused; pass tabId (see coordinator_list_tabs)")
		}
	}
	done := func(bool) {}
	if h.pages != nil {
		done = h.pages.tr.Closing(ctx, id)
	}
	err := h.tabs.CloseTab(ctx, id)
	done(err == nil)
	if err != nil {
		return closedTab{}, "", fmt.Errorf("%w; see coordinator_list_tabs for the open tabs", err)
	}
	if h.pages != nil {
		h.pages.refresh()
	}
	return closedTab{Closed: id}, "Closed tab " + id, nil
}

// openTarget checks an open_tab call's url (one the coordinator may open)
// and its focus (true unless said otherwise).
func openTarget(tool, u string, focus *bool) (string, bool, error) {
	if err := coordinator.CheckURL(u); err != nil {
		return "", false, fmt.Errorf("%s: %w", tool, err)
	}
	return u, focus == nil || *focus, nil
}
