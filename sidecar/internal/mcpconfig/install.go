// Package mcpconfig writes Browser Coordinator's entries into MCP hosts'
// configuration files (`browser-coordinator install`): Claude Code's
// .mcp.json, Cursor's .cursor/mcp.json, VS Code's .vscode/mcp.json, or their
// user-level files. It merges: every other entry, comment and the file's
// formatting stay; a file that does not parse is never written.
package mcpconfig

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/atomicfile"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/wrap"
)

// Host is an MCP host whose configuration install writes.
type Host string

const (
	ClaudeCode Host = "claude-code"
	Cursor     Host = "cursor"
	VSCode     Host = "vscode"
)

// Hosts lists the supported hosts.
var Hosts = []Host{ClaudeCode, Cursor, VSCode}

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
	Scope     Scope  // "" means Project
	Child     string // playwright, chrome-devtools, none, or a custom command line; "" means playwright
	Workspace string // the project folder (Project scope)
	Sidecar   string // the command the entries run: this binary
	Home      string // the user's home folder (User scope)
	GOOS      string // selects VS Code's user folder
	Getenv    func(string) string
}

// server is one entry, with its fields in the order people write them.
type server struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
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
	if o.Scope == "" {
		o.Scope = Project
	}
	if o.Child == "" {
		o.Child = "playwright"
	}
	if o.Sidecar == "" {
		return Target{}, errors.New("install: the sidecar command is empty")
	}
	var t Target
	var err error
	t.Path, t.Key, err = location(o)
	if err != nil {
		return t, err
	}
	typ := ""
	if o.Host == VSCode {
		typ = "stdio" // VS Code's mcp.json names the transport
	}
	t.Entries = append(t.Entries, Entry{Name: CoordinatorEntry, Value: server{Type: typ, Command: o.Sidecar}})
	switch child, known := Children[o.Child]; {
	case o.Child == "none":
	case known:
		t.Entries = append(t.Entries, Entry{Name: child.entry, Value: server{Type: typ, Command: o.Sidecar, Args: append([]string{"wrap", "--"}, child.args...)}})
	default:
		args, err := SplitCommand(o.Child)
		if err != nil {
			return t, fmt.Errorf("--child: %w", err)
		}
		if !wrap.HasTemplate(args) && !wrap.NamesEndpoint(args) {
			args = append(args, "--cdp-endpoint", "{cdp_endpoint}")
			t.Notes = append(t.Notes, "the custom child command names no CDP endpoint (no {cdp_endpoint}, {cdp_port}, {ws_endpoint} or endpoint flag): appended --cdp-endpoint {cdp_endpoint}")
		}
		t.Entries = append(t.Entries, Entry{Name: "browser", Value: server{Type: typ, Command: o.Sidecar, Args: append([]string{"wrap", "--"}, args...)}})
	}
	return t, nil
}

// location is the config file and its server-map key for host and scope.
func location(o Options) (path, key string, err error) {
	switch o.Scope {
	case Project:
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
	return "", "", fmt.Errorf("install: unknown host %q: use claude-code, cursor or vscode", o.Host)
}

// vscodeUserDir is VS Code's (stable) User folder on each OS.
func vscodeUserDir(o Options) string {
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
		return filepath.Join(appData, "Code", "User")
	case "darwin":
		return filepath.Join(o.Home, "Library", "Application Support", "Code", "User")
	default:
		config := getenv("XDG_CONFIG_HOME")
		if config == "" {
			config = filepath.Join(o.Home, ".config")
		}
		return filepath.Join(config, "Code", "User")
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
