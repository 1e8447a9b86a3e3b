package mcpconfig

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

// Claude Desktop runs on macOS and Windows, where these tests cannot: each
// OS's layout is checked here against a fake home folder and environment
// (the Options carry GOOS, Home and Getenv), writing real files. The Linux
// layout is also exercised through the real binary in the cli tests.

// lookPath finds npx and node in a fake Node installation.
func fakeLookPath(dir string) func(string) (string, error) {
	return func(name string) (string, error) {
		if name == "npx" || name == "node" {
			return filepath.Join(dir, name), nil
		}
		return "", errors.New("executable file not found in $PATH")
	}
}

func TestInstallClaudeDesktopOnEachOS(t *testing.T) {
	for _, tc := range []struct {
		goos string
		env  map[string]string
		dir  func(home string) string
	}{
		{"darwin", nil, func(h string) string { return filepath.Join(h, "Library", "Application Support", "Claude") }},
		{"linux", nil, func(h string) string { return filepath.Join(h, ".config", "Claude") }},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "xdg"}, func(h string) string { return filepath.Join(h, "xdg", "Claude") }},
	} {
		home := t.TempDir()
		node := filepath.Join(home, "node", "bin")
		getenv := func(k string) string {
			if v, ok := tc.env[k]; ok {
				return filepath.Join(home, v)
			}
			return ""
		}
		o := Options{Host: ClaudeDesktop, Home: home, GOOS: tc.goos, Getenv: getenv, LookPath: fakeLookPath(node), Sidecar: "/opt/bc/browser-coordinator"}
		r, err := Install(o, false)
		want := filepath.Join(tc.dir(home), "claude_desktop_config.json")
		if err != nil || r.Path != want || !r.Changed {
			t.Fatalf("%s %v: %s, %v; want %s", tc.goos, tc.env, r.Path, err, want)
		}
		written, err := os.ReadFile(want)
		if err != nil {
			t.Fatal(err)
		}
		servers := parsed(t, written)["mcpServers"].(map[string]any)
		entry := servers[CoordinatorEntry].(map[string]any)
		args := toStrings(entry["args"])
		wantArgs := []string{"--mcp", filepath.Join(node, "npx"), "-y", "@playwright/mcp@latest", "--cdp-endpoint", "{cdp_endpoint}"}
		if len(servers) != 1 || entry["command"] != "/opt/bc/browser-coordinator" || !slices.Equal(args, wantArgs) || entry["type"] != nil {
			t.Errorf("%s: written:\n%s", tc.goos, written)
		}
	}
}

// Windows' layout, planned on any host (its paths are Windows paths).
func TestPlanClaudeDesktopOnWindows(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"APPDATA": `D:\Roaming`}, `D:\Roaming\Claude\claude_desktop_config.json`},
		{nil, `C:\Users\u\AppData\Roaming\Claude\claude_desktop_config.json`},
		{map[string]string{"APPDATA": "roaming"}, `C:\Users\u\AppData\Roaming\Claude\claude_desktop_config.json`}, // not a path: ignored
	} {
		o := Options{Host: ClaudeDesktop, Home: `C:\Users\u`, GOOS: "windows", Getenv: func(k string) string { return tc.env[k] },
			LookPath: fakeLookPath(`C:\node`), Sidecar: `C:\bc\browser-coordinator.exe`}
		if got, err := Plan(o); err != nil || got.Path != tc.want {
			t.Errorf("%v: %s, %v; want %s", tc.env, got.Path, err, tc.want)
		}
	}
}

func TestInstallClaudeDesktopKeepsTheRestOfTheFile(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
	os.MkdirAll(filepath.Dir(file), 0o700)
	existing := `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/u/Desktop"]
    }
  }
}
`
	os.WriteFile(file, []byte(existing), 0o600)
	o := Options{Host: ClaudeDesktop, Home: home, GOOS: "darwin", LookPath: fakeLookPath("/usr/local/bin"), Sidecar: "/opt/bc/browser-coordinator", Child: "chrome-devtools"}
	if _, err := Install(o, false); err != nil {
		t.Fatal(err)
	}
	written, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(written), existing[:strings.Index(existing, "\n    }\n  }")]) {
		t.Errorf("the other entry changed:\n%s", written)
	}
	doc := parsed(t, written)
	servers := doc["mcpServers"].(map[string]any)
	args := toStrings(servers[CoordinatorEntry].(map[string]any)["args"])
	if doc["globalShortcut"] != "Ctrl+Space" || servers["filesystem"] == nil ||
		!slices.Equal(args, []string{"--mcp", "/usr/local/bin/npx", "-y", "chrome-devtools-mcp@latest", "--browserUrl", "{cdp_endpoint}"}) {
		t.Errorf("written:\n%s", written)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	if again, err := Install(o, false); err != nil || again.Changed {
		t.Errorf("a second install changed the file: %v", err)
	}
}

