package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/version"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagefocus"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The page tools as MCP tools. The focus (which tab, its engine) is
// package pagefocus's; here it becomes tools:
//
//   - listed (dynamic, and the progressive surface): the focused tab's
//     tools are registered with the MCP server and shown by a tool filter;
//     every change of what is listed (focus moved, the focused page's tools
//     changed, the tab closed, the browser changed) sends one
//     notifications/tools/list_changed to every session, stdio and HTTP.
//     mcp-go sends one itself when tools are added, so a change that adds
//     tools lets it do so, and one that only removes or moves sends its own.
//     Tools of pages no longer focused stay registered but hidden, so that
//     a client calling one before it listed again hears why it is gone
//     (mcp-go checks a call by passing the filter the called tool alone,
//     as documented on WithToolFilter: a single tool is let through and
//     its handler answers).
//   - the static pair (coordinator_page_tools, coordinator_call_page_tool)
//     for hosts that list tools once.
type pageSurface struct {
	srv     *server.MCPServer
	tr      *pagefocus.Tracker
	host    host
	v       vocab
	log     *slog.Logger
	dynamic bool // list the focused tab's tools

	refreshMu sync.Mutex // one refresh at a time: the registry and notifications in order

	mu         sync.Mutex
	shown      map[string]listedTool // MCP name → the page tool listed under it now
	registered map[string]listedTool // every page tool registered with the server, by MCP name
	core       map[string]bool       // the host's tools listed now (nil: all)
	lastKey    string                // what was listed at the last notification
	refreshes  uint64                // refreshes so far (listedTool.last)
	sessions   map[string]*seen      // what each MCP session was shown (shown.go)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// host is what the page surface asks of the tool surface it is part of:
// the default one (followed) or 002's (seedState).
type host interface {
	// listed are the surface's own tools to list with focus snap (nil:
	// all of them), and whether the focused tab's page tools are listed.
	listed(snap pagefocus.Focus) (core []string, pages bool)
	// ready says why no page tool can run now, or nil.
	ready(tool string) error
	// tabRef names a tab as the surface's tab tools take it.
	tabRef(id string) string
}

// followed is the default surface as the page surface's host: every tool
// listed, the focused tab's page tools whenever a tab is focused, tabs by
// their ids.
type followed struct{}

func (followed) listed(snap pagefocus.Focus) ([]string, bool) { return nil, snap.TabID != "" }
func (followed) ready(string) error                           { return nil }
func (followed) tabRef(id string) string                      { return strconv.Quote(id) }

// pageConfig is what a page surface is made of.
type pageConfig struct {
	tr      *pagefocus.Tracker
	host    host
	v       vocab
	dynamic bool
	log     *slog.Logger
}

// newPageSurface makes the page surface and the MCP server it lists page
// tools on, with opts: the server asks the surface what to list (its
// filter and hooks), and the surface registers page tools with the server,
// so the two are made together. Start it once the server has its tools.
func newPageSurface(cfg pageConfig, opts ...server.ServerOption) *pageSurface {
	p := &pageSurface{tr: cfg.tr, host: cfg.host, v: cfg.v, dynamic: cfg.dynamic, log: cfg.log,
		shown: map[string]listedTool{}, registered: map[string]listedTool{}, sessions: map[string]*seen{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	// What a session was shown goes with it.
	hooks := &server.Hooks{}
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) { p.forget(s) })
	if p.dynamic {
		// A listing shows, and binds the session's calls to, the focused
		// page as it is now, not as at the last change heard.
		hooks.AddBeforeListTools(func(context.Context, any, *mcp.ListToolsRequest) { p.refresh() })
	}
	opts = append(opts, server.WithToolFilter(p.filter), server.WithHooks(hooks))
	p.srv = server.NewMCPServer(serverName, version.Get().Version, opts...)
	return p
}

// listedTool is a page tool as it is (or was) listed.
type listedTool struct {
	name string          // the engine's name (the MCP name may have a page_ prefix)
	on   pagefocus.Shown // the tab and document it belongs to
	sig  string
	tool mcp.Tool
	last uint64 // the refresh that last listed it
}

// maxRegistered bounds the page tools kept registered for their errors;
// past it those listed longest ago are dropped (never those the last
// change hid: a call of one must hear why it is gone, not mcp-go's
// "tool not found").
const maxRegistered = 256

// start lists the focused tab's tools and follows their changes.
func (p *pageSurface) start() {
	if !p.dynamic {
		return
	}
	p.refresh() // what is listed at start: no notification
	p.wg.Go(func() { follow(p.ctx, p.tr.Changed(), p.refresh) })
}

// follow calls fn each time ch brings something, until ctx ends or ch is
// closed: how the surfaces keep up with the tracker and the coordinator.
func follow[T any](ctx context.Context, ch <-chan T, fn func()) {
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
			fn()
		case <-ctx.Done():
			return
		}
	}
}

