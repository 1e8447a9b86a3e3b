// Package mcpserver exposes the coordinator as MCP tools (coordinator_*).
// Every tool has a description an agent can act on, a JSON schema for its
// input and output, read-only/destructive annotations, and answers with
// structured content plus a text rendering. Bad arguments are a tool error
// (isError) that says what was wrong and what is allowed.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/mark3labs/mcp-go/server"
)

const baseInstructions = `browser-coordinator owns the browser for your browser automation tools.
It keeps one CDP endpoint (see coordinator_status) that stays the same when the browser restarts or changes; browser automation MCP servers (Playwright MCP, chrome-devtools-mcp) connect to it.
The browser starts by itself on first use: you rarely need coordinator_launch_browser.
Use coordinator_restart_browser when the browser is stuck, coordinator_launch_browser to switch browser or headless mode, coordinator_stop_browser to free memory.`

const (
	pageInstructions = `
The focused tab (the tab in front) brings its own tools, found in its page: its forms, result lists and buttons, and the tools it declares with WebMCP (e.g. search_flights, open_result). One page tool call fills a form and submits it, or clicks, and answers what happened. A call runs only on the tab and page its tool was shown for; a tab a page opened is not focused until you focus it.`
	listedInstructions = `
They appear in this server's tool list while their tab is focused (list_changed says when they change); coordinator_page_tools lists them and coordinator_call_page_tool calls them by name, for clients that do not list tools again.`
	staticInstructions = `
coordinator_page_tools lists them and coordinator_call_page_tool calls them by name.`
)

// instructions are the server's instructions for the surface o asks for.
func instructions(o Options) string {
	if o.Progressive {
		return progressiveInstructions
	}
	switch o.PageTools {
	case PageToolsDynamic:
		return baseInstructions + pageInstructions + listedInstructions
	case PageToolsStatic:
		return baseInstructions + pageInstructions + staticInstructions
	}
	return baseInstructions
}

// New builds the MCP server for c with the coordinator tools only (no page
// tools): Build with Options{PageTools: "off"}.
func New(c *coordinator.Coordinator) *server.MCPServer {
	s, _ := Build(c, Options{PageTools: PageToolsOff})
	return s.MCP
}

type handlers struct {
	c     *coordinator.Coordinator
	tabs  *coordinator.Agent // whose tabs (Options.Agent)
	child ChildReporter      // single-entry mode (--mcp); nil without a child
	pages *pageSurface       // nil with --page-tools off
	words remedy.Words       // this surface's (Words)
}

// launchArgs are coordinator_launch_browser's arguments: a
// coordinator.LaunchRequest in the tool's words.
type launchArgs struct {
	BrowserType *string `json:"browserType,omitempty"`
	BrowserPath *string `json:"browserPath,omitempty" jsonschema:"Path of a browser executable to use instead of a detected one."`
	Headless    *bool   `json:"headless,omitempty" jsonschema:"true: no window; false: a visible window."`
	URL         *string `json:"url,omitempty" jsonschema:"Page to open first (http, https, about or data URL; file only when the coordinator was started to allow local files)."`
}

