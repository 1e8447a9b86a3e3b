package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdpproxy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/childmcp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/control"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/fleet"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/mcpserver"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/reach"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/rpccheck"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/vscodetier"
	"github.com/mark3labs/mcp-go/server"
)

// serveFlags are serve's flags, as the README's flag table names them.
type serveFlags struct {
	browser     string
	browserPath string
	noHeadless  bool
	userDataDir string
	proxyPort   int
	noVSCode    bool
	stateDir    string
	cdpEndpoint string     // attach mode
	cdpHeaders  headerList // attach mode
	mcp         []string   // single-entry mode: the child MCP's command line
	transport   string     // stdio or http
	listen      string     // with --transport http
	token       string     // with --transport http
	// insecureNoToken serves HTTP without a token (an embedder that owns
	// a single-user machine).
	insecureNoToken bool
	proxyAuth       string  // on: the CDP endpoint carries the coordinator's secret; off: not
	pageTools       string  // dynamic, static or off
	tools           string  // default, or progressive (the seed's own surface)
	followUserFocus bool    // progressive: focus follows the tab in front too
	allowFiles      bool    // file:// URLs may be opened (in every backend)
	isolated        triBool // every agent a browser context of its own (isolated.go)

	// allowOrigins are the web pages let in over --transport http (CORS).
	allowOrigins []string

	// browserService is a remote browser service (Browserless), with how
	// long a start may take and how long a session may last.
	browserService                 string
	serviceTimeout, serviceSession time.Duration
}

// allowFilesHint ends a refusal of a file:// URL.
const allowFilesHint = "start the coordinator with --allow-unrestricted-file-access to open them"

// headerList collects repeated --cdp-header 'Name: value' flags.
type headerList []string

func (h *headerList) String() string     { return fmt.Sprint([]string(*h)) }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

// splitMCP separates the child command of single-entry mode: everything
// after --mcp belongs to the child, flags included.
func splitMCP(args []string) (own, child []string, ok bool) {
	for i, a := range args {
		if a == "--mcp" || a == "-mcp" {
			return args[:i], args[i+1:], true
		}
	}
	return args, nil, false
}

