// Package mcpconfig writes Browser Coordinator's entries into MCP hosts'
// configuration files (`browser-coordinator install`): Claude Code's
// .mcp.json, Cursor's .cursor/mcp.json, VS Code's .vscode/mcp.json, or their
// user-level files, and Claude Desktop's claude_desktop_config.json. It
// merges: every other entry, comment and the file's formatting stay; a file
// that does not parse is never written.
package mcpconfig

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/atomicfile"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/childmcp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/wrap"
)

// Host is an MCP host whose configuration install writes.
type Host string

const (
	ClaudeCode    Host = "claude-code"
	Cursor        Host = "cursor"
	VSCode        Host = "vscode"
	ClaudeDesktop Host = "claude-desktop"
)

// Hosts lists the supported hosts.
var Hosts = []Host{ClaudeCode, Cursor, VSCode, ClaudeDesktop}

// Scope is where the configuration lives.
type Scope string

const (
	Project Scope = "project" // in the workspace, shared with the repository
	User    Scope = "user"    // for every project of this user
)

// Children are the named child MCPs; anything else is a custom command.
var Children = map[string]struct {
	entry string
	args  []string
}{
	"playwright":      {"playwright", []string{"npx", "-y", "@playwright/mcp@latest", "--cdp-endpoint", "{cdp_endpoint}"}},
	"chrome-devtools": {"chrome-devtools", []string{"npx", "-y", "chrome-devtools-mcp@latest", "--browserUrl", "{cdp_endpoint}"}},
}

// CoordinatorEntry is the name of the coordinator's own entry.
const CoordinatorEntry = "browser-coordinator"

// Options say what to install where.
type Options struct {
	Host      Host
	Scope     Scope  // "" means Project (User for Claude Desktop, which has no other)
	Child     string // playwright, chrome-devtools, none, or a custom command line; "" means playwright
	Workspace string // the project folder (Project scope)
	Sidecar   string // the command the entries run: this binary
	// SidecarArgs go before each entry's own arguments, e.g. ["-y",
	// "browser-coordinator"] when Sidecar is npx.
	SidecarArgs []string
	Home        string // the user's home folder (User scope)
	GOOS        string // selects the user-level folders of VS Code and Claude Desktop
	Getenv      func(string) string
	// LookPath finds a command on PATH (exec.LookPath). Claude Desktop's
	// entry needs absolute paths: it has no workspace and, on macOS, a PATH
	// without npx.
	LookPath func(string) (string, error)
}

// server is one entry, with its fields in the order people write them.
type server struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// Target is a planned install: the file, the key of its server map, the entries.
type Target struct {
	Path    string
	Key     string
	Entries []Entry
	Notes   []string // what the user should know (e.g. an argument appended)
}

// Plan works out what Install would write, without touching anything.
func Plan(o Options) (Target, error) {
	if o.Child == "" {
		o.Child = "playwright"
	}
	if o.Sidecar == "" {
		return Target{}, errors.New("install: the sidecar command is empty")
	}
	if o.Scope == "" {
		o.Scope = Project
		if o.Host == ClaudeDesktop {
			o.Scope = User
		}
	}
	var t Target
	var err error
	t.Path, t.Key, err = location(o)
	if err != nil {
		return t, err
	}
	if o.Host == ClaudeDesktop {
		return planSingleEntry(o, t)
	}
	typ := ""
	if o.Host == VSCode {
		typ = "stdio" // VS Code's mcp.json names the transport
	}
	run := func(args ...string) server {
		return server{Type: typ, Command: o.Sidecar, Args: append(slices.Clone(o.SidecarArgs), args...)}
	}
	t.Entries = append(t.Entries, Entry{Name: CoordinatorEntry, Value: run()})
	switch child, known := Children[o.Child]; {
	case o.Child == "none":
	case known:
		t.Entries = append(t.Entries, Entry{Name: child.entry, Value: run(append([]string{"wrap", "--"}, child.args...)...)})
	default:
		args, err := customChild(o.Child, &t)
		if err != nil {
			return t, err
		}
		t.Entries = append(t.Entries, Entry{Name: "browser", Value: run(append([]string{"wrap", "--"}, args...)...)})
	}
	return t, nil
}