// coordinatorTools are the tools of the browser itself, the default
// surface's first.
func (h *handlers) coordinatorTools() []toolDef {
	types := make([]any, 0, len(browsers.Types())+1)
	for _, t := range browsers.Types() {
		types = append(types, string(t))
	}
	types = append(types, state.BackendEveryday)
	status := spec{name: "coordinator_status", title: "Browser status",
		description: "Report the browser's state (idle, launching, running, stopped, crashed), which browser runs (type, version, pid, headless), the stable CDP endpoint and proxy port that automation tools connect to, the page in front, and the last error; with the everyday backend (the user's own browser), whether it is connected and how many of its tabs the agent sees. Does not start a browser.",
		readOnly:    true, idem: true, out: statusAbout}
	statusTool := typed(status, h.status)
	if h.child != nil {
		status.out = childStatusAbout
		statusTool = typed(status, h.childStatus)
	}
	return h.forAgent([]toolDef{
		typed(spec{name: "coordinator_list_browsers", title: "List installed browsers",
			description: "List the Chromium-family browsers installed on this machine (Chrome, Edge, Chromium, Brave, Chrome for Testing, Vivaldi) with their type, path and version. Use a type from here as browserType in coordinator_launch_browser.",
			readOnly:    true, idem: true, out: browserListAbout}, h.listBrowsers),
		statusTool,
		typed(spec{name: "coordinator_launch_browser", title: "Launch or switch the browser",
			description: "Start the browser now, or relaunch it with other options (another browser type or executable, headless on or off). The CDP endpoint stays the same; connected automation tools reconnect by themselves. With only url and a browser already running, the url opens in a new tab in front instead. You rarely need this: the browser starts by itself on first use.",
			destructive: true, idem: true, out: statusAbout,
			in: about{"browserType": {enum: types, desc: "Which installed browser to use (see coordinator_list_browsers); everyday: the user's own browser, with their logins, in the tabs they share (needs the Browser Coordinator extension)."}}},
			h.launch),
		typed(spec{name: "coordinator_stop_browser", title: "Stop the browser",
			description: "Stop the browser and free its memory. The CDP endpoint keeps its port; the next browser use (or coordinator_launch_browser) starts a browser again. Open pages are lost.",
			destructive: true, idem: true, out: statusAbout}, h.stop),
		typed(spec{name: "coordinator_restart_browser", title: "Restart the browser",
			description: "Stop the browser and start it again with the same options, e.g. when it hangs or misbehaves. The CDP endpoint stays the same and automation tools reconnect on their next call. Open pages are lost.",
			destructive: true, out: statusAbout}, h.restart),
	})
}

