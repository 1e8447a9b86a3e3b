package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/access"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/mcphttp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/version"
	"github.com/mark3labs/mcp-go/server"
)

// envToken is the environment's bearer token for --transport http.
const envToken = "BROWSER_COORDINATOR_TOKEN"

// checkTransport checks the transport flags before anything starts.
func (f serveFlags) checkTransport() error {
	if f.transport != "http" {
		switch {
		case f.token != "":
			return errors.New("--token only applies with --transport http (stdio needs no token: only the MCP host that started the server can talk to it)")
		case f.insecureNoToken:
			return errors.New("--insecure-no-token only applies with --transport http")
		case len(f.allowOrigins) > 0:
			return errors.New("--allow-origin only applies with --transport http (the CDP proxy lets in no web page)")
		}
		return nil
	}
	if f.insecureNoToken && (f.token != "" || os.Getenv(envToken) != "") {
		return errors.New("--insecure-no-token and a token (--token or " + envToken + ") contradict each other: choose one")
	}
	if f.insecureNoToken && len(f.allowOrigins) > 0 {
		return errors.New("--allow-origin needs the token: without one, a page you let in could drive the browser with nothing to prove; drop --insecure-no-token, or --allow-origin")
	}
	if _, err := f.origins(); err != nil {
		return err
	}
	return mcphttp.CheckListen(f.listen, f.token != "" || os.Getenv(envToken) != "")
}

// origins are the --allow-origin values, as browsers write an origin.
func (f serveFlags) origins() ([]string, error) {
	var out []string
	for _, o := range f.allowOrigins {
		origin, err := access.ParseOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("--allow-origin: %w", err)
		}
		out = append(out, origin)
	}
	return out, nil
}

// httpToken is the bearer token HTTP clients must send, and where it comes
// from: --token (with a warning: every local user can read a command
// line), else $BROWSER_COORDINATOR_TOKEN, else the one kept in the state
// folder's http-token, made the first time. "" only with --insecure-no-token.
func (f serveFlags) httpToken(stateDir string, log *slog.Logger) (token, hint string, err error) {
	switch {
	case f.insecureNoToken:
		log.Warn("serving MCP over HTTP without a token (--insecure-no-token): every program on this machine, of any user, can drive the browser")
		return "", "", nil
	case f.token != "":
		log.Warn("--token on the command line can be read by every local user (ps, /proc/PID/cmdline); set " + envToken + " instead")
		return f.token, " (the token given with --token)", nil
	case os.Getenv(envToken) != "":
		return os.Getenv(envToken), " (the token in " + envToken + ")", nil
	}
	token, path, created, err := mcphttp.LoadOrCreateToken(stateDir)
	if err != nil {
		return "", "", err
	}
	if created {
		log.Info("made a bearer token for HTTP clients; it is kept for the next starts", "file", path)
	} else {
		log.Info("HTTP clients need the bearer token in this file", "file", path)
	}
	return token, " (the token is in " + path + ")", nil
}

// serveHTTP serves MCP over streamable HTTP (/mcp) and SSE (/sse) on
// f.listen until ctx ends, and returns the exit code: 3 when the address
// cannot be bound. Standard input plays no part: the server runs until
// SIGINT or SIGTERM.
// perSession, if set, gives every session a server of its own (--isolated).
func serveHTTP(ctx context.Context, srv *server.MCPServer, c *coordinator.Coordinator, f serveFlags, stateDir string, log *slog.Logger, perSession func() (*server.MCPServer, func())) int {
	token, hint, err := f.httpToken(stateDir, log)
	if err != nil {
		return fail(os.Stderr, "%v", err)
	}
	ln, err := mcphttp.Listen(f.listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser-coordinator:", say(err))
		return exitPortInUse
	}
	base := "http://" + ln.Addr().String()
	auth := "bearer token"
	if token == "" {
		auth = "none (--insecure-no-token)"
	}
	log.Info("serving MCP over HTTP", "version", version.Get().Version, "mcp", base+mcphttp.PathStreamable, "sse", base+mcphttp.PathSSE,
		"cdpEndpoint", c.Status().CDPEndpoint, "auth", auth, "allowOrigins", f.allowOrigins, "isolated", perSession != nil)
	origins, err := f.origins()
	if err != nil {
		return fail(os.Stderr, "%v", err)
	}
	h := mcphttp.New(srv, mcphttp.Config{Token: token, Insecure: token == "", TokenHint: hint, Logger: log, PerSession: perSession,
		AllowOrigins: origins, OriginHint: "; a web client you trust can be let in with --allow-origin ORIGIN (it still needs the token)"})
	if err := h.Serve(ctx, ln); err != nil {
		return fail(os.Stderr, "HTTP transport: %v", err)
	}
	return exitOK
}
