// Package mcpconfig writes Browser Coordinator's entries into MCP hosts'
// configuration files (`browser-coordinator install`), and is the one owner
// of those files: Claude Code's .mcp.json and ~/.claude.json (its user and
// local scopes, $CLAUDE_CONFIG_DIR honoured), Cursor's .cursor/mcp.json,
// VS Code's .vscode/mcp.json and user folder (every flavour), and Claude
// Desktop's claude_desktop_config.json. The VS Code extension asks it
// through `install --json` instead of editing them itself.
//
// It merges: every other entry, comment and the file's formatting stay; a
// file that does not parse is never written. It also finds the entries
// that run browser-coordinator already and judges them against what it
// would write (current, stale, or the user's own), and removes them.
package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/childmcp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
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
	// Local is Claude Code's own scope for one user in one folder:
	// projects["<folder>"].mcpServers of its ~/.claude.json, never committed.
	Local Scope = "local"
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

// customEntry is the name of a custom child's entry.
const customEntry = "browser"

// Options say what to install where.
type Options struct {
	Host      Host
	Scope     Scope  // "" means Project (User for Claude Desktop, which has no other)
	Child     string // playwright, chrome-devtools, none, or a custom command line; "" means playwright
	Workspace string // the project folder (Project and Local scopes)
	Sidecar   string // the command the entries run: this binary
	// SidecarArgs go before each entry's own arguments, e.g. ["-y",
	// "browser-coordinator"] when Sidecar is npx.
	SidecarArgs []string
	// VSCodeProduct names the VS Code flavour whose user folder the User
	// scope of VSCode writes (VSCodeProducts); "" means stable VS Code.
	VSCodeProduct string
	Home          string // the user's home folder (User and Local scopes)
	GOOS          string // selects the user-level folders of VS Code and Claude Desktop
	Getenv        func(string) string
	// LookPath finds a command on PATH (exec.LookPath). Claude Desktop's
	// entry needs absolute paths: it has no workspace and, on macOS, a PATH
	// without npx.
	LookPath func(string) (string, error)
	// Exists reports whether a file exists, for judging entries found
	// (nil: os.Stat).
	Exists func(string) bool

	// Prune also removes the other entries that run browser-coordinator
	// there (a previous child's).
	Prune bool
	// Remove removes the entries that run browser-coordinator there
	// instead of writing any; with RemoveRunning, only those whose command
	// is that file.
	Remove        bool
	RemoveRunning string
	// AllWorkspaces: with Remove in the Local scope, every folder of
	// Claude Code's file, not only Workspace.
	AllWorkspaces bool
}

// server is one entry, with its fields in the order people write them.
type server struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// listArgs writes "args": [] when there are none, as Claude Code
	// writes its own file.
	listArgs bool
}

func (s server) MarshalJSON() ([]byte, error) {
	type plain server
	var v any = plain(s)
	if s.listArgs {
		args := s.Args
		if args == nil {
			args = []string{}
		}
		v = struct {
			Type    string            `json:"type,omitempty"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env,omitempty"`
		}{s.Type, s.Command, args, s.Env}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n"), err
}

// Target is a planned install: the file, the path of its server map, the entries.
type Target struct {
	Path    string
	Key     []string // e.g. ["mcpServers"], ["projects", "/home/u/app", "mcpServers"]
	Entries []Entry
	Notes   []string // what the user should know (e.g. an argument appended)
}

// Plan works out what Install would write, without touching anything.
func Plan(o Options) (Target, error) {
	o = o.withDefaults()
	if o.Sidecar == "" && !o.Remove {
		return Target{}, errors.New("install: the sidecar command is empty")
	}
	var t Target
	var err error
	if t.Path, t.Key, err = location(o); err != nil || o.Remove {
		return t, err
	}
	if o.Host == ClaudeDesktop {
		return planSingleEntry(o, t)
	}
	typ := ""
	if o.Host == VSCode || o.Scope == Local {
		typ = "stdio" // VS Code's mcp.json names the transport; so does Claude Code's own file
	}
	run := func(args ...string) server {
		return server{Type: typ, Command: o.Sidecar, Args: append(slices.Clone(o.SidecarArgs), args...), listArgs: o.Scope == Local}
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
		t.Entries = append(t.Entries, Entry{Name: customEntry, Value: run(append([]string{"wrap", "--"}, args...)...)})
	}
	return t, nil
}

func (o Options) withDefaults() Options {
	if o.Child == "" {
		o.Child = "playwright"
	}
	if o.Scope == "" {
		o.Scope = Project
		if o.Host == ClaudeDesktop {
			o.Scope = User
		}
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	return o
}

// customChild splits a custom child command and gives it an endpoint
// when it names none (with a note saying so).
func customChild(command string, t *Target) ([]string, error) {
	args, err := SplitCommand(command)
	if err != nil {
		return nil, fmt.Errorf("the child MCP's command: %w", err)
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
		return t, remedy.With(fmt.Errorf("install --host %s: the coordinator's command %w", o.Host, err), remedy.AbsoluteSidecar)
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
			return t, fmt.Errorf("the child MCP's command: %w", err)
		}
		if how == childmcp.AsPackage {
			t.Notes = append(t.Notes, fmt.Sprintf("%s is not a command on PATH: it runs as an npm package through npx -y", child[0]))
		}
		if resolved[0], err = absoluteCommand(resolved[0], o.LookPath); err != nil {
			return t, remedy.With(fmt.Errorf("install --host %s: the child's command %w", o.Host, err), remedy.ChildCommand)
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
		path, rest := filepath.Dir(command), o.Getenv("PATH")
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
