package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/version"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/wrap"
)

func runVersion(w io.Writer) int {
	fmt.Fprintln(w, version.Get().String())
	return exitOK
}

func runListBrowsers(args []string, w io.Writer) int {
	fs := newFlagSet("list-browsers", "list-browsers [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d := browsers.System()
	found, err := d.Detect(ctx)
	if err != nil {
		return fail(os.Stderr, "%v", err)
	}
	if *asJSON {
		if found == nil {
			found = []browsers.Browser{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(found)
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TYPE\tVERSION\tPATH")
		for _, b := range found {
			v := b.Version
			if v == "" {
				v = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", b.Type, v, b.Path)
		}
		tw.Flush()
	}
	if len(found) == 0 {
		return fail(os.Stderr, "%v", d.NotFound())
	}
	return exitOK
}

func runStatus(args []string, w io.Writer) int {
	fs := newFlagSet("status", "status [--json] [--state-dir DIR]")
	asJSON := fs.Bool("json", false, "print JSON")
	dir := fs.String("state-dir", "", "where state files live (default $BROWSER_COORDINATOR_STATE_DIR, else a per-user folder)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	scan := state.ScanDir(state.DefaultDir(*dir))
	for _, err := range scan.Corrupt {
		fmt.Fprintf(os.Stderr, "browser-coordinator: ignoring %v\n", err)
	}
	files := make([]state.File, 0, len(scan.Live))
	for _, e := range scan.Live {
		f := e.File
		f.ControlToken = "" // a secret for the control API, not for display
		files = append(files, f)
	}
	if *asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(files)
		return exitOK
	}
	if len(files) == 0 {
		fmt.Fprintln(w, "No browser-coordinator is running.")
		return exitOK
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tSTATE\tBACKEND\tCDP ENDPOINT\tBROWSER\tWORKSPACE")
	for _, f := range files {
		b := "-"
		if f.Browser != nil {
			b = f.Browser.Type
			if f.Browser.Version != "" {
				b += " " + f.Browser.Version
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", f.PID, f.State, f.Backend, f.CDPURL(), b, f.Workspace)
	}
	tw.Flush()
	return exitOK
}

func runWrap(args []string) int {
	fs := newFlagSet("wrap", "wrap [--timeout D] [--state-dir DIR] -- CMD ARGS...")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait for a coordinator to start")
	dir := fs.String("state-dir", "", "where state files live (default $BROWSER_COORDINATOR_STATE_DIR, else a per-user folder)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fs.Usage()
		return fail(os.Stderr, "wrap: no command given; e.g. wrap -- npx @playwright/mcp --cdp-endpoint {cdp_endpoint}")
	}
	if *timeout <= 0 {
		return fail(os.Stderr, "wrap: --timeout must be positive, got %s", *timeout)
	}
	log := newLogger(true)
	f, err := wrap.Wait(context.Background(), wrap.Options{StateDir: state.DefaultDir(*dir), Timeout: *timeout, Logger: log})
	if err != nil {
		return fail(os.Stderr, "wrap: %v", err)
	}
	code, err := wrap.Exec(wrap.Expand(argv, f), wrap.Expand(os.Environ(), f))
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser-coordinator:", say(err))
	}
	return code
}
