package browsers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

const (
	cftLinux120 = "/home/u/.cache/puppeteer/chrome/linux-120.0.6099.109/chrome-linux64/chrome"
	cftLinux119 = "/home/u/.cache/puppeteer/chrome/linux-119.0.6045.105/chrome-linux64/chrome"
	cftLinux99  = "/home/u/.cache/puppeteer/chrome/linux-99.0.4844.51/chrome-linux64/chrome"

	macChrome    = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
	macCanary    = "/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary"
	macBraveHome = "/Users/u/Applications/Brave Browser.app/Contents/MacOS/Brave Browser"
	macChromium  = "/Applications/Chromium.app/Contents/MacOS/Chromium"
	macCfT       = "/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"

	winChrome      = `C:\Program Files\Google\Chrome\Application\chrome.exe`
	winEdge        = `C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`
	winBraveLocal  = `C:\Users\u\AppData\Local\BraveSoftware\Brave-Browser\Application\brave.exe`
	winVivaldi     = `C:\Users\u\AppData\Local\Vivaldi\Application\vivaldi.exe`
	winCanary      = `C:\Users\u\AppData\Local\Google\Chrome SxS\Application\chrome.exe`
	winChromiumLoc = `C:\Users\u\AppData\Local\Chromium\Application\chrome.exe`
)

