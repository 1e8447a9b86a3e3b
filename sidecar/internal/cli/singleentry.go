package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os/exec"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/childmcp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/mark3labs/mcp-go/server"
)

// newChild is the child MCP of single-entry mode (--mcp), not started yet:
// the MCP server is built with it (mcpserver.Options.Child), then serves
// its tools (serveChild).
func newChild(c *coordinator.Coordinator, child []string, log *slog.Logger) *childmcp.Child {
	return childmcp.New(childmcp.Config{
		Command: childmcp.CommandLine(child, state.File{ProxyPort: c.Proxy().Port(), ProxySecret: c.Proxy().Secret()}),
		Secret:  c.Proxy().Secret(),
		Logger:  log,
	})
}

// serveChild starts the child and serves its tools from srv. The returned
// Closer stops the child. The child starts in the background: srv answers
// initialize at once and its first tools/list waits for the child's tools.
func serveChild(srv *server.MCPServer, c *coordinator.Coordinator, ch *childmcp.Child) io.Closer {
	return childmcp.Serve(srv, ch, func(ctx context.Context) error {
		_, err := c.Ensure(ctx) // a child tool call launches the browser first
		return err
	})
}

// childCommand reads the command line given after --mcp: nothing means
// Playwright MCP, an npm package spec that is not a command on PATH runs
// through npx -y (childmcp.Resolve).
func childCommand(argv []string) ([]string, error) {
	cmd, _, err := childmcp.Resolve(argv, exec.LookPath)
	if err != nil {
		return nil, fmt.Errorf("--mcp: %w", err)
	}
	return cmd, nil
}