func (h *handlers) listBrowsers(ctx context.Context, _ noArgs) (browserList, string, error) {
	found, err := h.c.ListBrowsers(ctx)
	if err != nil {
		return browserList{}, "", err
	}
	if found == nil {
		found = []browsers.Browser{}
	}
	var text strings.Builder
	if len(found) == 0 {
		// What the coordinator's start can do is said in its words (a flag).
		text.WriteString(h.words.Phrase("No browser found. Install Chrome, Edge, Chromium or Brave (on Debian/Ubuntu: apt-get install chromium)",
			[]remedy.Remedy{{Kind: remedy.BrowserPath}}) + ".")
	}
	for _, b := range found {
		fmt.Fprintf(&text, "%s\t%s\t%s\n", b.Type, orDash(b.Version), b.Path)
	}
	return browserList{Browsers: found}, strings.TrimSpace(text.String()), nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (h *handlers) status(context.Context, noArgs) (coordinator.Status, string, error) {
	return h.statusResult(h.tabs.Status(), nil)
}

func (h *handlers) childStatus(context.Context, noArgs) (statusWithChild, string, error) {
	s, text, _ := h.statusResult(h.tabs.Status(), nil)
	child := h.child.Status()
	return statusWithChild{Status: s, Child: child}, text + "\n" + renderChild(child), nil
}

// statusResult renders a status; a failed action is an error result that
// still carries the status, so the agent sees both what failed and where
// things stand, each with its remedies in this surface's words.
func (h *handlers) statusResult(s coordinator.Status, err error) (coordinator.Status, string, error) {
	s = boundStatus(s)
	if s.LastErr != nil {
		s.LastError = h.words.Error(s.LastErr)
	}
	return s, RenderStatus(s), err
}

// RenderStatus is the text form of a status, for tools and the CLI.
func RenderStatus(s coordinator.Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Browser: %s", s.State)
	if s.Browser != nil {
		mode := "headless"
		if !s.Browser.Headless {
			mode = "visible window"
		}
		fmt.Fprintf(&b, " — %s %s", s.Browser.Type, orDash(s.Browser.Version))
		if s.Browser.PID != 0 {
			fmt.Fprintf(&b, " (pid %d, %s)", s.Browser.PID, mode)
		}
	}
	switch s.State {
	case coordinator.Idle, coordinator.Stopped, coordinator.Crashed:
		b.WriteString("; it starts on first use")
	case coordinator.Launching:
		if s.Waiting != "" {
			fmt.Fprintf(&b, "; waiting for %s", s.Waiting)
		}
	}
	fmt.Fprintf(&b, "\nCDP endpoint: %s (stays the same for this coordinator's life)\n", s.CDPEndpoint)
	fmt.Fprintf(&b, "Backend: %s\n", backendText(s.Backend))
	if e := s.Everyday; e != nil {
		fmt.Fprintf(&b, "Your browser: %s\n", everydayText(e))
	}
	if s.VSCode != nil {
		fmt.Fprintf(&b, "VS Code: Tier %d — %s\n", s.VSCode.Tier, s.VSCode.Reason)
	}
	if s.CurrentURL != "" {
		fmt.Fprintf(&b, "Page in front: %s\n", s.CurrentURL)
	}
	if a := s.Agent; a != nil {
		fmt.Fprintf(&b, "This session's CDP endpoint: %s (its own browser context: its tabs and cookies only)\n", a.CDPEndpoint)
	}
	fmt.Fprintf(&b, "Client connections: %d\n", s.Connections)
	if s.LastError != "" {
		fmt.Fprintf(&b, "Last error: %s\n", s.LastError)
	}
	fmt.Fprintf(&b, "Uptime: %s", s.Uptime)
	return b.String()
}

func (h *handlers) launch(ctx context.Context, a launchArgs) (coordinator.Status, string, error) {
	if h.alone() {
		return h.launchAgent(ctx, a)
	}
	r := coordinator.LaunchRequest(a)
	s, err := h.c.LaunchWith(ctx, r)
	var bad *coordinator.BadRequestError
	if errors.As(err, &bad) {
		hint := ""
		if r.BrowserType != nil {
			hint = h.detectedHint(ctx)
		}
		// err, not bad: the remedies ride on the chain above the request error.
		return s, "", fmt.Errorf("coordinator_launch_browser: %w%s", err, hint)
	}
	return h.statusResult(s, err)
}

// detectedHint lists what is installed, for an error about browser types.
func (h *handlers) detectedHint(ctx context.Context) string {
	found, err := h.c.ListBrowsers(ctx)
	if err != nil || len(found) == 0 {
		return "; no browser is installed here"
	}
	return "; installed here: " + browsers.List(found)
}

func (h *handlers) stop(ctx context.Context, _ noArgs) (coordinator.Status, string, error) {
	if h.alone() {
		return h.resetAgent(ctx, "stopped")
	}
	return h.statusResult(h.c.Stop(ctx))
}

func (h *handlers) restart(ctx context.Context, _ noArgs) (coordinator.Status, string, error) {
	if h.alone() {
		return h.resetAgent(ctx, "restarted")
	}
	return h.statusResult(h.c.Restart(ctx))
}

func backendText(backend string) string {
	switch backend {
	case state.BackendTier1:
		return "tier1 (a browser this coordinator launched)"
	case state.BackendTier2:
		return "tier2 (VS Code's own browser view)"
	case state.BackendAttach:
		return "attach (an existing browser given with --cdp-endpoint; never launched or killed)"
	case state.BackendEveryday:
		return "everyday (the user's own browser; never launched or closed)"
	case state.BackendService:
		return "service (a session on the remote browser service given with --browser-service: opened at the first need, closed on stop and exit)"
	}
	return backend
}

// everydayText says what is connected of the user's own browser.
func everydayText(e *state.Everyday) string {
	if e.Via == coordinator.ActivePortVia {
		return fmt.Sprintf("connected through its debugging port %d (profile %s; the agent sees every tab, %d open)", e.Port, e.Profile, e.Tabs)
	}
	if !e.Connected {
		return "not connected: " + e.Reason + " (work resumes by itself when it is back)"
	}
	return fmt.Sprintf("connected through the extension %s %s (native host pid %d); the agent sees %d tab(s): the ones it opened and the ones the user shared",
		e.ExtensionID, e.ExtensionVersion, e.HostPID, e.Tabs)
}
