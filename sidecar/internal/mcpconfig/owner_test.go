package mcpconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/osdirs"
)

// What Claude Code itself keeps in ~/.claude.json (abridged): much more than
// MCP servers.
func claudeJSON(folder string) string {
	f, _ := json.Marshal(folder)
	return `{
  "numStartups": 42,
  "tipsHistory": {
    "new-user-warmup": 1
  },
  "projects": {
    "/somewhere/else": {
      "allowedTools": [],
      "mcpServers": {
        "theirs": {
          "type": "stdio",
          "command": "other-mcp",
          "args": []
        }
      }
    },
    ` + string(f) + `: {
      "allowedTools": [
        "Bash(npm test)"
      ],
      "history": [],
      "mcpServers": {},
      "hasTrustDialogAccepted": true
    }
  },
  "userID": "abc"
}
`
}

// extensionHome is a home with the VS Code extension of version v and its
// bundled sidecar, and a project folder.
func extensionHome(t *testing.T, v string) (home, sidecar, folder string) {
	home, _ = filepath.EvalSymlinks(t.TempDir())
	sidecar = filepath.Join(home, ".vscode", "extensions", "browser-coordinator.browser-coordinator-"+v+"-linux-x64", "bin", "linux-x64", "browser-coordinator")
	os.MkdirAll(filepath.Dir(sidecar), 0o755)
	os.WriteFile(sidecar, []byte("#!/bin/sh\n"), 0o755)
	folder = filepath.Join(home, "src", "app")
	os.MkdirAll(folder, 0o755)
	return home, sidecar, folder
}

func local(home, folder, sidecar string) Options {
	return Options{Host: ClaudeCode, Scope: Local, Home: home, Workspace: folder, Sidecar: sidecar, GOOS: "linux", Prune: true}
}

func TestLocalScopeChangesOnlyTheFoldersServers(t *testing.T) {
	home, sidecar, folder := extensionHome(t, "0.2.0")
	file := filepath.Join(home, ".claude.json")
	before := claudeJSON(folder)
	os.WriteFile(file, []byte(before), 0o600)
	r, err := Install(local(home, folder, sidecar), false)
	if err != nil || !r.Changed || r.Path != file || !slices.Equal(r.Key, []string{"projects", folder, "mcpServers"}) {
		t.Fatalf("%+v %v", r.Target, err)
	}
	after, _ := os.ReadFile(file)
	var doc struct {
		Projects map[string]struct {
			MCPServers map[string]server `json:"mcpServers"`
		}
		NumStartups int
	}
	if err := json.Unmarshal(after, &doc); err != nil {
		t.Fatal(err)
	}
	servers := doc.Projects[folder].MCPServers
	want := server{Type: "stdio", Command: sidecar, Args: []string{"wrap", "--", "npx", "-y", "@playwright/mcp@latest", "--cdp-endpoint", "{cdp_endpoint}"}}
	if !sameEntry(servers["browser-coordinator"], server{Type: "stdio", Command: sidecar}) || !sameEntry(servers["playwright"], want) || len(servers) != 2 {
		t.Fatalf("servers: %+v", servers)
	}
	// Only the folder's mcpServers object changed: cut it out of both texts and they are equal.
	outside := regexp.MustCompile(`"mcpServers": \{(?:\}|\n {8}(?:[^\n]|\n {8})*\n {6}\})(,\n {6}"hasTrust)`)
	if got, want := outside.ReplaceAllString(string(after), "X$1"), outside.ReplaceAllString(before, "X$1"); got != want || got == string(after) {
		t.Fatalf("more than the folder's servers changed:\n%s", after)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode().Perm())
	}
	again, err := Install(local(home, folder, sidecar), false)
	if err != nil || again.Changed || !again.UpToDate || len(again.Found) != 2 || again.Found[0].Status != Current {
		t.Fatalf("a second run: %+v %v", again, err)
	}
}