// close stops following and the tracker (its engines and goroutine).
func (p *pageSurface) close() {
	p.cancel()
	p.wg.Wait()
	p.tr.Close()
}

// filter shows the page tools of the focused tab and, in the progressive
// surface, the tools its state allows; the page tools a listing shows are
// what the session was shown (shown.go).
func (p *pageSurface) filter(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	if len(tools) <= 1 {
		// A call's check: mcp-go passes the called tool alone. Calls are
		// answered by the handlers, which say why a tool cannot run now.
		return tools
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]mcp.Tool, 0, len(tools))
	var pages []string
	for _, t := range tools {
		if _, page := p.registered[t.Name]; page {
			if _, ok := p.shown[t.Name]; ok {
				out = append(out, t)
				pages = append(pages, t.Name)
			}
			continue
		}
		if p.core != nil && !p.core[t.Name] {
			continue
		}
		out = append(out, t)
	}
	p.showListedLocked(ctx, pages)
	return out
}

// refresh brings what is listed up to date with the focus and sends
// list_changed when it changed.
func (p *pageSurface) refresh() {
	if !p.dynamic {
		return
	}
	p.refreshMu.Lock()
	defer p.refreshMu.Unlock()
	snap := p.tr.Snapshot()
	core, listPage := p.host.listed(snap)
	p.mu.Lock()
	shown, key := p.listing(snap, core, listPage)
	changed := p.lastKey != "" && key != p.lastKey // the first refresh only takes the start's state
	add, stale := p.registerLocked(shown)
	p.shown, p.lastKey = shown, key
	if core != nil {
		p.core = map[string]bool{}
		for _, n := range core {
			p.core[n] = true
		}
	}
	p.mu.Unlock()
	if len(stale) > 0 {
		p.srv.DeleteTools(stale...)
	}
	if changed {
		p.log.Debug("page tools: the tool list changed", "tab", snap.TabID, "pageTools", len(shown))
	}
	switch {
	case len(add) > 0:
		p.srv.AddTools(add...) // mcp-go sends list_changed
	case changed:
		p.srv.SendNotificationToAllClients(string(mcp.MethodNotificationToolsListChanged), nil)
	}
}

// listing is what is listed with focus snap: the page tools, by MCP name,
// and a key that changes with what is listed: the core tools, and the page
// tools with the tab they belong to (a move between two tabs without tools
// changes nothing). p.mu held.
func (p *pageSurface) listing(snap pagefocus.Focus, core []string, listPage bool) (map[string]listedTool, string) {
	reserved := map[string]bool{}
	for name := range p.srv.ListTools() {
		if _, page := p.registered[name]; !page {
			reserved[name] = true
		}
	}
	shown := map[string]listedTool{}
	var keys []string
	if listPage {
		for _, t := range snap.Tools {
			lt, ok := p.listed(t, snap, reserved, shown)
			if !ok {
				continue
			}
			shown[lt.tool.Name] = lt
			keys = append(keys, lt.tool.Name+"="+lt.sig)
		}
	}
	owner := ""
	if len(keys) > 0 {
		owner = snap.TabID
	}
	return shown, fmt.Sprintf("%s\x00%s\x00%s", owner, strings.Join(core, ","), strings.Join(keys, "\x00"))
}

// registerLocked records the page tools shown as registered: those new or
// changed are to be added to the server, and past maxRegistered those
// listed longest ago are to be deleted from it (staleLocked). p.mu held.
func (p *pageSurface) registerLocked(shown map[string]listedTool) (add []server.ServerTool, stale []string) {
	p.refreshes++
	for name, lt := range shown {
		if old, ok := p.registered[name]; !ok || old.sig != lt.sig || old.on.TabID != lt.on.TabID {
			add = append(add, server.ServerTool{Tool: lt.tool, Handler: p.callListed})
		}
		lt.last = p.refreshes
		p.registered[name] = lt
	}
	return add, p.staleLocked(shown)
}

