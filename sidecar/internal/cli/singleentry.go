package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/mark3labs/mcp-go/server"
)

// startSingleEntry starts the child MCP of single-entry mode (--mcp) and
// serves its tools from srv. The returned Closer stops the child.
func startSingleEntry(ctx context.Context, srv *server.MCPServer, c *coordinator.Coordinator, child []string, log *slog.Logger) (io.Closer, error) {
	return nil, errors.New("--mcp: single-entry mode is not available in this build yet")
}