// customChild splits a custom --child command and gives it an endpoint
// when it names none (with a note saying so).
func customChild(command string, t *Target) ([]string, error) {
	args, err := SplitCommand(command)
	if err != nil {
		return nil, fmt.Errorf("--child: %w", err)
	}
	if !wrap.HasTemplate(args) && !wrap.NamesEndpoint(args) {
		args = append(args, "--cdp-endpoint", "{cdp_endpoint}")
		t.Notes = append(t.Notes, "the custom child command names no CDP endpoint (no {cdp_endpoint}, {cdp_port}, {ws_endpoint} or endpoint flag): appended --cdp-endpoint {cdp_endpoint}")
	}
	return args, nil
}

// planSingleEntry is Claude Desktop's entry: one server in single-entry
// mode (`--mcp CHILD`, no wrap: there is no workspace folder for wrap to
// find its coordinator by), with absolute paths for the coordinator and the
// child's command, since a desktop app's PATH (macOS: launchd's
// /usr/bin:/bin:/usr/sbin:/sbin) has neither npx nor this binary.
func planSingleEntry(o Options, t Target) (Target, error) {
	if o.LookPath == nil {
		o.LookPath = func(string) (string, error) { return "", errors.New("no PATH lookup") }
	}
	command, err := absoluteCommand(o.Sidecar, o.LookPath)
	if err != nil {
		return t, fmt.Errorf("install --host %s: the coordinator's command %w; pass --sidecar with its absolute path", o.Host, err)
	}
	args := slices.Clone(o.SidecarArgs)
	if o.Child != "none" {
		var child []string
		if known, ok := Children[o.Child]; ok {
			child = slices.Clone(known.args)
		} else if child, err = customChild(o.Child, &t); err != nil {
			return t, err
		}
		// The same reading as --mcp itself: a command on PATH, or a package through npx.
		resolved, how, err := childmcp.Resolve(child, o.LookPath)
		if err != nil {
			return t, fmt.Errorf("--child: %w", err)
		}
		if how == childmcp.AsPackage {
			t.Notes = append(t.Notes, fmt.Sprintf("%s is not a command on PATH: it runs as an npm package through npx -y", child[0]))
		}
		if resolved[0], err = absoluteCommand(resolved[0], o.LookPath); err != nil {
			return t, fmt.Errorf("install --host %s: the child's command %w; install Node.js (it brings npx), or give --child an absolute command, or --child none", o.Host, err)
		}
		args = append(append(args, "--mcp"), resolved...)
	}
	entry := server{Command: command, Args: args}
	if len(o.SidecarArgs) > 0 && o.GOOS != "windows" {
		// The coordinator itself starts through npx (`npx -y
		// browser-coordinator`), a script that starts with `#!/usr/bin/env
		// node`: on macOS, Claude Desktop's PATH has no node. npx's folder
		// (where node is) goes first on the PATH of this install. Windows'
		// npx.cmd runs the node.exe beside it.
		getenv := o.Getenv
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		path, rest := filepath.Dir(command), getenv("PATH")
		switch {
		case slices.Contains(filepath.SplitList(rest), path):
			path = rest
		case rest != "":
			path += string(filepath.ListSeparator) + rest
		}
		entry.Env = map[string]string{"PATH": path}
		t.Notes = append(t.Notes, "the entry starts the coordinator with npx, with PATH set to npx's folder and this shell's PATH so that npx finds node; `npm install -g browser-coordinator` and install again for an entry that runs the binary itself")
	}
	t.Entries = []Entry{{Name: CoordinatorEntry, Value: entry}}
	return t, nil
}