// staleLocked drops from the registry, past maxRegistered, the tools not
// listed now that were listed longest ago, down to three quarters of it;
// those the last change hid stay. It answers their names.
func (p *pageSurface) staleLocked(shown map[string]listedTool) []string {
	if len(p.registered) <= maxRegistered {
		return nil
	}
	var hidden []string
	for name, lt := range p.registered {
		if _, ok := shown[name]; !ok && lt.last < p.refreshes-1 {
			hidden = append(hidden, name)
		}
	}
	slices.SortFunc(hidden, func(a, b string) int { return cmp.Compare(p.registered[a].last, p.registered[b].last) })
	n := min(len(hidden), len(p.registered)-maxRegistered*3/4)
	for _, name := range hidden[:max(n, 0)] {
		delete(p.registered, name)
	}
	return hidden[:max(n, 0)]
}

// listed makes an MCP tool of a page tool, under its own name or, when that
// is taken (a coordinator tool, a child's tool, another page tool), with a
// page_ prefix.
func (p *pageSurface) listed(t pagetools.Tool, snap pagefocus.Focus, reserved map[string]bool, shown map[string]listedTool) (listedTool, bool) {
	name := t.Name
	taken := func(n string) bool { _, s := shown[n]; return reserved[n] || s }
	if taken(name) {
		name = "page_" + t.Name
		for i := 2; taken(name); i++ {
			name = fmt.Sprintf("page_%s_%d", t.Name, i)
		}
	}
	tool := mcp.Tool{
		Name:           name,
		Description:    t.Description,
		RawInputSchema: t.InputSchema,
		Annotations: mcp.ToolAnnotation{
			ReadOnlyHint:    hint(t.Annotations.ReadOnlyHint),
			DestructiveHint: hint(t.Annotations.DestructiveHint),
			OpenWorldHint:   hint(t.Annotations.OpenWorldHint),
		},
	}
	if err := mcp.ValidateParamHeaderAnnotations(&tool); err != nil {
		// mcp-go refuses such a tool (it would panic): the page's loss.
		p.log.Debug("page tools: a tool mcp-go refuses is left out", "tool", t.Name, "err", err)
		return listedTool{}, false
	}
	sig, _ := json.Marshal(tool)
	return listedTool{name: t.Name, on: snap.Shown(), sig: string(sig), tool: tool}, true
}

// shownNames are the MCP names the page tools listed now have, by engine
// name.
func (p *pageSurface) shownNames() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]string{}
	for mcpName, lt := range p.shown {
		out[lt.name] = mcpName
	}
	return out
}

// names turns the engine's names into what a client calls: the listed
// names where page tools are listed.
func (p *pageSurface) names(engine []string) []string {
	out := make([]string, len(engine))
	var m map[string]string
	if p.dynamic {
		m = p.shownNames()
	}
	for i, n := range engine {
		if mapped, ok := m[n]; ok {
			out[i] = mapped
		} else {
			out[i] = n
		}
	}
	return out
}

// settled is the focus once the focused tab's page has settled (bounded):
// what a tool answers about it is then true.
func (p *pageSurface) settled(ctx context.Context) pagefocus.Focus {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_ = p.tr.Sync(ctx)
	snap := p.tr.Snapshot()
	if snap.TabID == "" {
		return snap
	}
	if f, err := p.tr.Focus(ctx, snap.TabID, ""); err == nil {
		return f
	}
	return p.tr.Snapshot()
}

// callListed runs a listed page tool, on the page this session was shown
// it for.
func (p *pageSurface) callListed(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	args, err := objectArguments(req)
	if err != nil {
		return toolError(err), nil
	}
	if err := p.host.ready(name); err != nil {
		return toolError(err), nil
	}
	st, ok := p.shownAs(ctx, name, true)
	if !ok {
		return toolError(p.notShown(name, true)), nil
	}
	res, err := p.tr.CallShown(ctx, st.on, st.name, args)
	res, text, err := p.callResult(ctx, name, st, res, err, true)
	if err != nil {
		return toolError(err), nil
	}
	return mcp.NewToolResultStructured(res, text), nil
}

// notShown answers a call of a page tool this session was never shown.
func (p *pageSurface) notShown(name string, listed bool) error {
	how := "list the tools (tools/list) and call one of the focused tab's"
	if !listed {
		how = "call coordinator_page_tools, which lists the focused tab's tools, and call one of those"
	}
	snap := p.tr.Snapshot()
	now := "no tab is focused"
	if snap.TabID != "" {
		ns := pagetools.Names(snap.Tools)
		if listed {
			ns = p.names(ns)
		}
		now = fmt.Sprintf("the focused tab's tools now: %s", listOr(ns, "none"))
	}
	return fmt.Errorf("page tool %q was not shown to this session, so it is not known which page it is meant for; nothing was done; %s (%s)", name, how, now)
}

