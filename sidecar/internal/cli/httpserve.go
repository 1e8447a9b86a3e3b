package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/mcphttp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/version"
	"github.com/mark3labs/mcp-go/server"
)

// envToken is the environment's bearer token for --transport http.
const envToken = "BROWSER_COORDINATOR_TOKEN"

// token is the bearer token HTTP clients must send: --token, else the
// environment's.
func (f serveFlags) httpToken() string {
	if f.token != "" {
		return f.token
	}
	return os.Getenv(envToken)
}

// checkTransport checks the transport flags before anything starts.
func (f serveFlags) checkTransport() error {
	if f.transport != "http" {
		if f.token != "" {
			return errors.New("--token only applies with --transport http (stdio needs no token: only the MCP host that started the server can talk to it)")
		}
		return nil
	}
	return mcphttp.CheckListen(f.listen, f.httpToken())
}

// serveHTTP serves MCP over streamable HTTP (/mcp) and SSE (/sse) on
// f.listen until ctx ends, and returns the exit code: 3 when the address
// cannot be bound. Standard input plays no part: the server runs until
// SIGINT or SIGTERM.
func serveHTTP(ctx context.Context, srv *server.MCPServer, c *coordinator.Coordinator, f serveFlags, log *slog.Logger) int {
	ln, err := mcphttp.Listen(f.listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser-coordinator:", err)
		return exitPortInUse
	}
	token := f.httpToken()
	base := "http://" + ln.Addr().String()
	auth := "none (loopback only)"
	if token != "" {
		auth = "bearer token"
	}
	log.Info("serving MCP over HTTP", "version", version.Get().Version, "mcp", base+mcphttp.PathStreamable, "sse", base+mcphttp.PathSSE,
		"cdpEndpoint", c.Status().CDPEndpoint, "auth", auth)
	h := mcphttp.New(srv, mcphttp.Config{Token: token, Logger: log})
	if err := h.Serve(ctx, ln); err != nil {
		return fail(os.Stderr, "HTTP transport: %v", err)
	}
	return exitOK
}
