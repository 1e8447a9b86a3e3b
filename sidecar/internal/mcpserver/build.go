package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagefocus"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/version"
	"github.com/mark3labs/mcp-go/mcp"
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
	return nil
}

// Served is an MCP server and what runs behind it (the page tools' focus
// and engines). Close it after the server has stopped serving.
type Served struct {
	MCP   *server.MCPServer
	pages *pageSurface
}

// Close stops the page tools (their engines and goroutines).
func (s *Served) Close() {
	if s.pages != nil {
		s.pages.close()
	}
}

// Build builds the MCP server for c with the surface o asks for.
func Build(c *coordinator.Coordinator, o Options) (*Served, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	if o.PageTools == "" {
		o.PageTools = PageToolsDynamic
	}
	dynamic := o.PageTools == PageToolsDynamic
	words := Words(o)
	var p *pageSurface
	opts := []server.ServerOption{server.WithRecovery(), server.WithToolHandlerMiddleware(phraseErrors(words))}
	if o.PageTools != PageToolsOff {
		p = &pageSurface{c: c, log: log, dynamic: dynamic}
		opts = append(opts, server.WithToolFilter(p.filter))
		// What a session was shown goes with it.
		hooks := &server.Hooks{}
		hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) { p.forget(s) })
		if dynamic {
			// A listing shows, and binds the session's calls to, the
			// focused page as it is now, not as at the last change heard.
			hooks.AddBeforeListTools(func(context.Context, any, *mcp.ListToolsRequest) { p.refresh() })
		}
		opts = append(opts, server.WithHooks(hooks))
	}
	if dynamic {
		// The tool list changes with the focused tab: say so (list_changed).
		opts = append(opts, server.WithToolCapabilities(true))
	} else {
		opts = append(opts, server.WithToolCapabilities(false))
	}
	if o.Progressive {
		opts = append(opts, server.WithInstructions(progressiveInstructions))
	} else {
		opts = append(opts, server.WithInstructions(instructions(o.PageTools)))
	}
	s := server.NewMCPServer("browser-coordinator", version.Get().Version, opts...)
	out := &Served{MCP: s, pages: p}
	if p == nil {
		h := &handlers{c: c, words: words}
		for _, t := range h.tools() {
			s.AddTool(t.tool, t.handle)
		}
		return out, nil
	}

	files := o.Files
	if len(files.Roots) == 0 && c.Status().Workspace != "" {
		files.Roots = []string{c.Status().Workspace}
	}
	engine := pagetools.Config{Logger: log, ContentTool: o.Progressive, Files: files}
	if o.Progressive {
		pr := newProgressive(c, p, words)
		p.prog = pr
		p.tr = pagefocus.New(pagefocus.Coordinator(c), pagefocus.Config{Follow: o.FollowUserFocus, Engine: engine, Skip: pr.hiddenTab, Logger: log}, false)
		p.srv = s
		for _, t := range append(pr.tools(), p.handleDialogTool()) {
			s.AddTool(t.tool, t.handle)
		}
	} else {
		p.tr = pagefocus.New(pagefocus.Coordinator(c), pagefocus.Config{Follow: true, Engine: engine, Logger: log}, true)
		p.srv = s
		h := &handlers{c: c, pages: p, words: words}
		for _, t := range h.tools() {
			s.AddTool(t.tool, t.handle)
		}
		for _, t := range p.staticTools() {
			s.AddTool(t.tool, t.handle)
		}
	}
	p.start()
	return out, nil
}