// callResult renders the answer of the page tool called (as st), or its
// error; listed: with the names the tools are listed under. The answer
// shows the session the page the tab is on now, and its tools.
func (p *pageSurface) callResult(ctx context.Context, called string, st shownTool, res *pagetools.Result, err error, listed bool) (*pagetools.Result, string, error) {
	if err != nil {
		return nil, "", p.callError(called, err, listed)
	}
	p.show(ctx, pagefocus.Shown{TabID: st.on.TabID, Doc: res.Doc, URL: res.URL}, res.Tools)
	res.Tools = p.rename(res.Tools, listed)
	if res.Tools == nil {
		res.Tools = []string{}
	}
	if res.PopupURL != "" {
		res.Note = strings.TrimSpace(res.Note + " " + p.popupHint())
	}
	text := res.Text()
	res.URL, res.Title = clip(res.URL, maxURLShown), pagetools.Label(res.Title, maxTitleShown)
	return res, text, nil
}

// callError says why a page-tool call failed and how to go on.
func (p *pageSurface) callError(called string, err error, listed bool) error {
	var pe *pagetools.Error
	var moved *pagefocus.MovedError
	switch {
	case errors.As(err, &moved):
		return errors.New(p.movedText(called, moved, listed))
	case errors.Is(err, pagefocus.ErrNoFocus):
		return fmt.Errorf("no tab is focused, so there are no page tools to call; %s", p.v.focusHint)
	case errors.As(err, &pe):
		shown := *pe
		if shown.Tools != nil {
			shown.Tools = p.rename(shown.Tools, listed)
		}
		msg := shown.Error()
		if errors.Is(err, pagetools.ErrNavigatedAway) {
			msg += "; " + p.listAgain(listed, "the page the tab shows now")
		}
		if errors.Is(err, pagetools.ErrDialogOpen) {
			msg += "; " + p.dialogHint()
		}
		return errors.New(msg)
	}
	return err
}

// rename: the engine's names as a client calls them (listed: under the
// names the tools are listed as).
func (p *pageSurface) rename(ns []string, listed bool) []string {
	if listed {
		return p.names(ns)
	}
	return ns
}

// listAgain says how to see the focused tab's tools now, to use what.
func (p *pageSurface) listAgain(listed bool, what string) string {
	if listed {
		return "list the tools again (tools/list) to use " + what
	}
	return "call coordinator_page_tools again to use " + what
}

// popupHint: a tab a page opened is not focused by itself.
func (p *pageSurface) popupHint() string {
	return "A tab a page opened does not take the page-tool focus by itself: " + p.v.listTabs + " shows it, " + p.v.focusTab + " uses its tools."
}

// movedText says what changed since the session was shown the tool called
// (which tab came to the front, opened by which tab, at which origin) and
// how to go on.
func (p *pageSurface) movedText(called string, m *pagefocus.MovedError, listed bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "page tool %q was shown for tab %s at %s, which is not the focused tab now", called, p.host.tabRef(m.Shown.TabID), clip(m.Shown.URL, maxURLShown))
	switch {
	case m.Now.ID == "":
		b.WriteString(": no tab is focused")
	default:
		fmt.Fprintf(&b, ": tab %s came to the front, at %s (%s)", p.host.tabRef(m.Now.ID), pagetools.Origin(m.Now.URL), clip(m.Now.URL, maxURLShown))
		if m.Now.OpenerID != "" {
			fmt.Fprintf(&b, ", a tab opened by the page in tab %s", p.host.tabRef(m.Now.OpenerID))
		}
	}
	b.WriteString(". Nothing was done. ")
	if m.ShownOpen {
		fmt.Fprintf(&b, "To go on in the tab you meant, call %s {\"tabId\": %s} and then this tool again; ", p.v.focusTab, p.host.tabRef(m.Shown.TabID))
	} else {
		fmt.Fprintf(&b, "That tab is closed (%s shows the open ones); ", p.v.listTabs)
	}
	b.WriteString(p.listAgain(listed, "the focused tab's page") + ".")
	return b.String()
}

func listOr(ss []string, none string) string {
	if len(ss) == 0 {
		return none
	}
	return strings.Join(ss, ", ")
}

// The static pair.

// pageToolList is coordinator_page_tools' answer.
type pageToolList struct {
	Focused bool              `json:"focused" jsonschema:"whether a tab is focused"`
	TabID   string            `json:"tabId,omitempty" jsonschema:"the focused tab"`
	URL     string            `json:"url,omitempty"`
	Title   string            `json:"title,omitempty"`
	Tools   []staticItem      `json:"tools"`
	Dialog  *pagetools.Dialog `json:"dialog,omitempty"`
}

