package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativehost"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/version"
)

// runNativeHost is `browser-coordinator native-host ORIGIN`, and also the
// bare `browser-coordinator chrome-extension://ID/ [--parent-window=N]` that
// Chrome runs: the host manifest names this binary, and Chrome passes the
// caller's origin (and on Windows its window) as arguments.
func runNativeHost(args []string) int {
	fs := newFlagSet("native-host", "native-host [--state-dir DIR] chrome-extension://ID/  (started by the browser, not by hand)")
	dir := fs.String("state-dir", "", "the per-user state folder (default as serve's; $BROWSER_COORDINATOR_STATE_DIR)")
	var origin string
	var rest []string
	for _, a := range args {
		switch {
		case nativehost.IsOrigin(a) && origin == "":
			origin = a
		case strings.HasPrefix(a, "--parent-window"):
			// Windows: the calling window's handle; nothing to do with it.
		default:
			rest = append(rest, a)
		}
	}
	if code, ok := parseFlags(fs, rest); !ok {
		return code
	}
	if origin == "" {
		return fail(os.Stderr, "native-host: the browser starts this with the extension's origin (chrome-extension://ID/); "+
			"register it with 'browser-coordinator install --host chrome|edge|chromium|brave' instead of running it by hand")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// Chrome shows nothing of stderr to the user but keeps it in its log
	// (chrome --enable-logging); stdout is the extension's channel.
	err := nativehost.Run(ctx, nativehost.Options{
		Origin:   origin,
		StateDir: state.DefaultDir(*dir),
		In:       os.Stdin,
		Out:      os.Stdout,
		Version:  version.Get().Version,
		Logger:   newLogger(false),
	})
	if err != nil {
		return fail(os.Stderr, "native-host: %v", err)
	}
	return exitOK
}

// isBrowserHost reports whether install's --host names a browser (the
// native host) rather than an MCP host.
func isBrowserHost(args []string) bool {
	for i, a := range args {
		v, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), "host=")
		if !ok && (a == "--host" || a == "-host") && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if ok {
			for _, b := range nativehost.Browsers() {
				if v == b {
					return true
				}
			}
			return false
		}
	}
	return false
}

// runInstallBrowserHost is `install --host chrome|edge|chromium|brave`.
func runInstallBrowserHost(args []string, w io.Writer) int {
	fs := newFlagSet("install", "install --host chrome|edge|chromium|brave [--user-data-dir DIR] [--sidecar PATH] [--dry-run]")
	host := fs.String("host", "", "the browser: "+strings.Join(nativehost.Browsers(), ", "))
	userDataDir := fs.String("user-data-dir", "", "a profile folder (a browser started with --user-data-dir): register the host in it only")
	sidecar := fs.String("sidecar", "", "the binary the browser starts (default: this binary's path)")
	dryRun := fs.Bool("dry-run", false, "print the host manifest instead of writing it")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return fail(os.Stderr, "install: unexpected argument %q", fs.Arg(0))
	}
	bin := *sidecar
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return fail(os.Stderr, "install: cannot tell this binary's path (%v); pass --sidecar", err)
		}
		if resolved, err := filepath.EvalSymlinks(exe); err == nil {
			exe = resolved
		}
		bin = exe
	} else if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	udd := *userDataDir
	if udd != "" {
		if abs, err := filepath.Abs(udd); err == nil {
			udd = abs
		}
	}
	home, _ := os.UserHomeDir()
	r, err := nativehost.Install(nativehost.InstallOptions{
		Browser: *host, UserDataDir: udd, Binary: bin,
		GOOS: runtime.GOOS, Home: home, Getenv: os.Getenv, DryRun: *dryRun,
	})
	if err != nil {
		return fail(os.Stderr, "install: %v", err)
	}
	switch {
	case *dryRun:
		_, _ = w.Write(r.Content)
		fmt.Fprintf(os.Stderr, "browser-coordinator: dry run: %s would be written; nothing written\n", r.Manifest)
	case r.Changed:
		fmt.Fprintf(w, "registered the native host for %s: %s\n", *host, r.Manifest)
	default:
		fmt.Fprintf(w, "the native host for %s is up to date: %s\n", *host, r.Manifest)
	}
	if r.Registry != "" {
		fmt.Fprintf(w, "registry: HKEY_CURRENT_USER\\%s\n", r.Registry)
	}
	return exitOK
}