func parseServe(args []string) (serveFlags, int, bool) {
	var f serveFlags
	own, child, hasMCP := splitMCP(args)
	if hasMCP {
		var err error
		if child, err = childCommand(child); err != nil {
			fmt.Fprintln(os.Stderr, "browser-coordinator:", say(err))
			return f, exitError, false
		}
	}
	f.mcp = child
	args = own
	fs := newFlagSet("serve", "[serve] [flags] [--mcp CMD ARGS...]")
	fs.StringVar(&f.browser, "browser", "", "preferred browser: chrome, edge, chromium, brave, chrome-for-testing, vivaldi (default: first found); "+
		"everyday: your own browser, through the Browser Coordinator extension (or Chrome 144+'s debugging port)")
	fs.StringVar(&f.browserPath, "browser-path", "", "browser executable to use; overrides detection")
	fs.BoolVar(&f.noHeadless, "no-headless", false, "show a browser window (default: headless)")
	fs.StringVar(&f.userDataDir, "user-data-dir", "", "persistent browser profile (default: a fresh temporary profile, removed when the browser stops); "+
		"with --browser everyday: your browser's profile, reached through its DevToolsActivePort (Chrome 144+, remote debugging allowed at chrome://inspect)")
	fs.IntVar(&f.proxyPort, "proxy-port", 0, "the stable CDP proxy port (default: a free loopback port)")
	fs.BoolVar(&f.noVSCode, "no-vscode", false, "skip VS Code detection (always launch a browser)")
	fs.StringVar(&f.stateDir, "state-dir", "", "where state files live: a folder of yours no one else can write (default $BROWSER_COORDINATOR_STATE_DIR, else a per-user folder)")
	fs.StringVar(&f.cdpEndpoint, "cdp-endpoint", "", "attach mode: proxy this existing browser (http(s):// or ws(s)://); never launch one")
	fs.Var(&f.cdpHeaders, "cdp-header", "attach mode: a header for the CDP endpoint, 'Name: value' (repeatable)")
	fs.StringVar(&f.browserService, "browser-service", "", "a remote browser service (Browserless: https://HOST or wss://HOST): a session of its own per start, opened at the first need, closed on stop and exit; "+
		"its token comes from $"+fleet.TokenEnv+", never from the command line")
	fs.DurationVar(&f.serviceTimeout, "browser-service-timeout", 0, "with --browser-service: how long a start may take, a wait in the service's queue included (default 2m)")
	fs.DurationVar(&f.serviceSession, "browser-service-session", 0, "with --browser-service: how long the service may keep a session (default: no limit of ours; the session ends at stop or exit, or at the service's own limit)")
	fs.StringVar(&f.transport, "transport", "stdio", "MCP transport: stdio, or http (streamable HTTP at /mcp and SSE at /sse)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8931", "with --transport http: the address to listen on")
	fs.StringVar(&f.token, "token", "", "with --transport http: the bearer token clients must send (default $BROWSER_COORDINATOR_TOKEN, else one kept in the state folder's http-token)")
	fs.StringVar(&f.proxyAuth, "proxy-auth", "on", "on: the CDP endpoint carries the coordinator's secret in its path (wrap and --mcp fill it in); off: a plain http://127.0.0.1:PORT for hand-written setups (any local program can use it)")
	fs.StringVar(&f.pageTools, "page-tools", "dynamic", "the focused tab's own tools: dynamic (listed as they come and go, with list_changed, and the static pair coordinator_page_tools / coordinator_call_page_tool), static (the pair only) or off")
	fs.StringVar(&f.tools, "tools", "default", "the tool surface: default (coordinator_* tools and page tools), or progressive (the tab model's own surface: connect_browser, list_tabs, open_tab, focus_tab, close_tab and the focused tab's tools, each when it applies)")
	fs.BoolVar(&f.followUserFocus, "follow-user-focus", false, "with --tools progressive: the focused tab also follows the tab in front (a tab the user or another tool brings there)")
	fs.BoolVar(&f.allowFiles, "allow-unrestricted-file-access", false, "let the agent open file:// URLs (coordinator_open_tab, open_tab, and in your own browser any CDP client) and attach files from outside the workspace folder to a page's file fields; off, local files stay closed to it and only workspace files are attached")
	fs.Var(&f.isolated, "isolated", isolatedUsage)
	fs.BoolVar(&f.insecureNoToken, "insecure-no-token", false, "with --transport http: require no token (only for a single-user machine: any local program could drive the browser)")
	fs.Func("allow-origin", "with --transport http: a web page's origin (http://localhost:5173) that may use the server through CORS, with the token (repeatable; default none)",
		func(v string) error { f.allowOrigins = append(f.allowOrigins, v); return nil })
	code, ok := parseFlags(fs, args)
	if ok && fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "browser-coordinator: unexpected argument %q (see --help)\n", fs.Arg(0))
		return f, exitError, false
	}
	return f, code, ok
}

// everyday: --browser everyday, the user's own browser.
func (f serveFlags) everyday() bool { return f.browser == state.BackendEveryday }

// options checks the browser flags up front: a typo should stop the server
// at start with a clear message, not at the agent's first browser call.
func (f serveFlags) options(ctx context.Context, d *browsers.Detector) (coordinator.Options, error) {
	o := coordinator.Options{
		BrowserPath: f.browserPath,
		Headless:    !f.noHeadless,
		UserDataDir: f.userDataDir,
	}
	if f.proxyPort < 0 || f.proxyPort > 65535 {
		return o, fmt.Errorf("--proxy-port must be between 0 and 65535, got %d", f.proxyPort)
	}
	if f.transport != "stdio" && f.transport != "http" {
		return o, fmt.Errorf("--transport must be stdio or http, got %q", f.transport)
	}
	if f.proxyAuth != "on" && f.proxyAuth != "off" {
		return o, fmt.Errorf("--proxy-auth must be on or off, got %q", f.proxyAuth)
	}
	if err := f.checkTransport(); err != nil {
		return o, err
	}
	if _, err := f.surface(nil); err != nil {
		return o, err
	}
	if _, err := f.isolation(); err != nil {
		return o, err
	}
	if f.everyday() {
		if f.cdpEndpoint != "" {
			return o, errors.New("--browser everyday and --cdp-endpoint are two different browsers: give one of them")
		}
		if f.browserPath != "" {
			return o, errors.New("--browser everyday is your own browser, already running: it takes no --browser-path")
		}
		o.UserDataDir = "" // the user's profile is the everyday browser's, never a launched one's
	} else if f.browser != "" {
		t, err := browsers.ParseType(f.browser)
		if err != nil {
			detected := "none"
			if found, _ := d.Installed(ctx); len(found) > 0 {
				detected = browsers.List(found)
			}
			return o, fmt.Errorf("--browser: %w, or everyday (your own browser, through the Browser Coordinator extension); detected here: %s", err, detected)
		}
		o.BrowserType = t
	}
	if f.browserPath != "" {
		fast := *d
		fast.Version = nil
		if _, err := fast.FromPath(ctx, f.browserPath); err != nil {
			return o, fmt.Errorf("--browser-path: %w", err)
		}
	}
	return o, nil
}