// absoluteCommand makes a command absolute: a path against the current
// folder, a bare name through PATH.
func absoluteCommand(command string, lookPath func(string) (string, error)) (string, error) {
	if filepath.IsAbs(command) {
		return command, nil
	}
	if strings.ContainsAny(command, `/\`) {
		return filepath.Abs(command)
	}
	found, err := lookPath(command)
	if err != nil {
		return "", fmt.Errorf("%q is not on PATH", command)
	}
	if !filepath.IsAbs(found) {
		return filepath.Abs(found)
	}
	return found, nil
}

// location is the config file and its server-map key for host and scope.
func location(o Options) (path, key string, err error) {
	switch o.Scope {
	case Project:
		if o.Host == ClaudeDesktop {
			return "", "", errors.New("install: claude-desktop has no project configuration, only the user's claude_desktop_config.json: drop --scope project")
		}
		if o.Workspace == "" {
			return "", "", errors.New("install: no workspace folder")
		}
		switch o.Host {
		case ClaudeCode:
			return filepath.Join(o.Workspace, ".mcp.json"), "mcpServers", nil
		case Cursor:
			return filepath.Join(o.Workspace, ".cursor", "mcp.json"), "mcpServers", nil
		case VSCode:
			return filepath.Join(o.Workspace, ".vscode", "mcp.json"), "servers", nil
		}
	case User:
		if o.Home == "" {
			return "", "", errors.New("install: no home folder for --scope user")
		}
		switch o.Host {
		case ClaudeDesktop:
			return filepath.Join(claudeDesktopDir(o), "claude_desktop_config.json"), "mcpServers", nil
		case ClaudeCode:
			return filepath.Join(o.Home, ".claude.json"), "mcpServers", nil
		case Cursor:
			return filepath.Join(o.Home, ".cursor", "mcp.json"), "mcpServers", nil
		case VSCode:
			return filepath.Join(vscodeUserDir(o), "mcp.json"), "servers", nil
		}
	default:
		return "", "", fmt.Errorf("install: unknown scope %q: use project or user", o.Scope)
	}
	return "", "", fmt.Errorf("install: unknown host %q: use claude-code, cursor, vscode or claude-desktop", o.Host)
}

// vscodeUserDir is VS Code's (stable) User folder on each OS.
func vscodeUserDir(o Options) string {
	return filepath.Join(appConfigDir(o), "Code", "User")
}

// claudeDesktopDir is Claude Desktop's folder on each OS: macOS
// ~/Library/Application Support/Claude, Windows %APPDATA%\Claude, Linux
// (community builds) $XDG_CONFIG_HOME/Claude or ~/.config/Claude.
func claudeDesktopDir(o Options) string {
	return filepath.Join(appConfigDir(o), "Claude")
}

// appConfigDir is where desktop (Electron) apps keep their user data on
// each OS: Electron's app.getPath("appData").
func appConfigDir(o Options) string {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	switch o.GOOS {
	case "windows":
		appData := getenv("APPDATA")
		if appData == "" {
			appData = filepath.Join(o.Home, "AppData", "Roaming")
		}
		return appData
	case "darwin":
		return filepath.Join(o.Home, "Library", "Application Support")
	default:
		config := getenv("XDG_CONFIG_HOME")
		if config == "" {
			config = filepath.Join(o.Home, ".config")
		}
		return config
	}
}

// Result is what Install did.
type Result struct {
	Target
	Content []byte // the file as written (or as it would be, with dry run)
	Changed bool   // the file's content changed
}

// Install merges the entries into the host's config file. With dryRun it
// only computes the result. A file that is not valid JSON(C) is left alone.
func Install(o Options, dryRun bool) (Result, error) {
	t, err := Plan(o)
	if err != nil {
		return Result{}, err
	}
	r := Result{Target: t}
	old, err := os.ReadFile(t.Path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return r, fmt.Errorf("read %s: %w", t.Path, err)
	}
	merged, err := Merge(old, t.Key, t.Entries)
	if err != nil {
		return r, fmt.Errorf("%s: %w; fix the file (or move it away) and run install again — nothing was written", t.Path, err)
	}
	r.Content, r.Changed = merged, !bytes.Equal(old, merged)
	if dryRun || !r.Changed {
		return r, nil
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(t.Path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o755); err != nil {
		return r, err
	}
	if err := atomicfile.Write(t.Path, merged, mode); err != nil {
		return r, fmt.Errorf("write %s: %w", t.Path, err)
	}
	return r, nil
}

// SplitCommand splits a command line into arguments the way a POSIX shell
// (and the extension's splitCommandLine) does: blanks separate, single or
// double quotes group; outside quotes a backslash escapes the next
// character, inside double quotes only one of " \ $ ` (so "C:\tools\x.js"
// keeps its backslashes), inside single quotes nothing.
func SplitCommand(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inArg := false
	var quote rune
	runes := []rune(s)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			if r == '"' {
				quote = 0
			} else if r == '\\' && i+1 < len(runes) && strings.ContainsRune(`"\$`+"`", runes[i+1]) {
				i++
				cur.WriteRune(runes[i])
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == '\\' && i+1 < len(runes):
			i++
			cur.WriteRune(runes[i])
			inArg = true
		case unicode.IsSpace(r):
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in %q", quote, s)
	}
	if inArg {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}
