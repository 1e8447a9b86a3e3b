package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The answer of `install --json` as the VS Code extension reads it.
type jsonReport struct {
	File    string   `json:"file"`
	Key     []string `json:"key"`
	Scope   string   `json:"scope"`
	Entries []struct {
		Name  string         `json:"name"`
		Entry map[string]any `json:"entry"`
	} `json:"entries"`
	Found []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Why    string `json:"why"`
	} `json:"found"`
	UpToDate bool     `json:"upToDate"`
	Changed  bool     `json:"changed"`
	Wrote    []string `json:"wrote"`
	Removed  []struct {
		Name, Workspace string
	} `json:"removed"`
	Content *string `json:"content"`
	Error   string  `json:"error"`
	Line    int     `json:"line"`
	Column  int     `json:"column"`
}

func runJSON(t *testing.T, env []string, args ...string) (result, jsonReport) {
	t.Helper()
	r := run(t, env, append(args, "--json")...)
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v: not JSON (%v): %+v", args, err, r)
	}
	return r, rep
}

// Claude Code's local scope, as the VS Code extension asks for it: the
// sidecar owns ~/.claude.json (and $CLAUDE_CONFIG_DIR), and answers in JSON.
func TestInstallLocalScopeAsJSON(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	config := filepath.Join(home, "claude")
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + config}
	sidecar := "/opt/ext/bin/browser-coordinator"
	args := []string{"install", "--host", "claude-code", "--scope", "local", "--workspace", ws, "--sidecar", sidecar, "--prune"}

	r, dry := runJSON(t, env, append(args, "--dry-run")...)
	file := filepath.Join(config, ".claude.json")
	if r.code != 0 || dry.File != file || strings.Join(dry.Key, "|") != "projects|"+ws+"|mcpServers" || dry.UpToDate || dry.Content == nil ||
		len(dry.Entries) != 2 || dry.Entries[0].Entry["command"] != sidecar || dry.Entries[0].Entry["type"] != "stdio" {
		t.Fatalf("dry run: %+v %+v", r, dry)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatal("a dry run wrote")
	}
	r, wrote := runJSON(t, env, args...)
	if r.code != 0 || !wrote.Changed || strings.Join(wrote.Wrote, ",") != "browser-coordinator,playwright" {
		t.Fatalf("install: %+v %+v", r, wrote)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("Claude Code's file: %v %v", st, err)
	}
	_, again := runJSON(t, env, append(args, "--dry-run")...)
	if !again.UpToDate || again.Changed || len(again.Found) != 2 || again.Found[1].Status != "current" {
		t.Fatalf("after install: %+v", again)
	}

	// The entries of this sidecar go, in every folder, and no one else's.
	r, removed := runJSON(t, env, "install", "--host", "claude-code", "--scope", "local", "--remove", "--all-workspaces", "--sidecar", sidecar)
	if r.code != 0 || len(removed.Removed) != 2 || removed.Removed[0].Workspace != ws {
		t.Fatalf("remove: %+v %+v", r, removed)
	}
}

func TestInstallJSONSaysWhereAFileDoesNotParse(t *testing.T) {
	ws := t.TempDir()
	broken := "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": 1\n}\n"
	os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(broken), 0o644)
	r, rep := runJSON(t, nil, "install", "--host", "claude-code", "--workspace", ws, "--npx")
	if r.code != 1 || rep.Line != 4 || rep.Column != 5 || !strings.Contains(rep.Error, "nothing was written") || !strings.Contains(r.stderr, "nothing was written") {
		t.Fatalf("%+v %+v", r, rep)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".mcp.json")); string(b) != broken {
		t.Fatal("a broken file was written")
	}
	if r := run(t, nil, "install", "--host", "cursor", "--scope", "local", "--workspace", ws); r.code != 1 || !strings.Contains(r.stderr, "only claude-code has a local scope") {
		t.Fatalf("local scope of cursor: %+v", r)
	}
}
