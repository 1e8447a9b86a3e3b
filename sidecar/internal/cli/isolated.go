package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/childmcp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/mcpserver"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/vscodetier"
	"github.com/mark3labs/mcp-go/server"
)

// --isolated: each agent of the coordinator works in a browser context of
// its own (package coordinator, agents.go). Who is an agent is the
// transport's to say: over stdio the coordinator serves one (its MCP
// session and the browser MCPs wrapped beside it, which must see the same
// tabs); over HTTP every MCP session is one, with an endpoint of its own
// for its CDP clients, and every connection to the coordinator's own
// endpoint (a wrapped browser MCP, a script) is one more.
//
// The default: on for --transport http with --mcp, where every session then
// gets a child MCP of its own. A child MCP holds one agent's state (its
// current tab, its snapshot's element references): one child shared by
// sessions sends each session's calls into the others' tabs (the collisions
// the soak measured), and children of their own in one shared profile still
// find each other's tabs and cookies. Playwright MCP itself, serving HTTP,
// gives each client a context of its own unless --shared-browser-context.
// Off for a browser the coordinator does not launch (--cdp-endpoint and
// --browser-service: a browser or a service may not allow contexts; --isolated
// asks for them there, and on a service puts every agent's context in the
// coordinator's one session, which Browserless allows and counts as one;
// --browser everyday; VS Code's view), and for a
// persistent --user-data-dir, whose logins live in the profile's own
// context, which isolated contexts do not see. --isolated=false shares.

// triBool is a boolean flag that knows whether it was given.
type triBool struct {
	set, on bool
}

func (b *triBool) String() string {
	if !b.set {
		return ""
	}
	return strconv.FormatBool(b.on)
}

func (b *triBool) Set(v string) error {
	on, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", v)
	}
	b.set, b.on = true, on
	return nil
}

func (b *triBool) IsBoolFlag() bool { return true }

const isolatedUsage = "every agent of this coordinator works in a browser context of its own (tabs, cookies, storage), disposed when it leaves: " +
	"over HTTP each MCP session and each connection to the CDP endpoint, over stdio the one MCP session and its wrapped browser MCPs " +
	"(default: on for --transport http with --mcp, where each session gets its own child MCP; --isolated=false shares one profile)"

// isolation is what --isolated and the other flags ask for, or why they
// cannot have it.
func (f serveFlags) isolation() (coordinator.Isolation, error) {
	on := f.isolated.on
	if !f.isolated.set {
		on = f.transport == "http" && len(f.mcp) > 0 && f.cdpEndpoint == "" && f.browserService == "" && !f.everyday() && f.userDataDir == "" && os.Getenv(vscodetier.EnvPort) == ""
	}
	if !on {
		return coordinator.Shared, nil
	}
	switch {
	case f.everyday():
		return 0, errors.New("--isolated gives each agent a browser context of its own, which your own browser cannot give through the extension (it shares tabs, not contexts): " +
			"leave out --isolated, or --browser everyday for a browser the coordinator launches")
	case os.Getenv(vscodetier.EnvPort) != "" && !f.noVSCode:
		return 0, errors.New("--isolated gives each agent a browser context of its own, and VS Code's browser view (" + vscodetier.EnvPort + " is set) is one page: " +
			"pass --no-vscode (or unset " + vscodetier.EnvPort + ") to launch a browser, or leave out --isolated")
	case f.transport == "http":
		return coordinator.IsolatedPerConnection, nil
	}
	return coordinator.IsolatedOwn, nil
}

// sessionServer makes the MCP server of one HTTP session of an isolated
// coordinator: an agent of its own, its tab and page tools on its context,
// and with --mcp a child MCP of its own on the agent's endpoint. end stops
// the child, the page tools and the agent (its context is disposed).
func sessionServer(c *coordinator.Coordinator, surface mcpserver.Options, mcp []string, log *slog.Logger) func() (*server.MCPServer, func()) {
	var n atomic.Int64
	return func() (*server.MCPServer, func()) {
		agent := c.NewAgent("MCP session " + strconv.FormatInt(n.Add(1), 10))
		o := surface
		o.Agent = agent
		var child *childmcp.Child
		if len(mcp) > 0 {
			e := agent.Endpoints()
			child = childmcp.New(childmcp.Config{
				Command: childmcp.CommandLine(mcp, state.File{ProxyPort: e.Port, ProxySecret: e.Secret}),
				Secret:  e.Secret,
				Logger:  log,
			})
			o.Child = child
		}
		served, err := mcpserver.Build(c, o) // o was checked at start
		if err != nil {
			log.Error("an MCP session's server could not be built", "err", err)
			served, _ = mcpserver.Build(c, mcpserver.Options{PageTools: mcpserver.PageToolsOff, Agent: agent})
		}
		var stopChild func() error
		if child != nil {
			stopChild = serveChild(served.MCP, c, child).Close
		}
		return served.MCP, func() {
			if stopChild != nil {
				_ = stopChild()
			}
			served.Close()
			agent.Close()
		}
	}
}
