package cli

import (
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
)

// What --isolated and the other flags ask for: the decision of
// isolated.go, as a user writes the flags.
func TestIsolationFromTheFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string // VSCODE_CDP_PORT
		want coordinator.Isolation
		err  string
	}{
		{args: nil, want: coordinator.Shared},
		{args: []string{"--isolated"}, want: coordinator.IsolatedOwn},
		{args: []string{"--transport", "http", "--isolated"}, want: coordinator.IsolatedPerConnection},
		{args: []string{"--transport", "http"}, want: coordinator.Shared},
		// The default for several sessions of one --mcp coordinator.
		{args: []string{"--transport", "http", "--mcp"}, want: coordinator.IsolatedPerConnection},
		{args: []string{"--transport", "http", "--isolated=false", "--mcp"}, want: coordinator.Shared},
		{args: []string{"--transport", "http", "--user-data-dir", "/p", "--mcp"}, want: coordinator.Shared},
		{args: []string{"--transport", "http", "--cdp-endpoint", "http://127.0.0.1:9222", "--mcp"}, want: coordinator.Shared},
		{args: []string{"--transport", "http", "--mcp"}, env: "9222", want: coordinator.Shared},
		{args: []string{"--transport", "http", "--browser-service", "https://fleet.example", "--mcp"}, want: coordinator.Shared},
		{args: []string{"--transport", "http", "--isolated", "--browser-service", "https://fleet.example", "--mcp"}, want: coordinator.IsolatedPerConnection},
		{args: []string{"--transport", "http", "--isolated", "--cdp-endpoint", "http://127.0.0.1:9222"}, want: coordinator.IsolatedPerConnection},
		{args: []string{"--stdio", "--isolated", "--no-vscode"}, env: "9222", want: coordinator.IsolatedOwn},
		// Refused, with what to do.
		{args: []string{"--isolated", "--browser", "everyday"}, err: "your own browser cannot give through the extension"},
		{args: []string{"--isolated"}, env: "9222", err: "pass --no-vscode"},
	} {
		t.Setenv("VSCODE_CDP_PORT", tc.env)
		args := tc.args
		if len(args) > 0 && args[0] == "--stdio" {
			args = args[1:]
		}
		f, _, ok := parseServe(args)
		if !ok {
			t.Fatalf("%v: not parsed", tc.args)
		}
		got, err := f.isolation()
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%v (VSCODE_CDP_PORT=%q): %v %v, want %v", tc.args, tc.env, got, err, tc.want)
		}
	}
}

func TestIsolatedWithEverydayExits1(t *testing.T) {
	_, env := stateDir(t)
	r := run(t, env, "--isolated", "--browser", "everyday")
	if r.code != 1 || !strings.Contains(r.stderr, "--isolated gives each agent a browser context of its own") {
		t.Fatalf("%+v", r)
	}
}