func TestPlanClaudeDesktop(t *testing.T) {
	home := "/home/u"
	look := fakeLookPath("/usr/local/bin")
	withTool := func(name, at string) func(string) (string, error) {
		return func(n string) (string, error) {
			if n == name {
				return at, nil
			}
			return look(n)
		}
	}
	for _, tc := range []struct {
		name string
		o    Options
		cmd  string
		args []string
		note string
	}{
		{"playwright", Options{}, "/opt/bc", []string{"--mcp", "/usr/local/bin/npx", "-y", "@playwright/mcp@latest", "--cdp-endpoint", "{cdp_endpoint}"}, ""},
		{"none: the coordinator alone", Options{Child: "none"}, "/opt/bc", nil, ""},
		{"a package spec runs through npx", Options{Child: "@playwright/mcp@0.0.83 --isolated"}, "/opt/bc",
			[]string{"--mcp", "/usr/local/bin/npx", "-y", "@playwright/mcp@0.0.83", "--isolated", "--cdp-endpoint", "{cdp_endpoint}"}, "runs as an npm package"},
		{"a command on PATH becomes absolute", Options{Child: "my-mcp --cdp {cdp_endpoint}", LookPath: withTool("my-mcp", "/opt/mcp/my-mcp")}, "/opt/bc",
			[]string{"--mcp", "/opt/mcp/my-mcp", "--cdp", "{cdp_endpoint}"}, ""},
		{"the coordinator found on PATH", Options{Sidecar: "browser-coordinator", LookPath: withTool("browser-coordinator", "/usr/local/bin/browser-coordinator"), Child: "none"}, "/usr/local/bin/browser-coordinator", nil, ""},
		{"started through npx", Options{Sidecar: "npx", SidecarArgs: []string{"-y", "browser-coordinator"}}, "/usr/local/bin/npx",
			[]string{"-y", "browser-coordinator", "--mcp", "/usr/local/bin/npx", "-y", "@playwright/mcp@latest", "--cdp-endpoint", "{cdp_endpoint}"}, "PATH set to npx's folder"},
	} {
		o := tc.o
		o.Host, o.Home, o.GOOS = ClaudeDesktop, home, "linux"
		o.Getenv = func(k string) string {
			if k == "PATH" {
				return "/usr/bin:/bin"
			}
			return ""
		}
		if o.Sidecar == "" {
			o.Sidecar = "/opt/bc"
		}
		if o.LookPath == nil {
			o.LookPath = look
		}
		got, err := Plan(o)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		e := got.Entries[0].Value.(server)
		if len(got.Entries) != 1 || got.Entries[0].Name != CoordinatorEntry || e.Command != tc.cmd || !slices.Equal(e.Args, tc.args) {
			t.Errorf("%s: %+v", tc.name, got.Entries)
		}
		// Only an entry that starts the coordinator through npx needs node on its PATH.
		if wantEnv := len(o.SidecarArgs) > 0; (e.Env["PATH"] != "") != wantEnv || (wantEnv && e.Env["PATH"] != "/usr/local/bin:/usr/bin:/bin") {
			t.Errorf("%s: env %v", tc.name, e.Env)
		}
		if tc.note != "" && !strings.Contains(strings.Join(got.Notes, "\n"), tc.note) {
			t.Errorf("%s: notes %q lack %q", tc.name, got.Notes, tc.note)
		}
	}
	noNode := func(string) (string, error) { return "", errors.New("not found") }
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"--scope project", Options{Scope: Project}, "[user-scope]"},
		{"no npx", Options{LookPath: noNode}, "[child-command]"},
		{"a coordinator command not on PATH", Options{Sidecar: "bc", Child: "none", LookPath: noNode}, "[absolute-sidecar]"},
		{"a flag as the child", Options{Child: "--headless"}, "[flags-before-child]"},
	} {
		o := tc.o
		o.Host, o.Home, o.GOOS = ClaudeDesktop, home, "darwin"
		if o.Sidecar == "" {
			o.Sidecar = "/opt/bc"
		}
		if o.LookPath == nil {
			o.LookPath = look
		}
		if _, err := Plan(o); err == nil || !strings.Contains(remedy.Describe(err), tc.want) {
			t.Errorf("%s: %v; want an error saying %q", tc.name, err, tc.want)
		}
	}
}
