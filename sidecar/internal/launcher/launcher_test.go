package launcher

import (
	"os"
	"slices"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func TestMain(m *testing.M) {
	// The test binary doubles as the watchdog (macOS path, tested here on
	// Linux too) and as a stand-in coordinator that the tests can kill.
	if code, ok := runTestHelper(); ok {
		os.Exit(code)
	}
	os.Exit(testutil.Main(m))
}

func TestParseListening(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
		port int
		path string
	}{
		{"DevTools listening on ws://127.0.0.1:39285/devtools/browser/bf16f348-dbbb", true, 39285, "/devtools/browser/bf16f348-dbbb"},
		{"[1121/1:ERROR:x.cc] DevTools listening on ws://[::1]:9222/devtools/browser/x", true, 9222, "/devtools/browser/x"},
		{"DevTools listening on ws://127.0.0.1:0/devtools/browser/x", false, 0, ""},
		{"DevTools listening on ws://127.0.0.1/devtools/browser/x", false, 0, ""},
		{"something else", false, 0, ""},
	} {
		ep, ok := parseListening(tc.line)
		if ok != tc.ok || ep.port != tc.port || ep.path != tc.path {
			t.Errorf("parseListening(%q) = %+v %v", tc.line, ep, ok)
		}
	}
}

func TestParseActivePort(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		port int
	}{
		{"39285\n/devtools/browser/abc\n", true, 39285},
		{"39285\r\n/devtools/browser/abc", true, 39285},
		{"39285\n", false, 0}, // half-written
		{"", false, 0},        // empty
		{"x\n/devtools/browser/abc", false, 0},
		{"70000\n/devtools/browser/abc", false, 0},
		{"39285\n/json", false, 0},
	} {
		port, _, err := ParseActivePort([]byte(tc.in))
		if (err == nil) != tc.ok || port != tc.port {
			t.Errorf("ParseActivePort(%q) = %d, %v", tc.in, port, err)
		}
	}
}

func TestFlags(t *testing.T) {
	headless := Flags(Options{Headless: true, URL: "http://127.0.0.1:1/", Args: []string{"--lang=fr"}}, "/p")
	visible := Flags(Options{}, "/p")
	for _, want := range []string{debuggingFlag, "--user-data-dir=/p", "--no-first-run", "--disable-background-networking"} {
		if !slices.Contains(headless, want) || !slices.Contains(visible, want) {
			t.Errorf("missing %s", want)
		}
	}
	if !slices.Contains(headless, "--headless") || slices.Contains(visible, "--headless") {
		t.Error("--headless must follow Options.Headless")
	}
	if headless[len(headless)-1] != "http://127.0.0.1:1/" || visible[len(visible)-1] != "about:blank" {
		t.Error("the URL must come last")
	}
	if i, j := slices.Index(headless, "--lang=fr"), slices.Index(headless, "--no-first-run"); i < j {
		t.Error("extra args must come after ours so they can override")
	}
	if slices.Contains(visible, "--no-sandbox") != needsNoSandbox() {
		t.Error("--no-sandbox must be given exactly when running as root")
	}
}

func TestBrowserTempDir(t *testing.T) {
	if d, ok := browserTempDir("/tmp/browser-coordinator/profiles/bcp-4194304-abcdef", true); !ok || d != "/tmp/browser-coordinator/profiles/bcp-4194304-abcdef/t" {
		t.Errorf("default layout: %q %v", d, ok)
	}
	if _, ok := browserTempDir("/tmp/p", false); ok {
		t.Error("a persistent profile must keep the user's TMPDIR")
	}
	if _, ok := browserTempDir("/var/folders/xy/abcdefghijklmnopqrstuvwxyz012345/T/bcp-1-abcdef", true); ok {
		t.Error("a path too long for Chromium's singleton socket was accepted")
	}
}

func TestProfileOwner(t *testing.T) {
	for name, want := range map[string]int{
		"bcp-123-abcd":   123,
		"bcp-x-abcd":     0,
		"bcp-123":        0,
		"other-123-abcd": 0,
	} {
		got, ok := profileOwner(name)
		if got != want || ok != (want != 0) {
			t.Errorf("profileOwner(%q) = %d %v", name, got, ok)
		}
	}
}