func linuxEnv() map[string]string  { return map[string]string{"HOME": "/home/u"} }
func darwinEnv() map[string]string { return map[string]string{"HOME": "/Users/u"} }
func windowsEnv() map[string]string {
	return map[string]string{
		"ProgramFiles":      `C:\Program Files`,
		"ProgramFiles(x86)": `C:\Program Files (x86)`,
		"LOCALAPPDATA":      `C:\Users\u\AppData\Local`,
		"USERPROFILE":       `C:\Users\u`,
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		sys  fakeSys
		want []Browser
	}{
		{
			name: "linux/debian chromium",
			sys: fakeSys{goos: "linux", env: linuxEnv(), files: []string{"/usr/bin/chromium"},
				versions: map[string]string{"/usr/bin/chromium": "156.0.8078.79"}},
			want: []Browser{{Chromium, "Chromium", "/usr/bin/chromium", "156.0.8078.79"}},
		},
		{
			name: "linux/nothing installed",
			sys:  fakeSys{goos: "linux", env: linuxEnv()},
			want: nil,
		},
		{
			name: "linux/every type in preference order",
			sys: fakeSys{goos: "linux", env: linuxEnv(),
				files: []string{"/opt/vivaldi/vivaldi", "/usr/bin/brave-browser", "/usr/bin/chromium",
					"/opt/google/chrome/chrome", "/usr/bin/microsoft-edge-stable", cftLinux120},
				dirs: map[string][]string{"/home/u/.cache/puppeteer/chrome": {"linux-120.0.6099.109"}}},
			want: []Browser{
				{Chrome, "Google Chrome", "/opt/google/chrome/chrome", ""},
				{Edge, "Microsoft Edge", "/usr/bin/microsoft-edge-stable", ""},
				{Chromium, "Chromium", "/usr/bin/chromium", ""},
				{Brave, "Brave", "/usr/bin/brave-browser", ""},
				{ChromeForTesting, "Google Chrome for Testing", cftLinux120, ""},
				{Vivaldi, "Vivaldi", "/opt/vivaldi/vivaldi", ""},
			},
		},
		{
			name: "linux/channels are separate entries after stable",
			sys: fakeSys{goos: "linux", env: linuxEnv(),
				files: []string{"/usr/bin/google-chrome-beta", "/usr/bin/google-chrome-stable", "/usr/bin/chromium"}},
			want: []Browser{
				{Chrome, "Google Chrome", "/usr/bin/google-chrome-stable", ""},
				{Chrome, "Google Chrome Beta", "/usr/bin/google-chrome-beta", ""},
				{Chromium, "Chromium", "/usr/bin/chromium", ""},
			},
		},
		{
			name: "linux/one installation reached by several paths is one entry",
			sys: fakeSys{goos: "linux", env: linuxEnv(),
				files:  []string{"/usr/bin/chromium-browser", "/usr/bin/chromium", "/snap/bin/chromium"},
				onPath: map[string]string{"chromium": "/usr/bin/chromium"}},
			want: []Browser{{Chromium, "Chromium", "/usr/bin/chromium", ""}},
		},
		{
			name: "linux/symlinks to the same file are one entry",
			// Only Edge Beta installed: update-alternatives points
			// /usr/bin/microsoft-edge at it, as does microsoft-edge-beta.
			sys: fakeSys{goos: "linux", env: linuxEnv(),
				files: []string{"/usr/bin/microsoft-edge", "/usr/bin/microsoft-edge-beta"},
				links: map[string]string{
					"/usr/bin/microsoft-edge":      "/opt/microsoft/msedge-beta/microsoft-edge",
					"/usr/bin/microsoft-edge-beta": "/opt/microsoft/msedge-beta/microsoft-edge",
				}},
			want: []Browser{{Edge, "Microsoft Edge", "/usr/bin/microsoft-edge", ""}},
		},
		{
			name: "linux/snap launchers all link to /usr/bin/snap but are different browsers",
			sys: fakeSys{goos: "linux", env: linuxEnv(),
				files: []string{"/snap/bin/chromium", "/snap/bin/brave"},
				links: map[string]string{"/snap/bin/chromium": "/usr/bin/snap", "/snap/bin/brave": "/usr/bin/snap"}},
			want: []Browser{
				{Chromium, "Chromium", "/snap/bin/chromium", ""},
				{Brave, "Brave", "/snap/bin/brave", ""},
			},
		},
		{
			name: "linux/found on PATH only",
			sys: fakeSys{goos: "linux", env: linuxEnv(),
				onPath: map[string]string{"chromium": "/home/u/bin/chromium", "brave": "/usr/local/bin/brave"}},
			want: []Browser{
				{Chromium, "Chromium", "/home/u/bin/chromium", ""},
				{Brave, "Brave", "/usr/local/bin/brave", ""},
			},
		},
		{
			name: "linux/chrome for testing: newest installed version",
			sys: fakeSys{goos: "linux", env: linuxEnv(),
				files: []string{cftLinux99, cftLinux119, cftLinux120},
				dirs: map[string][]string{"/home/u/.cache/puppeteer/chrome": {
					".metadata", "linux-119.0.6045.105", "linux-99.0.4844.51", "linux-120.0.6099.109",
					"linux-121.0.6167.85", // downloaded but no executable: skipped
					"mac-122.0.6261.57", "linux-latest",
				}}},
			want: []Browser{{ChromeForTesting, "Google Chrome for Testing", cftLinux120, ""}},
		},
		{
			name: "linux/chrome for testing: PUPPETEER_CACHE_DIR",
			sys: fakeSys{goos: "linux", env: map[string]string{"HOME": "/home/u", "PUPPETEER_CACHE_DIR": "/srv/pptr"},
				files: []string{cftLinux120, "/srv/pptr/chrome/linux-118.0.5993.70/chrome-linux64/chrome"},
				dirs: map[string][]string{
					"/home/u/.cache/puppeteer/chrome": {"linux-120.0.6099.109"},
					"/srv/pptr/chrome":                {"linux-118.0.5993.70"},
				}},
			want: []Browser{{ChromeForTesting, "Google Chrome for Testing", "/srv/pptr/chrome/linux-118.0.5993.70/chrome-linux64/chrome", ""}},
		},
		{
			name: "freebsd uses the unix table",
			sys:  fakeSys{goos: "freebsd", onPath: map[string]string{"chromium": "/usr/local/bin/chromium"}},
			want: []Browser{{Chromium, "Chromium", "/usr/local/bin/chromium", ""}},
		},
		{
			name: "darwin/apps in /Applications and ~/Applications",
			sys: fakeSys{goos: "darwin", env: darwinEnv(),
				files:    []string{macBraveHome, macCanary, macChrome},
				versions: map[string]string{macChrome: "120.0.6099.71", macBraveHome: "120.1.61.109"}},
			want: []Browser{
				{Chrome, "Google Chrome", macChrome, "120.0.6099.71"},
				{Chrome, "Google Chrome Canary", macCanary, ""},
				{Brave, "Brave", macBraveHome, "120.1.61.109"},
			},
		},
		{
			name: "darwin/Homebrew's chromium link is the app",
			sys: fakeSys{goos: "darwin", env: darwinEnv(),
				files:  []string{macChromium, "/opt/homebrew/bin/chromium"},
				onPath: map[string]string{"chromium": "/opt/homebrew/bin/chromium"},
				links:  map[string]string{"/opt/homebrew/bin/chromium": macChromium}},
			want: []Browser{{Chromium, "Chromium", macChromium, ""}},
		},
		{
			name: "darwin/chrome for testing app and puppeteer cache",
			sys: fakeSys{goos: "darwin", env: darwinEnv(),
				files: []string{
					"/Users/u/.cache/puppeteer/chrome/mac_arm-121.0.6167.85/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
					"/Users/u/.cache/puppeteer/chrome/mac-120.0.6099.109/chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
				},
				dirs: map[string][]string{"/Users/u/.cache/puppeteer/chrome": {"mac-120.0.6099.109", "mac_arm-121.0.6167.85"}}},
			want: []Browser{{ChromeForTesting, "Google Chrome for Testing",
				"/Users/u/.cache/puppeteer/chrome/mac_arm-121.0.6167.85/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing", ""}},
		},
		{
			name: "darwin/installed app beats the cache",
			sys: fakeSys{goos: "darwin", env: darwinEnv(),
				files: []string{macCfT, "/Users/u/.cache/puppeteer/chrome/mac-120.0.6099.109/chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"},
				dirs:  map[string][]string{"/Users/u/.cache/puppeteer/chrome": {"mac-120.0.6099.109"}}},
			want: []Browser{{ChromeForTesting, "Google Chrome for Testing", macCfT, ""}},
		},
		{
			name: "windows/program files, x86 and local app data",
			sys: fakeSys{goos: "windows", env: windowsEnv(),
				files:    []string{winVivaldi, winBraveLocal, winEdge, winChrome},
				versions: map[string]string{winEdge: "120.0.2210.77"}},
			want: []Browser{
				{Chrome, "Google Chrome", winChrome, ""},
				{Edge, "Microsoft Edge", winEdge, "120.0.2210.77"},
				{Brave, "Brave", winBraveLocal, ""},
				{Vivaldi, "Vivaldi", winVivaldi, ""},
			},
		},
		{
			name: "windows/default roots when the environment is empty",
			sys:  fakeSys{goos: "windows", files: []string{winChrome, winEdge}},
			want: []Browser{
				{Chrome, "Google Chrome", winChrome, ""},
				{Edge, "Microsoft Edge", winEdge, ""},
			},
		},
		{
			name: "windows/LOCALAPPDATA derived from USERPROFILE",
			sys: fakeSys{goos: "windows", env: map[string]string{"USERPROFILE": `C:\Users\u`},
				files: []string{winCanary, winChromiumLoc}},
			want: []Browser{
				{Chrome, "Google Chrome Canary", winCanary, ""},
				{Chromium, "Chromium", winChromiumLoc, ""},
			},
		},
		{
			name: "windows/chrome for testing in the puppeteer cache",
			sys: fakeSys{goos: "windows", env: windowsEnv(),
				files: []string{
					`C:\Users\u\.cache\puppeteer\chrome\win64-120.0.6099.109\chrome-win64\chrome.exe`,
					`C:\Users\u\.cache\puppeteer\chrome\win32-121.0.6167.85\chrome-win32\chrome.exe`,
				},
				dirs: map[string][]string{`C:\Users\u\.cache\puppeteer\chrome`: {"win64-120.0.6099.109", "win32-121.0.6167.85"}}},
			want: []Browser{{ChromeForTesting, "Google Chrome for Testing",
				`C:\Users\u\.cache\puppeteer\chrome\win32-121.0.6167.85\chrome-win32\chrome.exe`, ""}},
		},
		{
			name: "windows/paths differing only in case are one file",
			sys: fakeSys{goos: "windows", env: windowsEnv(),
				files:  []string{winChrome},
				onPath: map[string]string{"chromium": strings.ToUpper(winChrome)}},
			want: []Browser{{Chrome, "Google Chrome", winChrome, ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.sys.detector().Detect(t.Context())
			if err != nil {
				t.Fatalf("Detect: %v", err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Detect:\n got %s\nwant %s", dump(got), dump(tt.want))
			}
		})
	}
}

func dump(bs []Browser) string {
	var b strings.Builder
	for _, x := range bs {
		fmt.Fprintf(&b, "\n  %+v", x)
	}
	return b.String()
}

// TestDetectReadsVersionsConcurrently fails if versions are read one after
// another: each read waits until all have started.
func TestDetectReadsVersionsConcurrently(t *testing.T) {
	sys := fakeSys{goos: "linux", env: linuxEnv(),
		files: []string{"/usr/bin/google-chrome-stable", "/usr/bin/chromium", "/usr/bin/brave-browser"}}
	d := sys.detector()
	var started atomic.Int32
	all := make(chan struct{})
	d.Version = func(ctx context.Context, b Browser) (string, error) {
		deadline, ok := ctx.Deadline()
		if !ok || time.Until(deadline) > versionTimeout {
			return "", fmt.Errorf("version read for %s has no %s deadline", b.Path, versionTimeout)
		}
		if started.Add(1) == 3 {
			close(all)
		}
		select {
		case <-all:
			return "1.2.3.4", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	got, err := d.Detect(t.Context())
	if err != nil {
		t.Fatalf("Detect: %v", err)
	}
	if len(got) != 3 {
		t.Fatalf("Detect found %d browsers, want 3: %s", len(got), dump(got))
	}
	for _, b := range got {
		if b.Version != "1.2.3.4" {
			t.Errorf("%s: Version = %q, want 1.2.3.4 (versions not read concurrently?)", b.Path, b.Version)
		}
	}
}

func TestDetectCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	d := fakeSys{goos: "linux", files: []string{"/usr/bin/chromium"}}.detector()
	if _, err := d.Detect(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Detect with a cancelled context: err = %v, want context.Canceled", err)
	}
}

func TestDetectorMustBeConfigured(t *testing.T) {
	for name, d := range map[string]*Detector{"zero": {}, "nil": nil, "no Exists": {GOOS: "linux", Getenv: func(string) string { return "" },
		LookPath: func(string) (string, error) { return "", errors.New("no") }}} {
		t.Run(name, func(t *testing.T) {
			if _, err := d.Detect(t.Context()); err == nil || !strings.Contains(err.Error(), "System()") {
				t.Errorf("Detect: err = %v, want an error pointing at System()", err)
			}
			if _, err := d.FromPath(t.Context(), "/usr/bin/chromium"); err == nil {
				t.Error("FromPath: err = nil, want an error")
			}
		})
	}
}

func TestFind(t *testing.T) {
	chromeAndChromium := fakeSys{goos: "linux", env: linuxEnv(),
		files:    []string{"/usr/bin/chromium", "/usr/bin/google-chrome-stable"},
		versions: map[string]string{"/usr/bin/chromium": "156.0.8078.79", "/usr/bin/google-chrome-stable": "120.0.6099.71"}}
	chromiumOnly := fakeSys{goos: "linux", env: linuxEnv(), files: []string{"/usr/bin/chromium"}}
	tests := []struct {
		name      string
		sys       fakeSys
		preferred Type
		want      Browser
		wantErr   error
		wantMsg   string // exact message, if set
		wantIn    []string
	}{
		{
			name: "no preference takes the first", sys: chromeAndChromium,
			want: Browser{Chrome, "Google Chrome", "/usr/bin/google-chrome-stable", "120.0.6099.71"},
		},
		{
			name: "preferred type", sys: chromeAndChromium, preferred: Chromium,
			want: Browser{Chromium, "Chromium", "/usr/bin/chromium", "156.0.8078.79"},
		},
		{
			name: "preferred type not installed lists what is", sys: chromiumOnly, preferred: Brave,
			wantErr: ErrNotFound,
			wantIn:  []string{"brave is not installed; detected: chromium (/usr/bin/chromium)", "[browser-path]"},
		},
		{
			name: "preferred type not installed lists every detected browser", sys: chromeAndChromium, preferred: Vivaldi,
			wantErr: ErrNotFound,
			wantIn:  []string{"detected: chrome (/usr/bin/google-chrome-stable), chromium (/usr/bin/chromium)"},
		},
		{
			name: "nothing installed on linux", sys: fakeSys{goos: "linux", env: linuxEnv()},
			wantErr: ErrNotFound,
			wantMsg: "no browser found: install Chrome, Edge, Chromium or Brave (on Debian/Ubuntu: apt-get install chromium); [browser-path]",
		},
		{
			name: "nothing installed on darwin", sys: fakeSys{goos: "darwin", env: darwinEnv()},
			wantErr: ErrNotFound, wantIn: []string{"brew install --cask google-chrome", "[browser-path]"},
		},
		{
			name: "nothing installed on windows", sys: fakeSys{goos: "windows", env: windowsEnv()},
			wantErr: ErrNotFound, wantIn: []string{"winget install Google.Chrome", "[browser-path]"},
		},
		{
			name: "preferred type with nothing installed", sys: fakeSys{goos: "linux"}, preferred: Edge,
			wantErr: ErrNotFound, wantIn: []string{"edge is not installed and no other browser was detected", "Microsoft Edge", "[browser-path]"},
		},
		{
			name: "unknown type", sys: chromeAndChromium, preferred: "firefox",
			wantErr: ErrUnknownType, wantIn: []string{`"firefox"`, "chrome, edge, chromium, brave, chrome-for-testing, vivaldi"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.sys.detector().Find(t.Context(), tt.preferred)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Find(%q): %v", tt.preferred, err)
				}
				if got != tt.want {
					t.Errorf("Find(%q) = %+v, want %+v", tt.preferred, got, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Find(%q): err = %v, want errors.Is %v", tt.preferred, err, tt.wantErr)
			}
			// The remedies are named, not phrased: the surface phrases them.
			msg := remedy.Describe(err)
			if tt.wantMsg != "" && msg != tt.wantMsg {
				t.Errorf("Find(%q) error:\n got %q\nwant %q", tt.preferred, msg, tt.wantMsg)
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(msg, s) {
					t.Errorf("Find(%q) error %q does not contain %q", tt.preferred, err, s)
				}
			}
		})
	}
}

func TestFindReadsOnlyTheChosenVersion(t *testing.T) {
	d := fakeSys{goos: "linux", env: linuxEnv(),
		files: []string{"/usr/bin/chromium", "/usr/bin/google-chrome-stable", "/usr/bin/brave-browser"}}.detector()
	var reads []string
	d.Version = func(_ context.Context, b Browser) (string, error) {
		reads = append(reads, b.Path)
		return "1.2.3.4", nil
	}
	b, err := d.Find(t.Context(), Brave)
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	if b.Version != "1.2.3.4" || !slices.Equal(reads, []string{"/usr/bin/brave-browser"}) {
		t.Errorf("Find read versions of %v (result version %q), want only /usr/bin/brave-browser", reads, b.Version)
	}
}

func TestFromPath(t *testing.T) {
	linux := fakeSys{goos: "linux", env: linuxEnv(),
		files: []string{"/usr/bin/chromium", "/usr/bin/google-chrome-beta", "/opt/custom/brave",
			"/home/u/build/out/Release/chrome", "/home/u/cft/chrome-linux64/chrome"},
		onPath:   map[string]string{"chromium": "/usr/bin/chromium"},
		versions: map[string]string{"/usr/bin/chromium": "156.0.8078.79"}}
	darwin := fakeSys{goos: "darwin", env: darwinEnv(),
		files:    []string{"/Applications/Brave Browser.app/Contents/MacOS/Brave Browser", "/Volumes/x/Thorium.app/Contents/MacOS/Thorium"},
		versions: map[string]string{"/Applications/Brave Browser.app/Contents/MacOS/Brave Browser": "120.1.61.109"}}
	windows := fakeSys{goos: "windows", env: windowsEnv(),
		files: []string{winChrome, `D:\Portable\Chromium\chrome.exe`, `D:\tools\msedge.exe`}}
	tests := []struct {
		name    string
		sys     fakeSys
		path    string
		want    Browser
		wantErr error
		wantIn  []string
	}{
		{name: "known location", sys: linux, path: "/usr/bin/chromium",
			want: Browser{Chromium, "Chromium", "/usr/bin/chromium", "156.0.8078.79"}},
		{name: "known location keeps the channel name", sys: linux, path: "/usr/bin/google-chrome-beta",
			want: Browser{Chrome, "Google Chrome Beta", "/usr/bin/google-chrome-beta", ""}},
		{name: "type from the file name", sys: linux, path: "/opt/custom/brave",
			want: Browser{Brave, "Brave", "/opt/custom/brave", ""}},
		{name: "chrome for testing from its directory", sys: linux, path: "/home/u/cft/chrome-linux64/chrome",
			want: Browser{ChromeForTesting, "Google Chrome for Testing", "/home/u/cft/chrome-linux64/chrome", ""}},
		{name: "unknown chrome build falls back to chromium", sys: linux, path: "/home/u/build/out/Release/chrome",
			want: Browser{Chromium, "Chromium", "/home/u/build/out/Release/chrome", ""}},
		{name: "bare name is looked up on PATH", sys: linux, path: "chromium",
			want: Browser{Chromium, "Chromium", "/usr/bin/chromium", "156.0.8078.79"}},
		{name: "bare name not on PATH", sys: linux, path: "brave-browser",
			wantErr: ErrNotExecutable, wantIn: []string{`"brave-browser"`, "not found on PATH", "[executable /usr/bin/chromium]"}},
		{name: "missing or not executable", sys: linux, path: "/home/u/notes.txt",
			wantErr: ErrNotExecutable, wantIn: []string{"/home/u/notes.txt does not exist or is not executable", "[executable /usr/bin/chromium]"}},
		{name: "empty", sys: linux, path: "",
			wantErr: ErrNotExecutable, wantIn: []string{"empty", "[executable /usr/bin/chromium]"}},
		{name: "darwin .app bundle", sys: darwin, path: "/Applications/Brave Browser.app/",
			want: Browser{Brave, "Brave", "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser", "120.1.61.109"}},
		{name: "darwin unknown app falls back to chromium", sys: darwin, path: "/Volumes/x/Thorium.app",
			want: Browser{Chromium, "Chromium", "/Volumes/x/Thorium.app/Contents/MacOS/Thorium", ""}},
		{name: "darwin missing app", sys: darwin, path: "/Applications/Vivaldi.app",
			wantErr: ErrNotExecutable, wantIn: []string{"/Applications/Vivaldi.app/Contents/MacOS/Vivaldi does not exist"}},
		{name: "windows known location", sys: windows, path: winChrome,
			want: Browser{Chrome, "Google Chrome", winChrome, ""}},
		{name: "windows chrome.exe under a Chromium dir", sys: windows, path: `D:\Portable\Chromium\chrome.exe`,
			want: Browser{Chromium, "Chromium", `D:\Portable\Chromium\chrome.exe`, ""}},
		{name: "windows msedge.exe", sys: windows, path: `D:\tools\msedge.exe`,
			want: Browser{Edge, "Microsoft Edge", `D:\tools\msedge.exe`, ""}},
		{name: "windows missing", sys: windows, path: `D:\nope\chrome.exe`,
			wantErr: ErrNotExecutable, wantIn: []string{`D:\nope\chrome.exe does not exist`, `C:\Program Files\Google\Chrome\Application\chrome.exe`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.sys.detector().FromPath(t.Context(), tt.path)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("FromPath(%q): %v", tt.path, err)
				}
				if got != tt.want {
					t.Errorf("FromPath(%q) = %+v, want %+v", tt.path, got, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("FromPath(%q): err = %v, want errors.Is %v", tt.path, err, tt.wantErr)
			}
			for _, s := range tt.wantIn {
				if msg := remedy.Describe(err); !strings.Contains(msg, s) {
					t.Errorf("FromPath(%q) error %q does not contain %q", tt.path, msg, s)
				}
			}
		})
	}
}

func TestInferType(t *testing.T) {
	tests := []struct {
		path string
		want Type
	}{
		{"/usr/bin/google-chrome", Chrome},
		{"/opt/google/chrome/chrome", Chrome},
		{`C:\Program Files\Google\Chrome Beta\Application\chrome.exe`, Chrome},
		{"/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary", Chrome},
		{"/usr/bin/microsoft-edge-dev", Edge},
		{"/opt/microsoft/msedge/msedge", Edge},
		{`C:\x\MSEDGE.EXE`, Edge},
		{"/usr/bin/chromium-browser", Chromium},
		{`C:\Users\u\AppData\Local\Chromium\Application\chrome.exe`, Chromium},
		{"/home/u/src/out/Default/chrome", Chromium},
		{"/usr/local/bin/some-fork", Chromium},
		{"/opt/brave.com/brave/brave", Brave},
		{"/Applications/Brave Browser Nightly.app/Contents/MacOS/Brave Browser Nightly", Brave},
		{"/opt/vivaldi/vivaldi", Vivaldi},
		{"/tmp/x/chrome-linux64/chrome", ChromeForTesting},
		{`C:\t\chrome-win64\chrome.exe`, ChromeForTesting},
		{"/tmp/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing", ChromeForTesting},
		{"", Chromium},
	}
	for _, tt := range tests {
		if got := inferType(tt.path); got != tt.want {
			t.Errorf("inferType(%q) = %s, want %s", tt.path, got, tt.want)
		}
	}
}

func TestParseType(t *testing.T) {
	tests := []struct {
		in   string
		want Type
	}{
		{"chrome", Chrome}, {"CHROME", Chrome}, {" Chrome\n", Chrome}, {"google-chrome", Chrome},
		{"edge", Edge}, {"msedge", Edge}, {"Microsoft-Edge", Edge},
		{"chromium", Chromium}, {"chromium-browser", Chromium},
		{"brave", Brave}, {"brave-browser", Brave},
		{"chrome-for-testing", ChromeForTesting}, {"Chrome-For-Testing", ChromeForTesting}, {"cft", ChromeForTesting},
		{"vivaldi", Vivaldi},
	}
	for _, tt := range tests {
		got, err := ParseType(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseType(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "firefox", "chrome-beta", "google chrome"} {
		got, err := ParseType(bad)
		if !errors.Is(err, ErrUnknownType) {
			t.Errorf("ParseType(%q) = %q, %v; want ErrUnknownType", bad, got, err)
			continue
		}
		if !strings.Contains(err.Error(), "chrome, edge, chromium, brave, chrome-for-testing, vivaldi") {
			t.Errorf("ParseType(%q) error %q does not list the valid names", bad, err)
		}
	}
}

func TestTypes(t *testing.T) {
	want := []Type{"chrome", "edge", "chromium", "brave", "chrome-for-testing", "vivaldi"}
	got := Types()
	if !slices.Equal(got, want) {
		t.Fatalf("Types() = %v, want %v", got, want)
	}
	got[0] = "mutated"
	if Types()[0] != Chrome {
		t.Error("Types() returns shared state: mutating the result changed the next call")
	}
	for _, typ := range want {
		if p, err := ParseType(string(typ)); err != nil || p != typ {
			t.Errorf("ParseType(%q) = %q, %v", typ, p, err)
		}
	}
}

// TestTablesWellFormed checks every table entry: known type, a name, absolute
// paths in the OS's syntax, no duplicates.
func TestTablesWellFormed(t *testing.T) {
	env := map[string]map[string]string{"linux": linuxEnv(), "darwin": darwinEnv(), "windows": windowsEnv()}
	for goos, e := range env {
		t.Run(goos, func(t *testing.T) {
			tab := tableFor(goos, func(k string) string { return e[k] })
			seen := map[string]bool{}
			types := map[Type]bool{}
			for _, in := range tab.installs {
				types[in.typ] = true
				if rank(in.typ) == len(Types()) || in.name == "" {
					t.Errorf("bad install %+v", in)
				}
				if len(in.paths) == 0 && in.cache == nil && len(in.pathNames) == 0 {
					t.Errorf("%s: nowhere to look", in.name)
				}
				for _, p := range in.paths {
					if !tab.isAbs(p) || seen[p] {
						t.Errorf("%s: path %q is not absolute or is listed twice", in.name, p)
					}
					if goos == "windows" && strings.Contains(p, "/") || goos != "windows" && strings.Contains(p, `\`) {
						t.Errorf("%s: path %q uses the wrong separator", in.name, p)
					}
					seen[p] = true
				}
			}
			for _, typ := range Types() {
				if !types[typ] {
					t.Errorf("no %s in the %s table", typ, goos)
				}
			}
		})
	}
}

func TestWinJoin(t *testing.T) {
	tests := []struct {
		elem []string
		want string
	}{
		{[]string{`C:\Program Files`, `Google\Chrome\Application\chrome.exe`}, `C:\Program Files\Google\Chrome\Application\chrome.exe`},
		{[]string{`C:\Users\u\`, `\.cache`, "puppeteer"}, `C:\Users\u\.cache\puppeteer`},
		{[]string{`\\server\share`, "x"}, `\\server\share\x`},
		{[]string{"", "x"}, "x"},
	}
	for _, tt := range tests {
		if got := winJoin(tt.elem...); got != tt.want {
			t.Errorf("winJoin(%q) = %q, want %q", tt.elem, got, tt.want)
		}
	}
	for p, want := range map[string]bool{`C:\x`: true, `c:/x`: true, `\\srv\share`: true, `x\y`: false, `C:x`: false, "": false, `1:\x`: false} {
		if got := winIsAbs(p); got != want {
			t.Errorf("winIsAbs(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestInstalledListAndNotFound checks the helpers that only name browsers
// for messages: no version is read, and NotFound says what Find says.
func TestInstalledListAndNotFound(t *testing.T) {
	sys := fakeSys{goos: "linux", env: linuxEnv(), files: []string{"/usr/bin/google-chrome-stable", "/usr/bin/chromium"}}
	d := sys.detector()
	d.Version = func(context.Context, Browser) (string, error) {
		t.Error("Installed read a version")
		return "", nil
	}
	found, err := d.Installed(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := List(found), "chrome (/usr/bin/google-chrome-stable), chromium (/usr/bin/chromium)"; got != want {
		t.Errorf("List = %q, want %q", got, want)
	}
	if got := List(nil); got != "" {
		t.Errorf("List(nil) = %q", got)
	}

	none := fakeSys{goos: "linux", env: linuxEnv()}.detector()
	_, findErr := none.Find(t.Context(), "")
	if err := none.NotFound(); !errors.Is(err, ErrNotFound) || err.Error() != findErr.Error() {
		t.Errorf("NotFound = %v; Find says %v", err, findErr)
	}
}
