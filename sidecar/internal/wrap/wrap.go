// Package wrap runs a child MCP server with the CDP endpoint of a live
// coordinator filled into its arguments: `browser-coordinator wrap -- npx
// @playwright/mcp --cdp-endpoint {cdp_endpoint}`.
//
// The coordinator may start after wrap (MCP hosts start their servers in
// parallel), so wrap waits for a state file with fsnotify: the folder is
// watched before it is read, so no file can appear unseen, and nothing polls.
package wrap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/fsnotify/fsnotify"
)

// Options configure Wait.
type Options struct {
	StateDir  string        // where coordinators write state files (required)
	Workspace string        // the folder to find a coordinator for; "" means the cwd
	Timeout   time.Duration // give up after this long; 0 means 30 s
	// Grace is how long a coordinator of the same workspace is preferred
	// before another live one is taken; 0 means 2 s. MCP hosts start the
	// coordinator and the wrapped child together, so another project's
	// coordinator that is already running must not win the race.
	Grace  time.Duration
	Logger *slog.Logger

	// waiting, when set, is called each time Wait has looked and blocks
	// until the folder changes (or a timer): tests write files after it.
	waiting func()
}

// ErrNoCoordinator is returned when no live coordinator appeared in time.
var ErrNoCoordinator = errors.New("no browser-coordinator is running")

// Wait returns the state of the coordinator serving o.Workspace: one of the
// same workspace, else after o.Grace the newest live one, waiting up to
// o.Timeout for one to appear.
func Wait(ctx context.Context, o Options) (state.File, error) {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	if o.Workspace == "" {
		o.Workspace, _ = os.Getwd()
	}
	if err := state.EnsureDir(o.StateDir); err != nil {
		return state.File{}, err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return state.File{}, err
	}
	defer w.Close()
	if err := w.Add(o.StateDir); err != nil {
		return state.File{}, fmt.Errorf("watch %s: %w", o.StateDir, err)
	}

	start := time.Now()
	timeout := time.NewTimer(o.Timeout)
	defer timeout.Stop()
	grace := time.NewTimer(o.Grace)
	defer grace.Stop()
	fallback := false
	warned := map[string]bool{}
	for {
		scan := state.ScanDir(o.StateDir)
		for _, err := range scan.Corrupt {
			if !warned[err.Error()] {
				warned[err.Error()] = true
				log.Warn("ignoring a state file", "err", err)
			}
		}
		if e, ok := scan.Pick(o.Workspace, fallback); ok {
			if !state.SameDir(e.File.Workspace, o.Workspace) {
				log.Info("no coordinator for this workspace; using the newest live one", "workspace", e.File.Workspace)
			}
			log.Debug("found coordinator", "state", e.Path, "proxyPort", e.File.ProxyPort, "waited", time.Since(start))
			return e.File, nil
		}
		if o.waiting != nil {
			o.waiting()
		}
		select {
		case <-w.Events:
			// Any change in the folder: scan it again (the scan skips the
			// temp files of atomic writes).
		case err := <-w.Errors:
			log.Debug("state directory watch", "err", err)
		case <-grace.C:
			fallback = true
		case <-timeout.C:
			return state.File{}, remedy.With(fmt.Errorf("%w for %s (waited %s for a state file in %s).\n"+
				"Start one next to this command, e.g. add an MCP server entry {\"command\": \"browser-coordinator\"} "+
				"in the same MCP config, or run `browser-coordinator` in this folder",
				ErrNoCoordinator, o.Workspace, o.Timeout, o.StateDir), remedy.WaitLonger)
		case <-ctx.Done():
			return state.File{}, ctx.Err()
		}
	}
}

// Templates are the placeholders Expand replaces.
var Templates = []string{"{cdp_port}", "{cdp_endpoint}", "{ws_endpoint}"}

// EndpointFlags name a CDP endpoint on the command lines of the browser MCPs
// people run: Playwright MCP's --cdp-endpoint, chrome-devtools-mcp's
// --browserUrl / --browser-url / --wsEndpoint / --ws-endpoint.
var EndpointFlags = []string{"--cdp-endpoint", "--browserUrl", "--browser-url", "--wsEndpoint", "--ws-endpoint"}

// HasTemplate reports whether an argument holds one of the Templates.
func HasTemplate(args []string) bool {
	for _, a := range args {
		for _, t := range Templates {
			if strings.Contains(a, t) {
				return true
			}
		}
	}
	return false
}

// NamesEndpoint reports whether args give an endpoint flag (as --flag value
// or --flag=value), so the command already knows its CDP endpoint.
func NamesEndpoint(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		if slices.Contains(EndpointFlags, name) {
			return true
		}
	}
	return false
}

// Expand replaces {cdp_port}, {cdp_endpoint} and {ws_endpoint} in args,
// anywhere in an argument (e.g. --cdp-endpoint={cdp_endpoint}), or in an
// environment's NAME=value entries (e.g. PLAYWRIGHT_MCP_CDP_ENDPOINT=
// {cdp_endpoint}: unlike a command line, no other user can read it). The
// endpoints are built from the state's port and secret on 127.0.0.1, never
// taken as written in the file.
func Expand(args []string, f state.File) []string {
	r := strings.NewReplacer(
		"{cdp_port}", strconv.Itoa(f.ProxyPort),
		"{cdp_endpoint}", f.CDPURL(),
		"{ws_endpoint}", f.WSURL(),
	)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = r.Replace(a)
	}
	return out
}
