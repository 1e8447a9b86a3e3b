package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/control"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/mcpserver"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// optBool is a boolean flag that knows whether it was given.
type optBool struct{ v *bool }

func (o *optBool) String() string {
	if o.v == nil {
		return ""
	}
	return strconv.FormatBool(*o.v)
}

func (o *optBool) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", s)
	}
	o.v = &b
	return nil
}

func (o *optBool) IsBoolFlag() bool { return true }

// optString is a string flag that knows whether it was given.
type optString struct{ v *string }

func (o *optString) String() string {
	if o.v == nil {
		return ""
	}
	return *o.v
}

func (o *optString) Set(s string) error { o.v = &s; return nil }

// runControl acts on the coordinator of this folder through its control API:
// launch, stop or restart.
func runControl(action string, args []string, w io.Writer) int {
	synopsis := action + " [--state-dir DIR] [--json]"
	if action == control.ActionLaunch {
		synopsis = "launch [--headless=BOOL] [--browser T] [--browser-path P] [--url U] [--state-dir DIR] [--json]"
	}
	fs := newFlagSet(action, synopsis)
	dir := fs.String("state-dir", "", "where state files live (default $BROWSER_COORDINATOR_STATE_DIR, else a per-user folder)")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	var req coordinator.LaunchRequest
	var headless optBool
	var browser, browserPath, url optString
	if action == control.ActionLaunch {
		fs.Var(&headless, "headless", "relaunch headless (true) or with a window (false)")
		fs.Var(&browser, "browser", "relaunch with this browser type")
		fs.Var(&browserPath, "browser-path", "relaunch with this executable")
		fs.Var(&url, "url", "page to open")
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return fail(os.Stderr, "%s: unexpected argument %q", action, fs.Arg(0))
	}
	req.Headless, req.BrowserType, req.BrowserPath, req.URL = headless.v, browser.v, browserPath.v, url.v

	stateDir := state.DefaultDir(*dir)
	cwd, _ := os.Getwd()
	scan := state.ScanDir(stateDir)
	e, ok := scan.Pick(cwd, true)
	if !ok {
		return fail(os.Stderr, "no browser-coordinator is running (no live state file in %s); start one with `browser-coordinator` or through your MCP host", stateDir)
	}
	if !state.SameDir(e.File.Workspace, cwd) {
		fmt.Fprintf(os.Stderr, "browser-coordinator: none serves %s; using the newest one (pid %d, workspace %s)\n", cwd, e.File.PID, e.File.Workspace)
	}
	var body any
	if action == control.ActionLaunch {
		body = req
	}
	client := control.Client{Endpoint: e.File.ControlURL(), Token: e.File.ControlToken}
	s, err := client.Do(context.Background(), action, body)
	if err != nil {
		fmt.Fprintf(os.Stderr, "browser-coordinator: %s: %s\n", action, say(err))
		if s.ProxyPort == 0 {
			return exitError
		}
	}
	if *asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(s)
	} else {
		fmt.Fprintln(w, mcpserver.RenderStatus(s))
	}
	if err != nil {
		return exitError
	}
	return exitOK
}
