package mcpserver

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

// startWords stand in for the command line's (package cli): flags only.
var testStartWords = remedy.Words{
	remedy.BrowserPath: "or start the coordinator with --browser-path to use a browser installed elsewhere",
	remedy.OpenTab:     "or open a page with `browser-coordinator launch --url URL`",
}

// bare is a coordinator on a machine where no browser is installed.
func bare(t *testing.T) *coordinator.Coordinator {
	t.Helper()
	dir, err := os.MkdirTemp("", "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	none := &browsers.Detector{
		GOOS:     "linux",
		Getenv:   func(string) string { return "" },
		Exists:   func(string) bool { return false },
		LookPath: func(string) (string, error) { return "", errors.New("not found") },
	}
	c, err := coordinator.New(coordinator.Config{StateDir: dir, Detector: none})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestToolErrorsSayTheirRemediesInTheSurfacesWords(t *testing.T) {
	s := build(t, bare(t), Options{PageTools: PageToolsOff, StartWords: testStartWords})
	// A launch that finds no browser: the flag only the start can set.
	res := s.call("coordinator_launch_browser", nil)
	if got := text(res); !res.IsError || !strings.Contains(got, "no browser found") ||
		!strings.Contains(got, "; or start the coordinator with --browser-path") {
		t.Fatalf("launch with no browser installed: %s", got)
	}
	// A browserPath that is no executable: the tool's own argument, with
	// this OS's example.
	res = s.call("coordinator_launch_browser", map[string]any{"browserPath": "/nonexistent/chrome"})
	if got := text(res); !res.IsError || !strings.Contains(got, "/nonexistent/chrome does not exist or is not executable; give browserPath the browser's executable file (for example /usr/bin/chromium)") ||
		strings.Contains(got, "--browser-path") {
		t.Fatalf("launch with a bad browserPath: %s", got)
	}

	// No browser to list: the flag is the start's word, said only when
	// the command line gave its words.
	if got := text(s.call("coordinator_list_browsers", nil)); !strings.Contains(got, "No browser found") ||
		!strings.Contains(got, "; or start the coordinator with --browser-path") {
		t.Fatalf("list_browsers with no browser installed: %s", got)
	}
	bareWords := build(t, bare(t), Options{PageTools: PageToolsOff})
	if got := text(bareWords.call("coordinator_list_browsers", nil)); !strings.Contains(got, "No browser found") || strings.Contains(got, "--") {
		t.Fatalf("list_browsers without the start's words names a flag: %s", got)
	}

	p := build(t, bare(t), Options{Progressive: true, StartWords: testStartWords})
	r := seedResult(t, p, "connect_browser", map[string]any{"launch": true})
	if e, _ := r["error"].(string); r["connected"] != false || !strings.Contains(e, "; or start the coordinator with --browser-path") {
		t.Fatalf("connect_browser with no browser installed: %v", r)
	}
}

// Each surface names its own tools and never another surface's: the
// progressive surface has open_tab, not coordinator_open_tab.
func TestEachSurfaceNamesItsOwnTools(t *testing.T) {
	def, prog := Words(Options{StartWords: testStartWords}), Words(Options{Progressive: true, StartWords: testStartWords})
	if got := def[remedy.OpenTab]; got != "or call coordinator_open_tab with a URL" {
		t.Errorf("default surface, no view: %q", got)
	}
	if got := prog[remedy.OpenTab]; got != "or call open_tab with a URL" {
		t.Errorf("progressive surface, no view: %q", got)
	}
	for _, k := range remedy.Kinds() {
		if strings.Contains(prog[k], "coordinator_") {
			t.Errorf("progressive words for %s name a tool it does not have: %q", k, prog[k])
		}
		for _, name := range []string{"connect_browser", " open_tab", "list_tabs"} {
			if strings.Contains(def[k], name) {
				t.Errorf("default words for %s name a progressive tool: %q", k, def[k])
			}
		}
	}
	if got := prog[remedy.BrowserPath]; got != testStartWords[remedy.BrowserPath] {
		t.Errorf("what no tool does is said with the start's words: %q", got)
	}
}

// Each surface's table of names names its own tools: what its answers tell
// the agent to call is there to call.
func TestEachVocabNamesItsSurfacesTools(t *testing.T) {
	for _, tc := range []struct {
		o Options
		v vocab
	}{{Options{}, defaultVocab}, {Options{Progressive: true}, progressiveVocab}} {
		s, err := Build(bare(t), tc.o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		tools := s.MCP.ListTools()
		for _, name := range []string{tc.v.listTabs, tc.v.openTab, tc.v.focusTab, tc.v.handleDialog, tc.v.reconnect, tc.v.launch, tc.v.listBrowsers} {
			if _, ok := tools[name]; name != "" && !ok {
				t.Errorf("progressive %v: %q is not one of its tools", tc.o.Progressive, name)
			}
		}
	}
}