// runServe is `browser-coordinator serve`: one coordinator, serving MCP on
// stdio or HTTP until stdin closes or a signal comes.
func runServe(args []string) int {
	collectAfterStart()
	f, code, ok := parseServe(args)
	if !ok {
		return code
	}
	log := newLogger(false)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	opts, err := f.options(ctx, browsers.System())
	if err != nil {
		return fail(os.Stderr, "%v", err)
	}
	fleetSource, err := f.serviceSource() // before attach's probe: the two together are refused
	if err != nil {
		return fail(os.Stderr, "%v", err)
	}
	attach, code, ok := f.attachEndpoint(ctx)
	if !ok {
		return code
	}
	stateDir := state.DefaultDir(f.stateDir)
	surface, _ := f.surface(log)  // checked with the other flags
	isolation, _ := f.isolation() // checked with the other flags
	c, code, ok := f.startCoordinator(f.coordinatorConfig(opts, stateDir, surface, isolation, log), attach, fleetSource)
	if !ok {
		return code
	}
	defer closeCoordinator(c, log)
	sourced := attach != nil || fleetSource != nil // the browser is given, not launched
	defer f.followVSCode(ctx, c, isolation, sourced, stateDir, log)()

	if f.transport == "http" && isolation == coordinator.IsolatedPerConnection {
		return serveHTTP(ctx, nil, c, f, stateDir, log, sessionServer(c, surface, f.mcp, log))
	}
	return f.serveShared(ctx, c, surface, stateDir, log)
}

// coordinatorConfig is the coordinator the flags ask for.
func (f serveFlags) coordinatorConfig(opts coordinator.Options, stateDir string, surface mcpserver.Options, isolation coordinator.Isolation, log *slog.Logger) coordinator.Config {
	cfg := coordinator.Config{
		Isolation:     isolation,
		Options:       opts,
		StateDir:      stateDir,
		ProxyPort:     f.proxyPort,
		NoProxySecret: f.proxyAuth == "off",
		Words:         mcpserver.Words(surface), // the agent's words, for what the proxy tells its CDP clients
		Logger:        log,
		Reach:         reach.Policy{AllowFiles: f.allowFiles, FilesHint: allowFilesHint},
	}
	if f.everyday() {
		cfg.EverydayProfile = f.userDataDir
	}
	return cfg
}

// startCoordinator creates the coordinator with its proxy and control API,
// and gives it the browser the flags name (attach, a browser service, the
// everyday browser); with none it launches one when first needed. It
// returns the exit code when it cannot start.
func (f serveFlags) startCoordinator(cfg coordinator.Config, attach, fleetSource *coordinator.Source) (*coordinator.Coordinator, int, bool) {
	c, err := coordinator.New(cfg)
	if errors.Is(err, cdpproxy.ErrPortInUse) {
		fmt.Fprintln(os.Stderr, "browser-coordinator:", say(err))
		return nil, exitPortInUse, false
	}
	if err != nil {
		return nil, fail(os.Stderr, "%v", err), false
	}
	c.Proxy().SetControl(control.Handler(c, c.Token()))
	if attach != nil {
		c.SetSource(attach)
	}
	if fleetSource != nil {
		c.SetSource(fleetSource) // lazy: no session until the first need
	}
	if f.everyday() {
		c.SetSource(c.EverydaySource()) // connects now: the popup shows this coordinator at once
	}
	return c, exitOK, true
}

// closeCoordinator closes c, or gives up after 15 s and removes its state
// file: no state file outlives its coordinator (the browser dies with the
// process group).
func closeCoordinator(c *coordinator.Coordinator, log *slog.Logger) {
	done := make(chan struct{})
	go func() { c.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		log.Error("shutdown took too long; exiting anyway")
		os.Remove(c.StatePath())
	}
}