func TestClaudeCodesFileIsCreatedPrivateWhereItsDirSays(t *testing.T) {
	home, sidecar, folder := extensionHome(t, "0.2.0")
	config := filepath.Join(home, "claude-config")
	o := local(home, folder, sidecar)
	o.Child = "none"
	o.Getenv = func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return config
		}
		return ""
	}
	r, err := Install(o, false)
	file := filepath.Join(config, ".claude.json")
	if err != nil || r.Path != file {
		t.Fatalf("%s %v; want %s ($CLAUDE_CONFIG_DIR)", r.Path, err, file)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("Claude Code's file, created: %v %v", st, err)
	}
	var doc any
	data, _ := os.ReadFile(file)
	json.Unmarshal(data, &doc)
	want := map[string]any{"projects": map[string]any{folder: map[string]any{"mcpServers": map[string]any{
		"browser-coordinator": map[string]any{"type": "stdio", "command": sidecar, "args": []any{}}}}}}
	if got, _ := json.Marshal(doc); string(got) != mustJSON(want) {
		t.Fatalf("written:\n%s", data)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestPruneAndRemoveTakeOnlyTheirOwn(t *testing.T) {
	home, _, folder := extensionHome(t, "0.2.0")
	file := filepath.Join(folder, ".mcp.json")
	before := "{\n    // the team's servers\n    \"mcpServers\": {\n        \"github\": { \"command\": \"gh-mcp\" },\n        \"playwright-alone\": { \"command\": \"npx\", \"args\": [\"-y\", \"@playwright/mcp@latest\"] }\n    }\n}\n"
	os.WriteFile(file, []byte(before), 0o644)
	o := Options{Host: ClaudeCode, Workspace: folder, Home: home, Sidecar: "npx", SidecarArgs: []string{"-y", "browser-coordinator"}, Prune: true}
	if _, err := Install(o, false); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(file)
	added := regexp.MustCompile(`,\n {8}"browser-coordinator": [\s\S]*?\n {8}\}(\n {4}\})`)
	if got := added.ReplaceAllString(string(text), "$1"); got != before {
		t.Fatalf("taking the new entries out does not give the file back:\n%s", text)
	}
	o.Child = "chrome-devtools"
	r, err := Install(o, false)
	if err != nil || len(r.Removed) != 1 || r.Removed[0].Name != "playwright" {
		t.Fatalf("another child: %+v %v", r.Removed, err)
	}
	names := func() []string {
		data, _ := os.ReadFile(file)
		ms, err := Members(data, []string{"mcpServers"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"github", "playwright-alone", "browser-coordinator", "chrome-devtools"}) {
		t.Fatalf("after the child changed: %v", got)
	}
	o.Remove = true
	if r, err = Install(o, false); err != nil || len(r.Removed) != 2 {
		t.Fatalf("remove: %+v %v", r.Removed, err)
	}
	if text, _ := os.ReadFile(file); string(text) != before {
		t.Fatalf("removing gives the file back:\n%s", text)
	}
	if r, err := Install(o, false); err != nil || r.Changed || len(r.Removed) != 0 {
		t.Fatalf("nothing left to remove: %+v %v", r, err)
	}
}

func TestRemoveEveryWorkspaceOfOneSidecar(t *testing.T) {
	home, sidecar, app := extensionHome(t, "0.1.0")
	other := filepath.Join(home, "src", "other")
	for _, o := range []Options{local(home, app, sidecar), local(home, other, "/usr/local/bin/browser-coordinator")} {
		if _, err := Install(o, false); err != nil {
			t.Fatal(err)
		}
	}
	o := Options{Host: ClaudeCode, Scope: Local, Home: home, Remove: true, AllWorkspaces: true, RemoveRunning: sidecar}
	r, err := Install(o, false)
	if err != nil || len(r.Removed) != 2 || r.Removed[0].Workspace != app {
		t.Fatalf("%+v %v", r.Removed, err)
	}
	data, _ := os.ReadFile(r.Path)
	if left, _ := Members(data, []string{"projects", other, "mcpServers"}); len(left) != 2 {
		t.Fatalf("another sidecar's entries went too: %v", left)
	}
	if left, _ := Members(data, []string{"projects", app, "mcpServers"}); len(left) != 0 {
		t.Fatalf("left: %v", left)
	}
}

func TestRemoveCutsAMemberAndItsCommaOnly(t *testing.T) {
	for _, tc := range []struct{ name, in, out string }{
		{"a middle member", "{\n  \"a\": 1,\n  \"b\": 2, // about b\n  \"c\": 3\n}", "{\n  \"a\": 1,\n  \"c\": 3\n}"},
		{"the last, a comment on the one before stays", "{\n  \"a\": 1, // keep\n  \"b\": {\n    \"x\": 1\n  }\n}", "{\n  \"a\": 1 // keep\n}"},
		{"the last with a trailing comma", "{\n  \"a\": 1,\n  \"b\": 2,\n}", "{\n  \"a\": 1,\n}"},
		{"the only one", "{\"b\": {\"x\": [1, 2]}}", "{}"},
		{"one line", `{"a": 1, "b": 2, "c": 3}`, `{"a": 1, "c": 3}`},
		{"one line, the last", `{"a": 1, "b": 2}`, `{"a": 1}`},
		{"not there", `{"a": 1}`, `{"a": 1}`},
	} {
		got, err := Remove([]byte(tc.in), nil, []string{"b"})
		if err != nil || string(got) != tc.out {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.out)
		}
	}
}

func TestRunsCoordinator(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"command": "/x/bin/browser-coordinator"}`:                                                                      true,
		`{"command": "C:\\ext\\bin\\win32-x64\\browser-coordinator.exe", "args": ["wrap", "--", "npx"]}`:                 true,
		`{"command": "browser-coordinator", "args": []}`:                                                                 true,
		`{"command": "npx", "args": ["-y", "browser-coordinator", "wrap", "--", "npx", "-y", "@playwright/mcp@latest"]}`: true,
		`{"command": "npx", "args": ["-y", "browser-coordinator@0.1.0"]}`:                                                true,
		`{"command": "cmd", "args": ["/c", "npx", "-y", "browser-coordinator"]}`:                                         true,
		`{"command": "npx", "args": ["-y", "@playwright/mcp@latest"]}`:                                                   false, // Playwright MCP on its own is the user's
		`{"command": "npx", "args": ["-y", "some-mcp", "wrap", "--", "browser-coordinator"]}`:                            false,
		`{"url": "http://127.0.0.1:8931/mcp"}`:                                                                           false,
		`null`:                                                                                                           false,
	} {
		s, ok := decode([]byte(raw))
		if got := ok && runsCoordinator(s); got != want {
			t.Errorf("%s: %v", raw, got)
		}
	}
	if v := extensionVersion("/h/.vscode/extensions/browser-coordinator.browser-coordinator-0.1.0-linux-x64/bin/linux-x64/browser-coordinator"); v != "0.1.0" {
		t.Error(v)
	}
	if v := extensionVersion("/h/.cursor/extensions/browser-coordinator.browser-coordinator-1.2.3/bin/x"); v != "1.2.3" {
		t.Error(v)
	}
	if v := extensionVersion("/usr/local/bin/browser-coordinator"); v != "" {
		t.Error(v)
	}
}

func TestJudge(t *testing.T) {
	home, sidecar, _ := extensionHome(t, "0.2.0")
	_, old, _ := extensionHome(t, "0.1.0")
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	wanted := server{Type: "stdio", Command: sidecar}
	for _, tc := range []struct {
		name   string
		scope  Scope
		actual server
		wanted *server
		status Status
		why    string
	}{
		{"as written, args [] or none", Local, server{Type: "stdio", Command: sidecar, Args: []string{}}, &wanted, Current, ""},
		{"a binary that is gone", Local, server{Command: "/gone/browser-coordinator"}, &wanted, Stale, "runs /gone/browser-coordinator, which does not exist"},
		{"an older extension's sidecar", Local, server{Type: "stdio", Command: old}, &wanted, Stale, "extension version 0.1.0, not of this one"},
		{"this machine's path in a shared file", Project, server{Command: sidecar}, nil, Stale, "a path of this machine and extension version 0.2.0, in a file teammates share"},
		{"the bare name on PATH is the user's choice", Project, server{Command: "browser-coordinator"}, nil, Custom, ""},
		{"their own flags", Local, server{Command: sidecar, Args: []string{"--no-headless"}}, &wanted, Custom, ""},
	} {
		status, why := judgeEntry(tc.scope, tc.actual, tc.wanted, home, exists)
		if status != tc.status || !strings.Contains(why, tc.why) {
			t.Errorf("%s: %s %q", tc.name, status, why)
		}
	}
	mine := filepath.Join(home, "bin", "browser-coordinator")
	os.MkdirAll(filepath.Dir(mine), 0o755)
	os.WriteFile(mine, nil, 0o755)
	if status, _ := judgeEntry(Project, server{Command: mine}, nil, home, exists); status != Stale {
		t.Error("a home folder in a shared file")
	}
}

func TestVSCodeUserFolderOfEachFlavour(t *testing.T) {
	env := func(vars map[string]string) osdirs.Env {
		return osdirs.Env{GOOS: "linux", Home: "/home/u", Getenv: func(k string) string { return vars[k] }}
	}
	for _, tc := range []struct {
		product string
		vars    map[string]string
		want    string
	}{
		{"", nil, "/home/u/.config/Code/User"},
		{"insiders", nil, "/home/u/.config/Code - Insiders/User"},
		{"oss", map[string]string{"XDG_CONFIG_HOME": "/cfg"}, "/cfg/Code - OSS/User"},
		{"codium", map[string]string{"VSCODE_APPDATA": "/appdata"}, "/appdata/VSCodium/User"},
		{"stable", map[string]string{"VSCODE_PORTABLE": "/portable/data"}, "/portable/data/user-data/User"},
	} {
		if got, err := VSCodeUserDir(env(tc.vars), tc.product); err != nil || got != tc.want {
			t.Errorf("%q %v: %s %v; want %s", tc.product, tc.vars, got, err, tc.want)
		}
	}
	if _, err := VSCodeUserDir(env(nil), "emacs"); err == nil {
		t.Error("an unknown flavour")
	}
}
