package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/mcpconfig"
)

func runInstall(args []string, w io.Writer) int {
	fs := newFlagSet("install", "install --host claude-code|cursor|vscode|claude-desktop [--scope project|user] [--child playwright|chrome-devtools|none|'CMD ...'] [--workspace DIR] [--sidecar PATH] [--dry-run]")
	host := fs.String("host", "", "the MCP host: claude-code (.mcp.json), cursor (.cursor/mcp.json), vscode (.vscode/mcp.json) or claude-desktop (claude_desktop_config.json: one entry with --mcp)")
	scope := fs.String("scope", "", "project (the default): the workspace's file; user: the user-level file (claude-desktop has only this one)")
	child := fs.String("child", "playwright", "the browser MCP to wrap: playwright, chrome-devtools, none, or a command line")
	workspace := fs.String("workspace", "", "the project folder (default: the current folder)")
	sidecar := fs.String("sidecar", "", "the command the entries run (default: this binary's path)")
	dryRun := fs.Bool("dry-run", false, "print the resulting file instead of writing it")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return fail(os.Stderr, "install: unexpected argument %q (quote a custom --child command)", fs.Arg(0))
	}
	hosts := make([]string, len(mcpconfig.Hosts))
	for i, h := range mcpconfig.Hosts {
		hosts[i] = string(h)
	}
	if *host == "" {
		return fail(os.Stderr, "install: --host is required: one of %s", strings.Join(hosts, ", "))
	}
	o := mcpconfig.Options{
		Host:      mcpconfig.Host(*host),
		Scope:     mcpconfig.Scope(*scope),
		Child:     *child,
		Workspace: *workspace,
		Sidecar:   *sidecar,
		GOOS:      runtime.GOOS,
		Getenv:    os.Getenv,
		LookPath:  exec.LookPath,
	}
	if o.Workspace == "" {
		o.Workspace, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(o.Workspace); err == nil {
		o.Workspace = abs
	}
	o.Home, _ = os.UserHomeDir()
	if o.Sidecar == "" {
		exe, err := os.Executable()
		if err != nil {
			return fail(os.Stderr, "install: cannot tell this binary's path (%v); pass --sidecar", err)
		}
		if resolved, err := filepath.EvalSymlinks(exe); err == nil {
			exe = resolved
		}
		o.Sidecar = exe
		if onPath, err := exec.LookPath("browser-coordinator"); err == nil {
			if resolved, err := filepath.EvalSymlinks(onPath); err == nil && resolved == exe {
				// This very binary is on PATH: the entries name it so, and
				// work on every machine that has it there (a teammate's, the
				// next version's), not at this machine's path.
				o.Sidecar = "browser-coordinator"
			}
		}
		if inNpxCache(exe) {
			// `npx -y browser-coordinator install …`: the binary sits in
			// npx's cache, which is no place to point a config at. The
			// entries run it the same way, as the product's quick start does.
			o.Sidecar, o.SidecarArgs = "npx", []string{"-y", npmPackage}
			fmt.Fprintf(os.Stderr, "browser-coordinator: note: this binary runs from npx's cache (%s): the entries start it with npx -y %s\n", exe, npmPackage)
		}
	}
	r, err := mcpconfig.Install(o, *dryRun)
	if err != nil {
		return fail(os.Stderr, "%v", err)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(os.Stderr, "browser-coordinator: note:", n)
	}
	names := make([]string, len(r.Entries))
	for i, e := range r.Entries {
		names[i] = e.Name
	}
	switch {
	case *dryRun:
		_, _ = w.Write(r.Content)
		fmt.Fprintf(os.Stderr, "browser-coordinator: dry run: %s would get %s; nothing written\n", r.Path, strings.Join(names, ", "))
	case r.Changed:
		fmt.Fprintf(w, "wrote %s: %s\n", r.Path, strings.Join(names, ", "))
	default:
		fmt.Fprintf(w, "%s is up to date: %s\n", r.Path, strings.Join(names, ", "))
	}
	return exitOK
}

// npmPackage is the npm package that ships this binary.
const npmPackage = "browser-coordinator"

// inNpxCache reports whether exe was installed by npx on the fly
// (~/.npm/_npx/<hash>/node_modules/…).
func inNpxCache(exe string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(exe), "/"), "_npx")
}
