package mcpserver

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagefocus"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/version"
	"github.com/mark3labs/mcp-go/server"
)

// The page-tools surfaces (--page-tools).
const (
	// PageToolsDynamic: the focused tab's tools in tools/list, with
	// list_changed, and the static pair (the default).
	PageToolsDynamic = "dynamic"
	// PageToolsStatic: the static pair only (coordinator_page_tools,
	// coordinator_call_page_tool).
	PageToolsStatic = "static"
	// PageToolsOff: no page tools.
	PageToolsOff = "off"
)

// Options choose the tools the server offers. The zero value is the
// default surface: the coordinator tools and dynamic page tools.
type Options struct {
	// PageTools is PageToolsDynamic (also ""), PageToolsStatic or PageToolsOff.
	PageTools string
	// Progressive serves the seed's own surface (--tools progressive):
	// connect_browser, list_tabs, open_tab, focus_tab, close_tab and the
	// focused tab's page tools, each when its state allows, and nothing else.
	Progressive bool
	// FollowUserFocus (progressive only): focus follows the tab in front,
	// as in the default surface, besides focus_tab.
	FollowUserFocus bool
	// Child is the child MCP of single-entry mode (--mcp), whose tools the
	// caller serves from the same server (childmcp.Serve):
	// coordinator_status reports it, and says in tools/list when its tools
	// are missing. nil: none.
	Child ChildReporter
	// Agent is the agent the server serves (an MCP session of an isolated
	// coordinator over HTTP): its tab and page tools see its tabs, and its
	// launch, stop and restart act on its browser contexts; nil: the
	// coordinator's own agent.
	Agent *coordinator.Agent
	// StartWords phrase the remedies only the coordinator's start can
	// bring (its flags, which the command line owns); the tools' own
	// words go over them (Words). nil: those remedies are left unsaid.
	StartWords remedy.Words
	Logger     *slog.Logger
	// Files says which local files a page's file field may attach: its
	// Roots default to the coordinator's workspace folder.
	Files pagetools.Files
}

// Check says what is wrong with o, in the words of the flags.
func (o Options) Check() error {
	switch o.PageTools {
	case "", PageToolsDynamic, PageToolsStatic, PageToolsOff:
	default:
		return fmt.Errorf("--page-tools must be dynamic, static or off, got %q", o.PageTools)
	}
	if o.Progressive && o.PageTools != "" && o.PageTools != PageToolsDynamic {
		return errors.New("--tools progressive is the seed's own surface, whose page tools are always listed as they come and go: leave --page-tools out")
	}
	if o.FollowUserFocus && !o.Progressive {
		return errors.New("--follow-user-focus applies to --tools progressive only: in the default surface the focused tab is always the tab in front")
	}
	if o.Child != nil && o.Progressive {
		return errors.New("a child MCP's tools are served by the default surface only (the command line refuses --tools progressive with --mcp)")
	}
	return nil
}

// Served is an MCP server and what runs behind it (the page tools' focus
// and engines). Close it after the server has stopped serving.
type Served struct {
	MCP  *server.MCPServer
	stop []func() // in order
}

// Close stops the page tools (their engines and goroutines).
func (s *Served) Close() {
	for _, stop := range s.stop {
		stop()
	}
}

const serverName = "browser-coordinator"

// Build builds the MCP server for c with the surface o asks for: each
// surface is one table of tools, made with what it needs.
func Build(c *coordinator.Coordinator, o Options) (*Served, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Agent == nil {
		o.Agent = c.Own()
	}
	if o.PageTools == "" {
		o.PageTools = PageToolsDynamic
	}
	words := Words(o)
	opts := []server.ServerOption{
		server.WithRecovery(),
		server.WithToolHandlerMiddleware(phraseErrors(words)),
		// The tool list changes with the focused tab: list_changed.
		server.WithToolCapabilities(o.PageTools == PageToolsDynamic),
		server.WithInstructions(instructions(o)),
	}
	if o.Child != nil {
		opts = append(opts, server.WithToolFilter(childNote(o.Child)))
	}
	switch {
	case o.PageTools == PageToolsOff:
		return buildPlain(c, o, words, opts), nil
	case o.Progressive:
		return buildProgressive(c, o, words, opts), nil
	}
	return buildDefault(c, o, words, opts), nil
}

// buildPlain: the coordinator's tools and its tab tools (--page-tools off).
func buildPlain(c *coordinator.Coordinator, o Options, words remedy.Words, opts []server.ServerOption) *Served {
	h := &handlers{c: c, tabs: o.Agent, child: o.Child, words: words}
	srv := server.NewMCPServer(serverName, version.Get().Version, opts...)
	srv.AddTools(serverTools(h.tools())...)
	return &Served{MCP: srv}
}

// buildDefault: the coordinator's tools, its tab tools, the focused tab's
// page tools (listed when dynamic) and the static pair.
func buildDefault(c *coordinator.Coordinator, o Options, words remedy.Words, opts []server.ServerOption) *Served {
	engine := pagetools.Config{Logger: o.Logger, Files: files(c, o)}
	tr := pagefocus.New(pagefocus.Coordinator(o.Agent), pagefocus.Config{Follow: true, Engine: engine, Logger: o.Logger}, true)
	p := newPageSurface(pageConfig{tr: tr, host: followed{}, v: defaultVocab, dynamic: o.PageTools == PageToolsDynamic, log: o.Logger}, opts...)
	h := &handlers{c: c, tabs: o.Agent, child: o.Child, pages: p, words: words}
	p.srv.AddTools(serverTools(append(h.tools(), p.staticTools()...))...)
	p.start()
	return &Served{MCP: p.srv, stop: []func(){p.close}}
}

// buildProgressive: 002's surface, its tools listed as its state allows.
func buildProgressive(c *coordinator.Coordinator, o Options, words remedy.Words, opts []server.ServerOption) *Served {
	engine := pagetools.Config{Logger: o.Logger, ContentTool: true, Files: files(c, o)}
	st := newSeedState()
	tr := pagefocus.New(pagefocus.Coordinator(o.Agent), pagefocus.Config{Follow: o.FollowUserFocus, Engine: engine, Skip: st.hiddenTab, Logger: o.Logger}, false)
	p := newPageSurface(pageConfig{tr: tr, host: st, v: progressiveVocab, dynamic: true, log: o.Logger}, opts...)
	pr := &progressive{c: c, tabs: o.Agent, st: st, p: p, words: words}
	p.srv.AddTools(serverTools(append(pr.tools(), p.handleDialogTool()))...)
	pr.start()
	p.start()
	return &Served{MCP: p.srv, stop: []func(){pr.stop, p.close}}
}

// files are the local files a page's file field may attach: o.Files, its
// roots the coordinator's workspace folder unless given.
func files(c *coordinator.Coordinator, o Options) pagetools.Files {
	f := o.Files
	if len(f.Roots) == 0 && c.Status().Workspace != "" {
		f.Roots = []string{c.Status().Workspace}
	}
	return f
}

// tools are the default surface's: the coordinator's own and its tab tools.
func (h *handlers) tools() []toolDef {
	return append(h.coordinatorTools(), h.tabTools()...)
}

func serverTools(defs []toolDef) []server.ServerTool {
	out := make([]server.ServerTool, len(defs))
	for i, d := range defs {
		out[i] = server.ServerTool{Tool: d.tool, Handler: d.handle}
	}
	return out
}
