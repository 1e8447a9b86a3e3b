package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/mcpconfig"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

const installSynopsis = "install --host claude-code|cursor|vscode|claude-desktop [--scope project|user|local] " +
	"[--child playwright|chrome-devtools|none|'CMD ...'] [--workspace DIR] [--sidecar PATH | --npx] [--vscode FLAVOUR] " +
	"[--prune] [--remove [--all-workspaces]] [--dry-run] [--json]"

// installFlags are install's flags for an MCP host.
type installFlags struct {
	host, scope, child, workspace, sidecar, vscode  string
	npx, prune, remove, allWorkspaces, dryRun, json bool
}

func parseInstall(args []string) (installFlags, int, bool) {
	var f installFlags
	fs := newFlagSet("install", installSynopsis)
	fs.StringVar(&f.host, "host", "", "the MCP host: claude-code (.mcp.json), cursor (.cursor/mcp.json), vscode (.vscode/mcp.json) or claude-desktop (claude_desktop_config.json: one entry with --mcp)")
	fs.StringVar(&f.scope, "scope", "", "project (the default): the workspace's file; user: the user-level file (claude-desktop has only this one); "+
		"local: Claude Code's own scope for you in this workspace (~/.claude.json, or $CLAUDE_CONFIG_DIR/.claude.json)")
	fs.StringVar(&f.child, "child", "playwright", "the browser MCP to wrap: playwright, chrome-devtools, none, or a command line")
	fs.StringVar(&f.workspace, "workspace", "", "the project folder (default: the current folder)")
	fs.StringVar(&f.sidecar, "sidecar", "", "the command the entries run (default: this binary's path); with --remove, take out only the entries that run it")
	fs.BoolVar(&f.npx, "npx", false, "the entries start the coordinator with `npx -y browser-coordinator`: portable, for a file teammates share")
	fs.StringVar(&f.vscode, "vscode", "", "with --host vscode --scope user: the VS Code flavour whose user folder gets the entries: stable (the default), insiders, oss or codium")
	fs.BoolVar(&f.prune, "prune", false, "also take out the other entries that run browser-coordinator there (a previous child's)")
	fs.BoolVar(&f.remove, "remove", false, "take out the entries that run browser-coordinator there instead of writing any")
	fs.BoolVar(&f.allWorkspaces, "all-workspaces", false, "with --remove --scope local: in every folder of Claude Code's file")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the resulting file instead of writing it")
	fs.BoolVar(&f.json, "json", false, "print what was found and done as JSON (for programs: the VS Code extension)")
	if code, ok := parseFlags(fs, args); !ok {
		return f, code, false
	}
	if fs.NArg() > 0 {
		return f, fail(os.Stderr, "install: unexpected argument %q (quote a custom --child command)", fs.Arg(0)), false
	}
	return f, 0, true
}

