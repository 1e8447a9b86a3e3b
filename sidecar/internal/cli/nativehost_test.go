package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallBrowserHost(t *testing.T) {
	profile := t.TempDir()
	r := run(t, nil, "install", "--host", "chromium", "--user-data-dir", profile)
	manifest := filepath.Join(profile, "NativeMessagingHosts", "com.browser_coordinator.native_host.json")
	if r.code != 0 || !strings.Contains(r.stdout, "registered the native host for chromium: "+manifest) {
		t.Fatalf("%+v", r)
	}
	var m struct {
		Path           string
		AllowedOrigins []string `json:"allowed_origins"`
	}
	data, _ := os.ReadFile(manifest)
	if err := json.Unmarshal(data, &m); err != nil || m.Path != bin || len(m.AllowedOrigins) != 1 {
		t.Fatalf("manifest %s: %+v %v", data, m, err)
	}
	if r := run(t, nil, "install", "--host=chromium", "--user-data-dir", profile); r.code != 0 || !strings.Contains(r.stdout, "up to date") {
		t.Fatalf("second install: %+v", r)
	}
	home := t.TempDir()
	r = run(t, []string{"HOME=" + home, "XDG_CONFIG_HOME="}, "install", "--host", "brave", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, `"type": "stdio"`) || !strings.Contains(r.stderr, filepath.Join(home, ".config", "BraveSoftware")) {
		t.Fatalf("dry run: %+v", r)
	}
	if entries, _ := os.ReadDir(home); len(entries) > 0 {
		t.Fatal("a dry run wrote")
	}
}

func TestNativeHostArguments(t *testing.T) {
	if r := run(t, nil, "native-host"); r.code != 1 || !strings.Contains(r.stderr, "install --host") {
		t.Fatalf("native-host by hand: %+v", r)
	}
	// Chrome's way of starting it, for an extension it does not serve.
	_, env := stateDir(t)
	if r := run(t, env, "chrome-extension://abcdefghijklmnopabcdefghijklmnop/", "--parent-window=0"); r.code != 1 || !strings.Contains(r.stderr, "does not serve") {
		t.Fatalf("another extension: %+v", r)
	}
}
