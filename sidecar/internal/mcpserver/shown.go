package mcpserver

import (
	"context"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagefocus"
	"github.com/mark3labs/mcp-go/server"
)

// What each MCP session was shown of the page tools. A page-tool call acts
// on the page the agent was shown: the tab and the document (one
// navigation) each tool name was last shown for, to this session. The
// tracker refuses a call whose tab is no longer the focused tab, the engine
// one whose tab has navigated since (pagefocus.CallShown); nothing goes to
// another tab or page.
//
// A session is shown page tools by:
//
//   - tools/list (the default surface and the progressive one): the page
//     tools it lists, under their MCP names (and the engine's, for the
//     static pair);
//   - coordinator_page_tools (the static pair): the tools it answers, under
//     the engine's names, which coordinator_call_page_tool takes;
//   - the answers that name a tab's tools: coordinator_open_tab and
//     coordinator_focus_tab (open_tab and focus_tab in the progressive
//     surface), and every page-tool call (the tools of the page it left the
//     tab on).
//
// Each HTTP session and the stdio session are shown tools apart: what one
// agent listed binds none of another's calls.

// shownTool is one page tool as a session was shown it.
type shownTool struct {
	name string // the engine's name
	on   pagefocus.Shown
}

// seen is what one session was shown: listed by MCP name, named by the
// engine's name (the static pair's).
type seen struct {
	listed map[string]shownTool
	named  map[string]shownTool
}

// maxSeen bounds what a session remembers of each kind; past it, the
// oldest listings are forgotten (their calls ask for a new listing).
const maxSeen = 512

func sessionKey(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}

// seenLocked is the session's record, made on first use; p.mu held.
func (p *pageSurface) seenLocked(ctx context.Context) *seen {
	key := sessionKey(ctx)
	v := p.sessions[key]
	if v == nil {
		v = &seen{listed: map[string]shownTool{}, named: map[string]shownTool{}}
		p.sessions[key] = v
	}
	return v
}

func remember(m map[string]shownTool, name string, t shownTool) {
	if _, ok := m[name]; !ok && len(m) >= maxSeen {
		clear(m)
	}
	m[name] = t
}

// showListedLocked records the page tools a listing shows the session
// (listedNames: their MCP names), for calls under either name; p.mu held.
func (p *pageSurface) showListedLocked(ctx context.Context, listedNames []string) {
	v := p.seenLocked(ctx)
	for _, name := range listedNames {
		if lt, ok := p.shown[name]; ok {
			t := shownTool{name: lt.name, on: lt.on}
			remember(v.listed, name, t)
			remember(v.named, lt.name, t) // the static pair may call it too
		}
	}
}

// show records that the session was shown the tools named (the engine's
// names) of the page on, under these names and under what they are listed
// as now.
func (p *pageSurface) show(ctx context.Context, on pagefocus.Shown, names []string) {
	if on.TabID == "" {
		return
	}
	listedAs := map[string]string{}
	if p.dynamic {
		listedAs = p.shownNames()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.seenLocked(ctx)
	for _, n := range names {
		t := shownTool{name: n, on: on}
		remember(v.named, n, t)
		if mcpName, ok := listedAs[n]; ok {
			remember(v.listed, mcpName, t)
		} else {
			remember(v.listed, n, t)
		}
	}
}

// shownAs is the page tool the session was shown under name (listed: an
// MCP name; else the engine's name).
func (p *pageSurface) shownAs(ctx context.Context, name string, listed bool) (shownTool, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.sessions[sessionKey(ctx)]
	if v == nil {
		return shownTool{}, false
	}
	m := v.named
	if listed {
		m = v.listed
	}
	t, ok := m[name]
	return t, ok
}

// forget drops what a session that ended was shown.
func (p *pageSurface) forget(s server.ClientSession) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.sessions, s.SessionID())
}