// options checks the flags and turns them into mcpconfig's options.
func (f installFlags) options() (mcpconfig.Options, error) {
	if f.host == "" {
		hosts := make([]string, len(mcpconfig.Hosts))
		for i, h := range mcpconfig.Hosts {
			hosts[i] = string(h)
		}
		return mcpconfig.Options{}, fmt.Errorf("install: --host is required: one of %s", strings.Join(hosts, ", "))
	}
	switch {
	case f.npx && f.sidecar != "":
		return mcpconfig.Options{}, errors.New("install: --npx and --sidecar both say what the entries run: give one")
	case f.allWorkspaces && (!f.remove || f.scope != string(mcpconfig.Local)):
		return mcpconfig.Options{}, errors.New("install: --all-workspaces goes with --remove --scope local")
	}
	o := mcpconfig.Options{
		Host: mcpconfig.Host(f.host), Scope: mcpconfig.Scope(f.scope), Child: f.child, Workspace: f.workspace,
		VSCodeProduct: f.vscode, Prune: f.prune, Remove: f.remove, AllWorkspaces: f.allWorkspaces,
		GOOS: runtime.GOOS, Getenv: os.Getenv, LookPath: exec.LookPath,
	}
	if o.Workspace == "" {
		o.Workspace, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(o.Workspace); err == nil {
		o.Workspace = abs
	}
	o.Home, _ = os.UserHomeDir()
	switch {
	case f.remove:
		o.RemoveRunning = f.sidecar
	case f.npx:
		o.Sidecar, o.SidecarArgs = "npx", []string{"-y", npmPackage}
	case f.sidecar != "":
		o.Sidecar = f.sidecar
	default:
		return o, thisBinary(&o)
	}
	return o, nil
}

// thisBinary names this binary in the entries: by its name when it is the
// one on PATH, through npx when npx runs it from its cache, else by path.
func thisBinary(o *mcpconfig.Options) error {
	exe, err := os.Executable()
	if err != nil {
		return remedy.With(fmt.Errorf("install: cannot tell this binary's path (%v)", err), remedy.AbsoluteSidecar)
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
	return nil
}

func runInstall(args []string, w io.Writer) int {
	f, code, ok := parseInstall(args)
	if !ok {
		return code
	}
	o, err := f.options()
	if err == nil {
		var r mcpconfig.Result
		if r, err = mcpconfig.Install(o, f.dryRun); err == nil {
			report(w, f, o, r)
			return exitOK
		}
	}
	if f.json {
		_ = encodeJSON(w, installFailure(err))
	}
	return fail(os.Stderr, "%s", installWords().Error(err))
}

// report prints what install did: JSON, the file (dry run), or a line.
func report(w io.Writer, f installFlags, o mcpconfig.Options, r mcpconfig.Result) {
	if f.json {
		_ = encodeJSON(w, newInstallReport(f, o, r))
		return
	}
	for _, n := range r.Notes {
		fmt.Fprintln(os.Stderr, "browser-coordinator: note:", n)
	}
	names := make([]string, len(r.Entries))
	for i, e := range r.Entries {
		names[i] = e.Name
	}
	if f.remove {
		names = names[:0]
		for _, x := range r.Removed {
			names = append(names, x.Name)
		}
	}
	done := strings.Join(names, ", ")
	switch {
	case f.dryRun:
		_, _ = w.Write(r.Content)
		verb := "get"
		if f.remove {
			verb = "lose"
		}
		fmt.Fprintf(os.Stderr, "browser-coordinator: dry run: %s would %s %s; nothing written\n", r.Path, verb, done)
	case f.remove && r.Changed:
		fmt.Fprintf(w, "removed from %s: %s\n", r.Path, done)
	case f.remove:
		fmt.Fprintf(w, "%s has no entries of browser-coordinator to remove\n", r.Path)
	case r.Changed:
		fmt.Fprintf(w, "wrote %s: %s\n", r.Path, done)
	default:
		fmt.Fprintf(w, "%s is up to date: %s\n", r.Path, done)
	}
}

// installReport is `install --json`'s answer: where the host's entries
// are, what was there (judged), and what changed.
type installReport struct {
	Host      string `json:"host"`
	Scope     string `json:"scope"`
	File      string `json:"file"`
	Workspace string `json:"workspace,omitempty"`
	// Key is where the server map is in the file, e.g. ["mcpServers"] or
	// ["projects", "/home/u/app", "mcpServers"].
	Key []string `json:"key"`
	// Entries are what install writes there, by name, in order.
	Entries []installEntry `json:"entries"`
	// Found are the entries that ran browser-coordinator there before, judged.
	Found []mcpconfig.Found `json:"found"`
	// UpToDate: before this run every entry of Entries was there as
	// written, and no other entry that runs browser-coordinator.
	UpToDate bool                `json:"upToDate"`
	DryRun   bool                `json:"dryRun"`
	Changed  bool                `json:"changed"`
	Wrote    []string            `json:"wrote"`
	Removed  []mcpconfig.Removed `json:"removed"`
	Notes    []string            `json:"notes"`
	Content  *string             `json:"content,omitempty"` // with --dry-run: the file as it would be
}

type installEntry struct {
	Name  string `json:"name"`
	Entry any    `json:"entry"`
}

func newInstallReport(f installFlags, o mcpconfig.Options, r mcpconfig.Result) installReport {
	rep := installReport{
		Host: f.host, Scope: string(o.Scope), File: r.Path, Key: r.Key, Found: r.Found, UpToDate: r.UpToDate,
		DryRun: f.dryRun, Changed: r.Changed, Wrote: r.Wrote, Removed: r.Removed, Notes: r.Notes,
		Entries: []installEntry{},
	}
	if rep.Scope == "" {
		rep.Scope = string(mcpconfig.Project)
	}
	if rep.Scope != string(mcpconfig.User) && !f.allWorkspaces {
		rep.Workspace = o.Workspace
	}
	for _, e := range r.Entries {
		rep.Entries = append(rep.Entries, installEntry{e.Name, e.Value})
	}
	for _, list := range []*[]string{&rep.Wrote, &rep.Notes} {
		if *list == nil {
			*list = []string{}
		}
	}
	if rep.Found == nil {
		rep.Found = []mcpconfig.Found{}
	}
	if rep.Removed == nil {
		rep.Removed = []mcpconfig.Removed{}
	}
	if f.dryRun {
		c := string(r.Content)
		rep.Content = &c
	}
	return rep
}

// installError is `install --json`'s answer when it failed: what went
// wrong, its remedies as kinds, and where a file does not parse.
type installError struct {
	Error    string          `json:"error"`
	File     string          `json:"file,omitempty"`
	Remedies []remedy.Remedy `json:"remedies,omitempty"`
	Line     int             `json:"line,omitempty"`
	Column   int             `json:"column,omitempty"`
}

func installFailure(err error) installError {
	e := installError{Error: err.Error(), Remedies: remedy.Of(err)}
	var fe *mcpconfig.FileError
	if errors.As(err, &fe) {
		e.File = fe.File
	}
	var se *mcpconfig.SyntaxError
	if errors.As(err, &se) {
		e.Line, e.Column = se.Line, se.Column
	}
	return e
}

func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// npmPackage is the npm package that ships this binary.
const npmPackage = "browser-coordinator"

// inNpxCache reports whether exe was installed by npx on the fly
// (~/.npm/_npx/<hash>/node_modules/…).
func inNpxCache(exe string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(exe), "/"), "_npx")
}