// staticItem is one page tool in coordinator_page_tools' answer.
type staticItem struct {
	Name        string                `json:"name"`
	Description string                `json:"description"`
	InputSchema json.RawMessage       `json:"inputSchema"`
	Annotations pagetools.Annotations `json:"annotations"`
}

type callPageToolArgs struct {
	Name      string         `json:"name" jsonschema:"The page tool's name, from coordinator_page_tools."`
	Arguments map[string]any `json:"arguments,omitempty" jsonschema:"Its arguments, as its input schema says."`
}

func (p *pageSurface) staticTools() []toolDef {
	return []toolDef{
		typed(spec{name: "coordinator_page_tools", title: "List the focused tab's page tools",
			description: "List the tools of the focused tab (the tab in front), found in its page: its forms (e.g. search_flights), result lists (open_result) and buttons, and the tools it declares with WebMCP; each with its input schema. Call one with coordinator_call_page_tool. Does not start a browser.",
			readOnly:    true, idem: true, openWorld: true,
			out: with(under("dialog", dialogAbout), about{"tools.inputSchema": {typ: "object"}})}, p.listStatic),
		typed(spec{name: "coordinator_call_page_tool", title: "Call a page tool",
			description: "Call one of the focused tab's page tools (see coordinator_page_tools) by name with its arguments: it fills the form the way a person would and submits it, or clicks, waits until the page settles, and answers where the tab is now, what changed, and the page's tools now. It runs only on the tab and page it was listed for: if another tab is focused now, or the page navigated, nothing is done and the answer says what changed.",
			destructive: true, openWorld: true, needs: "coordinator_page_tools lists the focused tab's tools", out: pageResultAbout}, p.callStatic),
		p.handleDialogTool(),
	}
}

func (p *pageSurface) listStatic(ctx context.Context, _ noArgs) (pageToolList, string, error) {
	snap := p.settled(ctx)
	out := pageToolList{Dialog: snap.Dialog, Focused: snap.TabID != "", TabID: snap.TabID, URL: clip(snap.URL, maxURLShown), Title: pagetools.Label(snap.Title, maxTitleShown), Tools: []staticItem{}}
	var b strings.Builder
	if away := p.tr.Unavailable(); away != nil {
		// The user's browser away: its page cannot be seen, which is not a page without tools.
		return pageToolList{}, "", fmt.Errorf("coordinator_page_tools: %w", away)
	}
	switch {
	case snap.TabID == "":
		fmt.Fprintf(&b, "No tab is focused, so there are no page tools; %s.", p.v.focusHint)
	default:
		title := ""
		if out.Title != "" {
			title = " (its title: " + out.Title + ")"
		}
		fmt.Fprintf(&b, "The focused tab %s is at %s%s and has %d page tool(s); call one with coordinator_call_page_tool {name, arguments}.", snap.TabID, out.URL, title, len(snap.Tools))
	}
	if snap.Dialog != nil {
		b.WriteString("\n" + p.dialogText(snap.Dialog))
	}
	// The answer holds each tool twice (structured, and as text for hosts
	// that read only text): together within the page tools' cap.
	budget := pagetools.MaxListBytes - 2*len(b.String()) - 1024
	var left, shown []string
	for _, t := range snap.Tools {
		it := staticItem{t.Name, t.Description, t.InputSchema, t.Annotations}
		entry := fmt.Sprintf("\n\n%s: %s\ninput schema: %s", t.Name, t.Description, t.InputSchema)
		itemJSON, _ := json.Marshal(it)
		entryJSON, _ := json.Marshal(entry)
		n := len(itemJSON) + len(entryJSON)
		if len(left) > 0 || n > budget {
			left = append(left, t.Name)
			continue
		}
		budget -= n
		out.Tools = append(out.Tools, it)
		shown = append(shown, t.Name)
		b.WriteString(entry)
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "\n\n%d more page tool(s) are left out to keep this answer under %d KB: %s.", len(left), pagetools.MaxListBytes>>10, strings.Join(left, ", "))
	}
	p.show(ctx, snap.Shown(), shown)
	return out, b.String(), nil
}

func (p *pageSurface) callStatic(ctx context.Context, a callPageToolArgs) (*pagetools.Result, string, error) {
	args := a.Arguments
	if args == nil {
		args = map[string]any{}
	}
	// The static pair speaks the engine's names, those coordinator_page_tools lists.
	st, ok := p.shownAs(ctx, a.Name, false)
	if !ok {
		return nil, "", p.notShown(a.Name, false)
	}
	res, err := p.tr.CallShown(ctx, st.on, st.name, args)
	return p.callResult(ctx, a.Name, st, res, err, false)
}