// followVSCode switches to VS Code's browser view while the coordinator
// runs inside VS Code and launches its own browser (the tiers), or says in
// status why it does not under --isolated. It returns what stops it.
func (f serveFlags) followVSCode(ctx context.Context, c *coordinator.Coordinator, isolation coordinator.Isolation, sourced bool, stateDir string, log *slog.Logger) (stop func()) {
	if sourced {
		return func() {}
	}
	if isolation != coordinator.Shared {
		// VS Code's view is one page: no contexts to give. Said in status.
		v := vscodetier.Detect(ctx, vscodetier.System(stateDir), true)
		v.Reason = "--isolated: VS Code's browser view is one page and cannot give each agent a browser context of its own; the coordinator launches its own browser"
		c.SetVSCodeStatus(&v)
		return func() {}
	}
	if f.everyday() {
		return func() {}
	}
	tiers, err := vscodetier.Start(ctx, c, vscodetier.System(stateDir), f.noVSCode, log)
	if err != nil {
		log.Warn("VS Code tier switching is off", "err", err)
	}
	return tiers.Close
}

// serveShared serves one MCP server for every agent, with a child MCP's
// tools beside the coordinator's (--mcp), on stdio or HTTP.
func (f serveFlags) serveShared(ctx context.Context, c *coordinator.Coordinator, surface mcpserver.Options, stateDir string, log *slog.Logger) int {
	var child *childmcp.Child
	if len(f.mcp) > 0 {
		child = newChild(c, f.mcp, log)
		surface.Child = child
	}
	served, err := mcpserver.Build(c, surface)
	if err != nil {
		return fail(os.Stderr, "%v", err)
	}
	defer served.Close()
	srv := served.MCP
	if child != nil {
		defer serveChild(srv, c, child).Close()
	}
	if f.transport == "http" {
		return serveHTTP(ctx, srv, c, f, stateDir, log, nil)
	}
	serveStdio(ctx, srv, log)
	return exitOK
}

// surface is the tool surface the flags ask for.
func (f serveFlags) surface(log *slog.Logger) (mcpserver.Options, error) {
	o := mcpserver.Options{FollowUserFocus: f.followUserFocus, StartWords: startWords(), Logger: log,
		Files: pagetools.Files{Any: f.allowFiles, Hint: "start the coordinator with --allow-unrestricted-file-access to attach files from elsewhere"}}
	switch f.tools {
	case "default":
		o.PageTools = f.pageTools
	case "progressive":
		o.Progressive = true
		if f.pageTools != "dynamic" {
			o.PageTools = f.pageTools // refused by Check, with the reason
		}
		if len(f.mcp) > 0 {
			return o, errors.New("--tools progressive is the tab model's own surface, with no other tools: it cannot serve a child MCP's tools (--mcp); run the child as its own MCP server through wrap instead")
		}
	default:
		return o, fmt.Errorf("--tools must be default or progressive, got %q", f.tools)
	}
	return o, o.Check()
}

// maxStdioMessage bounds one message on stdin: a line longer than this is
// answered with an error and never held in memory whole.
const maxStdioMessage = 16 << 20

// serveStdio serves MCP on stdin/stdout until stdin closes or ctx ends.
func serveStdio(ctx context.Context, srv *server.MCPServer, log *slog.Logger) {
	// Tool calls run on a worker pool: a long browser call (a slow page)
	// must not hold up a status call.
	stdio := server.NewStdioServer(srv)
	server.WithWorkerPoolSize(16)(stdio)
	stdio.SetErrorLogger(newStdLogger(log))
	// Every message is looked at before mcp-go sees it (rpccheck): batches,
	// odd ids and oversized lines get an answer that says so.
	out := &rpccheck.LockedWriter{W: os.Stdout}
	in := rpccheck.Filter(os.Stdin, out, maxStdioMessage)
	if err := stdio.Listen(ctx, in, out); err != nil && !errors.Is(err, context.Canceled) {
		log.Error("MCP stream ended", "err", err)
	}
	log.Info("shutting down", "reason", shutdownReason(ctx))
}

func shutdownReason(ctx context.Context) string {
	if ctx.Err() != nil {
		return "signal"
	}
	return "stdin closed"
}
