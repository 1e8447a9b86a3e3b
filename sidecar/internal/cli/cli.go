// Package cli is the browser-coordinator command line: it parses arguments,
// wires the packages together and maps failures to exit codes. Commands
// other than serve print to stdout; serve's stdout is the MCP stream and
// only the MCP server writes to it.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativehost"
)

// Exit codes.
const (
	exitOK          = 0
	exitError       = 1 // bad arguments, or the command failed
	exitUnreachable = 2 // a CDP endpoint given to attach to does not answer
	exitPortInUse   = 3 // a port to listen on cannot be bound
)

const usage = `browser-coordinator — owns a browser for AI agents' browser tools and serves it
on one CDP endpoint that never changes.

Usage:
  browser-coordinator [serve] [flags]        MCP server on stdio (coordinator_* tools) + CDP proxy
  browser-coordinator [serve] [flags] --mcp [CMD ARGS... | PACKAGE ARGS...]
                                             the same, and a browser MCP's tools in one entry: a
                                             command, an npm package (run with npx -y), or
                                             nothing for Playwright MCP (@playwright/mcp@latest)
  browser-coordinator wrap [--timeout D] -- CMD ARGS...
                                             run a browser MCP with {cdp_endpoint}, {cdp_port},
                                             {ws_endpoint} filled in from this folder's coordinator
  browser-coordinator list-browsers [--json] the installed browsers
  browser-coordinator status [--json]        the coordinators running on this machine
  browser-coordinator launch|stop|restart [--headless=BOOL] [--browser T]
                                             act on this folder's coordinator (control API)
  browser-coordinator install --host claude-code|cursor|vscode|claude-desktop
                      [--scope project|user] [--child playwright|chrome-devtools|none|'CMD ...']
                      [--dry-run]            add the coordinator and a wrapped browser MCP to
                                             that host's MCP config, keeping everything else
                                             (claude-desktop: one entry with --mcp)
  browser-coordinator install --host chrome|edge|chromium|brave [--user-data-dir DIR]
                                             register the native host of the Browser
                                             Coordinator extension (your own browser)
  browser-coordinator native-host ORIGIN     the native host; the browser starts it
  browser-coordinator --version              version, commit, platform, where it came from

Run 'browser-coordinator COMMAND --help' for a command's flags.
Environment: BROWSER_COORDINATOR_DEBUG=1 logs debug output to stderr;
BROWSER_COORDINATOR_STATE_DIR sets where state files live.
`

// Main runs the command line and returns the process exit code.
func Main(args []string) int {
	if code, ok := runInternal(args); ok {
		return code
	}
	if len(args) > 0 && nativehost.IsOrigin(args[0]) {
		return runNativeHost(args) // Chrome starting the native host
	}
	cmd, rest := "serve", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, rest = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		if len(rest) > 0 && (rest[0] == "--version" || rest[0] == "-version" || rest[0] == "-v") {
			return runVersion(os.Stdout)
		}
		return runServe(rest)
	case "wrap":
		return runWrap(rest)
	case "list-browsers":
		return runListBrowsers(rest, os.Stdout)
	case "status":
		return runStatus(rest, os.Stdout)
	case "launch", "stop", "restart":
		return runControl(cmd, rest, os.Stdout)
	case "install":
		if isBrowserHost(rest) {
			return runInstallBrowserHost(rest, os.Stdout)
		}
		return runInstall(rest, os.Stdout)
	case "native-host":
		return runNativeHost(rest)
	case "version":
		return runVersion(os.Stdout)
	case "help":
		fmt.Fprint(os.Stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(os.Stderr, "browser-coordinator: unknown command %q\n\n%s", cmd, usage)
		return exitError
	}
}

// newLogger logs to stderr: info by default, debug with BROWSER_COORDINATOR_DEBUG.
func newLogger(quiet bool) *slog.Logger {
	level := slog.LevelInfo
	if quiet {
		level = slog.LevelWarn
	}
	if v := os.Getenv("BROWSER_COORDINATOR_DEBUG"); v != "" && v != "0" && v != "false" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// newFlagSet makes a flag set that reports errors instead of exiting.
func newFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: browser-coordinator %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses and maps -h and bad flags to exit codes; ok is false
// when the command should return code.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK, false
	case err != nil:
		return exitError, false
	}
	return 0, true
}

func fail(w io.Writer, format string, a ...any) int {
	for i, v := range a {
		if err, ok := v.(error); ok {
			a[i] = say(err) // its remedies, in flags
		}
	}
	fmt.Fprintf(w, "browser-coordinator: "+format+"\n", a...)
	return exitError
}
