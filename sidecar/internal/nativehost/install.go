package nativehost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/atomicfile"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/osdirs"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/userfile"
)

// Browsers are the browsers install can register the host with.
var browserNames = []string{"chrome", "edge", "chromium", "brave"}

// Browsers returns the browser names install accepts.
func Browsers() []string { return slices.Clone(browserNames) }

// InstallOptions say where to register the host.
type InstallOptions struct {
	Browser string // chrome, edge, chromium or brave
	// UserDataDir, when set, is the profile folder (a browser started with
	// --user-data-dir): the manifest goes into its NativeMessagingHosts
	// folder instead of the browser's per-user one.
	UserDataDir  string
	Binary       string   // absolute path of browser-coordinator, which Chrome starts
	ExtensionIDs []string // allowed extensions; nil means DefaultExtensionIDs
	GOOS         string
	Home         string
	Getenv       func(string) string
	DryRun       bool
}

// InstallResult says what install did.
type InstallResult struct {
	Manifest string // the manifest file
	Content  []byte
	Changed  bool
	// Registry is the Windows registry key that points at Manifest ("" elsewhere).
	Registry string
}

// Manifest is a native messaging host manifest.
type Manifest struct {
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	Path           string   `json:"path"`
	Type           string   `json:"type"`
	AllowedOrigins []string `json:"allowed_origins"`
}

// Install writes the host manifest for one browser (and on Windows the
// registry key Chrome reads to find it). Writing the same content again
// changes nothing.
func Install(o InstallOptions) (InstallResult, error) {
	var r InstallResult
	if !slices.Contains(browserNames, o.Browser) {
		return r, fmt.Errorf("unknown browser %q: use one of %s", o.Browser, strings.Join(browserNames, ", "))
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if !filepath.IsAbs(o.Binary) && !(o.GOOS == "windows" && isWindowsAbs(o.Binary)) {
		return r, remedy.With(fmt.Errorf("the host's path must be absolute, got %q", o.Binary), remedy.AbsoluteSidecar)
	}
	dir, err := ManifestDir(o.GOOS, o.Browser, o.Home, o.UserDataDir, o.Getenv)
	if err != nil {
		return r, err
	}
	ids := o.ExtensionIDs
	if ids == nil {
		ids = DefaultExtensionIDs(o.Getenv)
	}
	m := Manifest{
		Name:        HostName,
		Description: "Browser Coordinator: lets this user's coordinators work in the tabs shared through the Browser Coordinator extension",
		Path:        o.Binary,
		Type:        "stdio",
	}
	for _, id := range ids {
		m.AllowedOrigins = append(m.AllowedOrigins, "chrome-extension://"+id+"/")
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return r, err
	}
	r.Content = append(data, '\n')
	r.Manifest = joinFor(o.GOOS, dir, HostName+".json")
	if o.GOOS == "windows" {
		r.Registry = RegistryKey(o.Browser) + `\` + HostName
	}
	// The browser trusts whatever manifest it finds there: another user who
	// could swap the folder, or the file in it, would name the program it
	// starts as this user.
	if err := userfile.CheckNoLinks(dir); err != nil {
		return r, fmt.Errorf("refusing to register the host in %s: %w", dir, err)
	}
	old, err := os.ReadFile(r.Manifest)
	r.Changed = err != nil || !bytes.Equal(old, r.Content)
	if o.DryRun {
		return r, nil
	}
	if r.Changed {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return r, fmt.Errorf("create %s: %w", dir, err)
		}
		if err := userfile.CheckNoLinks(dir); err != nil { // what MkdirAll found there may be new
			return r, fmt.Errorf("refusing to register the host in %s: %w", dir, err)
		}
		if err := atomicfile.Write(r.Manifest, r.Content, 0o644); err != nil {
			return r, fmt.Errorf("write %s: %w", r.Manifest, err)
		}
	}
	if r.Registry != "" {
		changed, err := setRegistry(r.Registry, r.Manifest)
		if err != nil {
			return r, fmt.Errorf("register %s in HKCU\\%s: %w", r.Manifest, r.Registry, err)
		}
		r.Changed = r.Changed || changed
	}
	return r, nil
}

// ManifestDir is where a browser looks for this user's native messaging
// hosts, or the NativeMessagingHosts folder of the profile userDataDir.
// On Windows the browser finds the manifest through the registry, so the
// folder is one of ours.
func ManifestDir(goos, browser, home, userDataDir string, getenv func(string) string) (string, error) {
	if userDataDir != "" {
		return joinFor(goos, userDataDir, "NativeMessagingHosts"), nil
	}
	env := osdirs.Env{GOOS: goos, Home: home, Getenv: getenv}
	if goos == "windows" {
		// The browser finds the manifest through the registry: the folder is one of ours.
		base, err := env.BrowserData()
		if err != nil {
			return "", fmt.Errorf("cannot tell where to put the host manifest: %w", err)
		}
		return env.Join(base, "browser-coordinator", "NativeMessagingHosts"), nil
	}
	// Linux, macOS and the other unixes Chrome builds for: the stable
	// channel's user data folder (browsers' one list of them).
	p, ok := browsers.StableProfile(env, browsers.Type(browser))
	if !ok {
		return "", errors.New("no home folder: cannot tell where the browser looks for native hosts")
	}
	return env.Join(p.Dir, "NativeMessagingHosts"), nil
}

// The registry key of each browser's native hosts (Windows).
var windowsKey = map[string]string{
	"chrome":   `Software\Google\Chrome\NativeMessagingHosts`,
	"chromium": `Software\Chromium\NativeMessagingHosts`,
	"edge":     `Software\Microsoft\Edge\NativeMessagingHosts`,
	"brave":    `Software\BraveSoftware\Brave-Browser\NativeMessagingHosts`,
}

// RegistryKey is the key below HKEY_CURRENT_USER that holds a browser's
// native hosts on Windows.
func RegistryKey(browser string) string { return windowsKey[browser] }

// joinFor joins path elements with the separator of goos, so the Windows
// table is right when tested on Linux.
func joinFor(goos string, elems ...string) string {
	if goos == "windows" {
		return strings.Join(elems, `\`)
	}
	return filepath.Join(elems...)
}

func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
}
