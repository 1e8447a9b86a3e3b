package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os/exec"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/childmcp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/mcpserver"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/mark3labs/mcp-go/server"
)

// startSingleEntry starts the child MCP of single-entry mode (--mcp) and
// serves its tools from srv. The returned Closer stops the child. The child
// starts in the background: srv answers initialize at once and its first
// tools/list waits for the child's tools.
func startSingleEntry(srv *server.MCPServer, c *coordinator.Coordinator, child []string, log *slog.Logger) io.Closer {
	ch := childmcp.New(childmcp.Config{
		Command: childmcp.CommandLine(child, state.File{ProxyPort: c.Proxy().Port(), ProxySecret: c.Proxy().Secret()}),
		Secret:  c.Proxy().Secret(),
		Logger:  log,
	})
	p := childmcp.Serve(srv, ch, func(ctx context.Context) error {
		_, err := c.Ensure(ctx) // a child tool call launches the browser first
		return err
	})
	mcpserver.AttachChild(srv, c, ch)
	return p
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
