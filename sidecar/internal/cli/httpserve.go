package cli

import (
	"context"
	"log/slog"
	"os"

	"github.com/mark3labs/mcp-go/server"
)

// serveHTTP serves MCP over streamable HTTP (/mcp) and SSE (/sse) on
// f.listen until ctx ends, and returns the exit code.
func serveHTTP(ctx context.Context, srv *server.MCPServer, f serveFlags, log *slog.Logger) int {
	return fail(os.Stderr, "--transport http is not available in this build yet")
}
