package childmcp

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

func TestResolve(t *testing.T) {
	onPath := func(names ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			if slices.Contains(names, name) {
				return "/usr/bin/" + name, nil
			}
			return "", errors.New("not found")
		}
	}
	for _, tc := range []struct {
		in     string
		onPath []string
		want   string
		how    How
	}{
		{"", nil, "npx -y @playwright/mcp@latest", AsDefault},
		{"@playwright/mcp@0.0.83", nil, "npx -y @playwright/mcp@0.0.83", AsPackage},
		{"@playwright/mcp", nil, "npx -y @playwright/mcp", AsPackage},
		{"chrome-devtools-mcp@latest --browserUrl {cdp_endpoint}", nil, "npx -y chrome-devtools-mcp@latest --browserUrl {cdp_endpoint}", AsPackage},
		// A command on PATH wins over a package of the same name.
		{"chrome-devtools-mcp --headless", []string{"chrome-devtools-mcp"}, "chrome-devtools-mcp --headless", AsCommand},
		{"npx -y @playwright/mcp@latest", []string{"npx"}, "npx -y @playwright/mcp@latest", AsCommand},
		{"node server.js", []string{"node"}, "node server.js", AsCommand},
		// Paths run as they are, found or not (a missing one fails at start, as before).
		{"./bin/my-mcp --x", nil, "./bin/my-mcp --x", AsCommand},
		{"/opt/mcp/server", nil, "/opt/mcp/server", AsCommand},
		// Not a package name (upper case, a space): left alone, fails at start.
		{"No_Such_Server", nil, "No_Such_Server", AsCommand},
	} {
		in := strings.Fields(tc.in)
		got, how, err := Resolve(in, onPath(tc.onPath...))
		if err != nil || strings.Join(got, " ") != tc.want || how != tc.how {
			t.Errorf("%q: got %q (%s, %v); want %q (%s)", tc.in, strings.Join(got, " "), how, err, tc.want, tc.how)
		}
		if strings.Join(in, " ") != tc.in {
			t.Errorf("%q: the input was modified", tc.in)
		}
	}
	for _, in := range [][]string{{"--browser", "chrome"}, {"-y", "@playwright/mcp"}} {
		_, _, err := Resolve(in, onPath())
		if !errors.Is(err, ErrFlagFirst) || !remedy.Has(err, remedy.FlagsBeforeChild) {
			t.Errorf("%q: %v; want ErrFlagFirst saying where flags go", in, err)
		}
	}
}

func TestIsPackageSpec(t *testing.T) {
	for spec, want := range map[string]bool{
		"chrome-devtools-mcp":         true,
		"chrome-devtools-mcp@latest":  true,
		"@playwright/mcp":             true,
		"@playwright/mcp@0.0.83":      true,
		"@playwright/mcp@^0.0.80":     true,
		"some-mcp@>=1.2":              true,
		"mcp.server_x~1":              true,
		"@playwright/mcp@":            false, // an empty version
		"@playwright":                 false, // a scope without a name
		"@/mcp":                       false,
		"Playwright":                  false, // upper case
		".hidden":                     false,
		"_private":                    false,
		"./server.js":                 false,
		"/usr/bin/node":               false,
		"a/b":                         false, // a path, not a scope
		"github:microsoft/playwright": false,
		"https://x.test/p.tgz":        false,
		"mcp@1 2":                     false,
		"":                            false,
		strings.Repeat("a", 215):      false,
	} {
		if got := IsPackageSpec(spec); got != want {
			t.Errorf("IsPackageSpec(%q) = %v, want %v", spec, got, want)
		}
	}
}

func TestBesideCommand(t *testing.T) {
	sep := string(os.PathListSeparator)
	dir := filepath.Join(t.TempDir(), "node", "bin")
	npx := filepath.Join(dir, "npx")
	for _, tc := range []struct {
		command, path string
		want          []string
	}{
		{"npx", "/usr/bin", nil}, // not absolute: PATH finds it, and its node
		{npx, "/usr/bin" + sep + "/bin", []string{"PATH=" + dir + sep + "/usr/bin" + sep + "/bin"}},
		{npx, "/usr/bin" + sep + dir, nil}, // already there
		{npx, "", []string{"PATH=" + dir}},
	} {
		if got := besideCommand(tc.command, tc.path); !slices.Equal(got, tc.want) {
			t.Errorf("besideCommand(%q, %q) = %q, want %q", tc.command, tc.path, got, tc.want)
		}
	}
}
