package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var entries = []Entry{
	{Name: "browser-coordinator", Value: server{Command: "/bin/bc"}},
	{Name: "playwright", Value: server{Command: "/bin/bc", Args: []string{"wrap", "--", "npx", "@playwright/mcp", "--cdp-endpoint", "{cdp_endpoint}"}}},
}

// parsed reads a merged document as data (comments and trailing commas allowed).
func parsed(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(neutralize(bytes.TrimPrefix(doc, bom)), &v); err != nil {
		t.Fatalf("merged document does not parse: %v\n%s", err, doc)
	}
	return v
}

func TestMerge(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty file", "", `{
  "mcpServers": {
    "browser-coordinator": {
      "command": "/bin/bc"
    },
    "playwright": {
      "command": "/bin/bc",
      "args": [
        "wrap",
        "--",
        "npx",
        "@playwright/mcp",
        "--cdp-endpoint",
        "{cdp_endpoint}"
      ]
    }
  }
}
`},
		{"other servers, four spaces, a comment, a trailing comma", `{
    // my servers
    "mcpServers": {
        "github": { "command": "gh-mcp" }, // keep me
    },
}
`, `{
    // my servers
    "mcpServers": {
        "github": { "command": "gh-mcp" }, // keep me
        "browser-coordinator": {
            "command": "/bin/bc"
        },
        "playwright": {
            "command": "/bin/bc",
            "args": [
                "wrap",
                "--",
                "npx",
                "@playwright/mcp",
                "--cdp-endpoint",
                "{cdp_endpoint}"
            ]
        },
    },
}
`},
		{"tabs, other top-level keys, no server map yet", "{\n\t\"theme\": \"dark\" /* block */\n}", "{\n\t\"theme\": \"dark\", /* block */\n\t\"mcpServers\": {\n\t\t\"browser-coordinator\": {\n\t\t\t\"command\": \"/bin/bc\"\n\t\t},\n\t\t\"playwright\": {\n\t\t\t\"command\": \"/bin/bc\",\n\t\t\t\"args\": [\n\t\t\t\t\"wrap\",\n\t\t\t\t\"--\",\n\t\t\t\t\"npx\",\n\t\t\t\t\"@playwright/mcp\",\n\t\t\t\t\"--cdp-endpoint\",\n\t\t\t\t\"{cdp_endpoint}\"\n\t\t\t]\n\t\t}\n\t}\n}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Merge([]byte(tc.in), []string{"mcpServers"}, entries)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			parsed(t, got)
		})
	}
}

func TestMergeReplacesInPlaceAndIsIdempotent(t *testing.T) {
	in := `{
  "mcpServers": {
    "browser-coordinator": { "command": "/old/path", "args": ["--no-headless"] },
    "other": { "command": "x" }
  }
}
`
	once, err := Merge([]byte(in), []string{"mcpServers"}, entries)
	if err != nil {
		t.Fatal(err)
	}
	servers := parsed(t, once)["mcpServers"].(map[string]any)
	if servers["browser-coordinator"].(map[string]any)["command"] != "/bin/bc" {
		t.Fatalf("entry not replaced:\n%s", once)
	}
	if servers["other"].(map[string]any)["command"] != "x" || !strings.Contains(string(once), `"other": { "command": "x" }`) {
		t.Fatalf("another entry changed:\n%s", once)
	}
	keys := []string{}
	for k := range servers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"browser-coordinator", "other", "playwright"}) {
		t.Fatalf("servers = %v", keys)
	}
	if strings.Index(string(once), "browser-coordinator") > strings.Index(string(once), `"other"`) {
		t.Fatal("a replaced entry must keep its place")
	}
	twice, err := Merge(once, []string{"mcpServers"}, entries)
	if err != nil || !bytes.Equal(once, twice) {
		t.Fatalf("second merge changed the file:\n%s\n---\n%s", once, twice)
	}
}

func TestMergeKeepsBOMAndOneLineFiles(t *testing.T) {
	in := append(bytes.Clone(bom), []byte(`{"mcpServers":{"a":{"command":"a"}}}`)...)
	got, err := Merge(in, []string{"mcpServers"}, entries[:1])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, bom) || bytes.Count(got, bom) != 1 {
		t.Fatal("BOM lost or doubled")
	}
	if !strings.HasPrefix(string(got[3:]), `{"mcpServers":{"a":{"command":"a"},`) {
		t.Fatalf("existing one-line content changed:\n%s", got)
	}
	parsed(t, got)
}

func TestMergeRefusesWhatItCannotRead(t *testing.T) {
	for name, in := range map[string]string{
		"syntax error":        "{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"x\" }\n    \"b\": {}\n  }\n}",
		"unterminated string": `{"mcpServers": {"a": "x}}`,
		"top-level array":     `[1, 2]`,
		"server map a string": `{"mcpServers": "none"}`,
		"unterminated block":  `{"a": 1 /* }`,
		"lone comma":          `{"mcpServers": {,}}`,
		"double comma":        `{"a": 1,, "b": 2}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Merge([]byte(in), []string{"mcpServers"}, entries)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v", err)
			}
			if name == "syntax error" && !strings.Contains(err.Error(), "line 4, column 5") {
				t.Fatalf("error does not say where: %v", err)
			}
		})
	}
}

func TestInstall(t *testing.T) {
	ws := t.TempDir()
	o := Options{Host: ClaudeCode, Workspace: ws, Sidecar: "/opt/bc/browser-coordinator"}

	dry, err := Install(o, true)
	if err != nil || !dry.Changed {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".mcp.json")); !os.IsNotExist(err) {
		t.Fatal("dry run wrote the file")
	}
	r, err := Install(o, false)
	if err != nil || r.Path != filepath.Join(ws, ".mcp.json") || !bytes.Equal(r.Content, dry.Content) {
		t.Fatalf("install: %+v %v", r, err)
	}
	written, _ := os.ReadFile(r.Path)
	servers := parsed(t, written)["mcpServers"].(map[string]any)
	pw := servers["playwright"].(map[string]any)
	if servers["browser-coordinator"].(map[string]any)["command"] != "/opt/bc/browser-coordinator" ||
		!slices.Contains(toStrings(pw["args"]), "@playwright/mcp@latest") || toStrings(pw["args"])[0] != "wrap" {
		t.Fatalf("written:\n%s", written)
	}
	again, err := Install(o, false)
	if err != nil || again.Changed {
		t.Fatalf("second install changed the file: %v", err)
	}

	// A broken file is never written.
	broken := filepath.Join(ws, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(broken), 0o755)
	os.WriteFile(broken, []byte("{ oops"), 0o600)
	_, err = Install(Options{Host: Cursor, Workspace: ws, Sidecar: "bc"}, false)
	if err == nil || !strings.Contains(err.Error(), "nothing was written") || !strings.Contains(err.Error(), broken) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(broken); string(b) != "{ oops" {
		t.Fatal("a broken file was changed")
	}
	if st, _ := os.Stat(broken); st.Mode().Perm() != 0o600 {
		t.Fatal("mode changed")
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestInstallKeepsASymlinkedConfig(t *testing.T) {
	ws, dotfiles := t.TempDir(), t.TempDir()
	target := filepath.Join(dotfiles, "mcp.json")
	os.WriteFile(target, []byte(`{"mcpServers": {"other": {"command": "x"}}}`), 0o644)
	link := filepath.Join(ws, ".mcp.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, err := Install(Options{Host: ClaudeCode, Workspace: ws, Sidecar: "bc"}, false); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf(".mcp.json is no longer a link: %v", err)
	}
	written, _ := os.ReadFile(target)
	servers := parsed(t, written)["mcpServers"].(map[string]any)
	if servers["other"] == nil || servers["browser-coordinator"] == nil {
		t.Errorf("the link's target holds:\n%s", written)
	}
}

func TestPlan(t *testing.T) {
	home := "/home/u"
	for _, tc := range []struct {
		o        Options
		path     string
		key      string
		entries  []string
		typed    bool
		lastArgs []string
	}{
		{Options{Host: ClaudeCode, Workspace: "/w"}, "/w/.mcp.json", "mcpServers", []string{"browser-coordinator", "playwright"}, false, nil},
		{Options{Host: Cursor, Workspace: "/w", Child: "chrome-devtools"}, "/w/.cursor/mcp.json", "mcpServers", []string{"browser-coordinator", "chrome-devtools"}, false, []string{"--browserUrl", "{cdp_endpoint}"}},
		{Options{Host: VSCode, Workspace: "/w", Child: "none"}, "/w/.vscode/mcp.json", "servers", []string{"browser-coordinator"}, true, nil},
		{Options{Host: ClaudeCode, Scope: User, Home: home}, "/home/u/.claude.json", "mcpServers", []string{"browser-coordinator", "playwright"}, false, nil},
		{Options{Host: Cursor, Scope: User, Home: home}, "/home/u/.cursor/mcp.json", "mcpServers", []string{"browser-coordinator", "playwright"}, false, nil},
		{Options{Host: VSCode, Scope: User, Home: home, GOOS: "linux"}, "/home/u/.config/Code/User/mcp.json", "servers", []string{"browser-coordinator", "playwright"}, true, nil},
		{Options{Host: VSCode, Scope: User, Home: home, GOOS: "darwin"}, "/home/u/Library/Application Support/Code/User/mcp.json", "servers", []string{"browser-coordinator", "playwright"}, true, nil},
		{Options{Host: VSCode, Scope: User, Home: `C:\Users\u`, GOOS: "windows", Getenv: func(k string) string {
			if k == "APPDATA" {
				return `D:\appdata`
			}
			return ""
		}}, `D:\appdata\Code\User\mcp.json`, "servers", []string{"browser-coordinator", "playwright"}, true, nil},
		{Options{Host: ClaudeCode, Workspace: "/w", Child: `my-mcp --endpoint "{ws_endpoint}"`}, "/w/.mcp.json", "mcpServers", []string{"browser-coordinator", "browser"}, false, []string{"--endpoint", "{ws_endpoint}"}},
		{Options{Host: ClaudeCode, Workspace: "/w", Child: `my-mcp --flag`}, "/w/.mcp.json", "mcpServers", []string{"browser-coordinator", "browser"}, false, []string{"--cdp-endpoint", "{cdp_endpoint}"}},
		// An endpoint flag already names the endpoint: nothing is appended.
		{Options{Host: ClaudeCode, Workspace: "/w", Child: `npx chrome-devtools-mcp --browserUrl http://10.0.0.5:9222`}, "/w/.mcp.json", "mcpServers", []string{"browser-coordinator", "browser"}, false, []string{"chrome-devtools-mcp", "--browserUrl", "http://10.0.0.5:9222"}},
	} {
		tc.o.Sidecar = "bc"
		got, err := Plan(tc.o)
		if err != nil {
			t.Fatalf("%+v: %v", tc.o, err)
		}
		var names []string
		for _, e := range got.Entries {
			names = append(names, e.Name)
			if (e.Value.(server).Type == "stdio") != tc.typed {
				t.Errorf("%s: type field = %q", got.Path, e.Value.(server).Type)
			}
		}
		if filepath.ToSlash(got.Path) != tc.path || strings.Join(got.Key, ".") != tc.key || !slices.Equal(names, tc.entries) {
			t.Errorf("%+v: got %s %s %v", tc.o, got.Path, got.Key, names)
		}
		if tc.lastArgs != nil {
			args := got.Entries[len(got.Entries)-1].Value.(server).Args
			if !slices.Equal(args[len(args)-len(tc.lastArgs):], tc.lastArgs) {
				t.Errorf("%s: args %v", tc.o.Child, args)
			}
		}
	}
	for _, bad := range []Options{
		{Host: "emacs", Workspace: "/w", Sidecar: "bc"},
		{Host: ClaudeCode, Scope: "global", Workspace: "/w", Sidecar: "bc"},
		{Host: ClaudeCode, Sidecar: "bc"},
		{Host: ClaudeCode, Workspace: "/w", Sidecar: "bc", Child: `broken "quote`},
	} {
		if _, err := Plan(bad); err == nil {
			t.Errorf("Plan(%+v) succeeded", bad)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`npx -y my-mcp`:                    {"npx", "-y", "my-mcp"},
		`node "/my path/x.js" --a=b`:       {"node", "/my path/x.js", "--a=b"},
		`a 'single "q"' b\ c`:              {"a", `single "q"`, "b c"},
		`  spaced   out  `:                 {"spaced", "out"},
		`empty "" arg`:                     {"empty", "", "arg"},
		`node "C:\tools\x.js"`:             {"node", `C:\tools\x.js`},
		`say "a \"b\" \\ \$ \` + "`" + `"`: {"say", `a "b" \ $ ` + "`"},
		`a\ b 'c\d' e\\f`:                  {"a b", `c\d`, `e\f`},
		"tab\tsep\r\nx":                    {"tab", "sep", "x"},
		`trailing\`:                        {`trailing\`},
	} {
		got, err := SplitCommand(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("SplitCommand(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := SplitCommand("   "); err == nil {
		t.Error("empty command accepted")
	}
}

func TestMergeIgnoresCommasInComments(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// A comma in a comment is not a trailing comma.
		{"{\"mcpServers\": {\"a\": {\"command\": \"x\"} // keep a, b\n}}",
			"{\"mcpServers\": {\"a\": {\"command\": \"x\"}, // keep a, b\n    \"browser-coordinator\": {\n      \"command\": \"/bin/bc\"\n    }\n}}"},
		// A real trailing comma after a comment with a comma in it.
		{"{\"mcpServers\": {\"a\": {\"command\": \"x\"} /* a, b */,\n}}",
			"{\"mcpServers\": {\"a\": {\"command\": \"x\"}, /* a, b */\n    \"browser-coordinator\": {\n      \"command\": \"/bin/bc\"\n    },\n}}"},
	} {
		got, err := Merge([]byte(tc.in), []string{"mcpServers"}, entries[:1])
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
		}
		parsed(t, got)
	}
}

func TestMergeLeadingWhitespace(t *testing.T) {
	got, err := Merge([]byte("\n\n  {\"a\": 1}\n"), []string{"mcpServers"}, entries[:1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "\n\n  {\"a\": 1,\n") {
		t.Fatalf("got %q", got)
	}
	parsed(t, got)
}
