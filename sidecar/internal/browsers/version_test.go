package browsers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseVersionOutput(t *testing.T) {
	tests := []struct{ out, want string }{
		{"Chromium 156.0.8078.79 built on Debian GNU/Linux 12 (bookworm)\n", "156.0.8078.79"},
		{"Google Chrome 120.0.6099.71 \n", "120.0.6099.71"},
		{"Google Chrome for Testing 120.0.6099.109\n", "120.0.6099.109"},
		{"Microsoft Edge 120.0.2210.77 \n", "120.0.2210.77"},
		{"Brave Browser 120.1.61.109 \n", "120.1.61.109"},
		{"Vivaldi 6.5.3206.48 stable\n", "6.5.3206.48"},
		{"Chromium 120.0.6099.71 snap\n", "120.0.6099.71"},
		{"Chromium 119.0.6045.199 Fedora Project\n", "119.0.6045.199"},
		{"Some Fork 3.2.1\n", "3.2.1"},
		{"/usr/bin/chromium: 9: [: 25276514304: unexpected operator\n", ""},
		{"built on Debian GNU/Linux 12 (bookworm)", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := parseVersionOutput(tt.out); got != tt.want {
			t.Errorf("parseVersionOutput(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"120.0.6099.71", "120.0.6099.71", 0},
		{"120.0.6099.9", "120.0.6099.71", -1},
		{"121.0.0.0", "120.9.9999.999", 1},
		{"99.0.4844.51", "100.0.4896.60", -1},
		{"1.2", "1.2.0.0", 0},
		{"latest", "1.0", -1},
		{"1.0", "x", 1},
		{"x", "y", 0},
	}
	for _, tt := range tests {
		if got := compareVersions(tt.a, tt.b); got != tt.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestPickHighestVersion(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{[]string{"119.0.6045.200", "120.0.6099.71", "120.0.6099.9", "SetupMetrics", "Dictionaries"}, "120.0.6099.71"},
		{[]string{"SetupMetrics", "120.0", "1.2.3", "120.0.6099.71.1"}, ""}, // only four-part names count
		{[]string{"9.0.0.0", "10.0.0.0"}, "10.0.0.0"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := pickHighestVersion(tt.names); got != tt.want {
			t.Errorf("pickHighestVersion(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

func TestVersionFromSiblingDirs(t *testing.T) {
	t.Run("highest version directory", func(t *testing.T) {
		app := t.TempDir()
		exe := touch(t, app, "chrome.exe")
		for _, d := range []string{"119.0.6045.200", "120.0.6099.71", "120.0.6099.9", "SetupMetrics"} {
			mkdir(t, app, d)
		}
		touch(t, app, "121.0.6167.85") // a file, not a directory: ignored
		touch(t, app, "chrome_proxy.exe")
		got, err := versionFromSiblingDirs(exe)
		if err != nil || got != "120.0.6099.71" {
			t.Errorf("versionFromSiblingDirs = %q, %v; want 120.0.6099.71", got, err)
		}
	})
	t.Run("puppeteer cache name as fallback", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "chrome", "win64-120.0.6099.109", "chrome-win64")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		exe := touch(t, dir, "chrome.exe")
		got, err := versionFromSiblingDirs(exe)
		if err != nil || got != "120.0.6099.109" {
			t.Errorf("versionFromSiblingDirs = %q, %v; want 120.0.6099.109", got, err)
		}
	})
	t.Run("no version directory", func(t *testing.T) {
		exe := touch(t, t.TempDir(), "chrome.exe")
		if got, err := versionFromSiblingDirs(exe); err == nil {
			t.Errorf("versionFromSiblingDirs = %q, want an error", got)
		}
	})
	t.Run("missing directory", func(t *testing.T) {
		exe := filepath.Join(t.TempDir(), "nope", "chrome.exe")
		if got, err := versionFromSiblingDirs(exe); err == nil {
			t.Errorf("versionFromSiblingDirs = %q, want an error", got)
		}
	})
}

func TestVersionFromCachePath(t *testing.T) {
	tests := []struct{ path, want string }{
		{`C:\Users\u\.cache\puppeteer\chrome\win64-120.0.6099.109\chrome-win64\chrome.exe`, "120.0.6099.109"},
		{"/home/u/.cache/puppeteer/chrome/linux-121.0.6167.85/chrome-linux64/chrome", "121.0.6167.85"},
		{`C:\Program Files\Google\Chrome\Application\chrome.exe`, ""},
		{"/x/win64-latest/chrome-win64/chrome.exe", ""},
	}
	for _, tt := range tests {
		if got := versionFromCachePath(tt.path); got != tt.want {
			t.Errorf("versionFromCachePath(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// chromePlist is shaped like Google Chrome's Info.plist, with a decoy
// CFBundleShortVersionString in a nested dict before the real one.
const chromePlist = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>CFBundleDevelopmentRegion</key>
	<string>en</string>
	<key>CFBundleDocumentTypes</key>
	<array>
		<dict>
			<key>CFBundleShortVersionString</key>
			<string>0.0.0.0</string>
			<key>CFBundleTypeExtensions</key>
			<array><string>html</string><string>htm</string></array>
		</dict>
	</array>
	<key>CFBundleExecutable</key>
	<string>Google Chrome</string>
	<key>CFBundleIdentifier</key>
	<string>com.google.Chrome</string>
	<key>CFBundleShortVersionString</key>
	<string>
		120.0.6099.71
	</string>
	<key>CFBundleVersion</key>
	<string>6099.71</string>
	<key>LSHasLocalizedDisplayName</key>
	<true/>
</dict>
</plist>
`

func TestPlistString(t *testing.T) {
	tests := []struct {
		name, data, key string
		want            string
		wantErr         string
	}{
		{name: "chrome version", data: chromePlist, key: "CFBundleShortVersionString", want: "120.0.6099.71"},
		{name: "executable", data: chromePlist, key: "CFBundleExecutable", want: "Google Chrome"},
		{name: "missing key", data: chromePlist, key: "NoSuchKey", wantErr: "key not found"},
		{name: "only in a nested dict", data: chromePlist, key: "CFBundleTypeExtensions", wantErr: "key not found"},
		{name: "not a string", data: chromePlist, key: "LSHasLocalizedDisplayName", wantErr: "not a <string>"},
		{name: "binary", data: "bplist00\xd1\x01\x02", key: "CFBundleShortVersionString", wantErr: "binary property list"},
		{name: "malformed", data: "<plist><dict><key>CFBundleShortVersionString</key><string>1.2", key: "CFBundleShortVersionString", wantErr: "parse property list"},
		{name: "not a plist", data: "<html></html>", key: "CFBundleShortVersionString", wantErr: "want <plist>"},
		{name: "empty", data: "", key: "CFBundleShortVersionString", wantErr: "key not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := plistString([]byte(tt.data), tt.key)
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Errorf("plistString = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("plistString = %q, %v; want an error containing %q", got, err, tt.wantErr)
			}
		})
	}
	if _, err := plistString([]byte(chromePlist), "NoSuchKey"); !errors.Is(err, errPlistKeyMissing) {
		t.Errorf("missing key: err = %v, want errPlistKeyMissing", err)
	}
}

func TestVersionFromAppBundle(t *testing.T) {
	root := t.TempDir()
	bundle := filepath.Join(root, "Google Chrome.app")
	macos := filepath.Join(bundle, "Contents", "MacOS")
	if err := os.MkdirAll(macos, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := touch(t, macos, "Google Chrome")
	if err := os.WriteFile(filepath.Join(bundle, "Contents", "Info.plist"), []byte(chromePlist), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := versionFromAppBundle(exe); err != nil || got != "120.0.6099.71" {
		t.Errorf("versionFromAppBundle(exe) = %q, %v; want 120.0.6099.71", got, err)
	}
	link := filepath.Join(root, "chrome")
	if err := os.Symlink(exe, link); err == nil { // symlinks may be unavailable (Windows without privilege)
		if got, err := versionFromAppBundle(link); err != nil || got != "120.0.6099.71" {
			t.Errorf("versionFromAppBundle(symlink) = %q, %v; want 120.0.6099.71", got, err)
		}
	}
	if got, err := versionFromAppBundle(touch(t, root, "loose")); err == nil {
		t.Errorf("versionFromAppBundle outside a bundle = %q, want an error", got)
	}
	noPlist := filepath.Join(root, "Other.app", "Contents", "MacOS")
	if err := os.MkdirAll(noPlist, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := versionFromAppBundle(touch(t, noPlist, "Other")); err == nil {
		t.Errorf("versionFromAppBundle without Info.plist = %q, want an error", got)
	}
}

func TestAppBundle(t *testing.T) {
	tests := []struct{ exe, want string }{
		{"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", "/Applications/Google Chrome.app"},
		{"/x/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing", "/x/chrome-mac-arm64/Google Chrome for Testing.app"},
		{"/usr/bin/chromium", ""},
	}
	for _, tt := range tests {
		got, ok := appBundle(tt.exe)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("appBundle(%q) = %q, %v; want %q", tt.exe, got, ok, tt.want)
		}
	}
}

func TestCappedBuffer(t *testing.T) {
	var b cappedBuffer
	chunk := strings.Repeat("x", 1000)
	for range 100 {
		if n, err := b.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if len(b.String()) != outputCap {
		t.Errorf("kept %d bytes, want %d", len(b.String()), outputCap)
	}
}

func touch(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func mkdir(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
}
