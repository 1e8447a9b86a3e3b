package browsers

import "github.com/browser-coordinator/browser-coordinator/sidecar/internal/osdirs"

// Profile is a browser's default user data folder: where the browser the
// user runs every day keeps its profile (and, while remote debugging is on,
// its DevToolsActivePort).
type Profile struct {
	Type Type
	Name string // "Google Chrome Beta"
	Dir  string
}

// profileDir is one channel's user data folder below its OS's base.
type profileDir struct {
	typ  Type
	name string
	dir  string // below the base, with "/" separators
}

// profileDirs lists, per OS, each channel's user data folder below the
// browsers' base (osdirs.Env.BrowserData): ~/.config (or $XDG_CONFIG_HOME)
// on Linux and the other unixes, ~/Library/Application Support on macOS,
// %LOCALAPPDATA% on Windows. Stable channels come first.
func profileDirs(goos string) []profileDir {
	switch goos {
	case "darwin":
		return []profileDir{
			{Chrome, "Google Chrome", "Google/Chrome"},
			{Chrome, "Google Chrome Beta", "Google/Chrome Beta"},
			{Chrome, "Google Chrome Dev", "Google/Chrome Dev"},
			{Chrome, "Google Chrome Canary", "Google/Chrome Canary"},
			{Edge, "Microsoft Edge", "Microsoft Edge"},
			{Edge, "Microsoft Edge Beta", "Microsoft Edge Beta"},
			{Edge, "Microsoft Edge Dev", "Microsoft Edge Dev"},
			{Edge, "Microsoft Edge Canary", "Microsoft Edge Canary"},
			{Chromium, "Chromium", "Chromium"},
			{Brave, "Brave", "BraveSoftware/Brave-Browser"},
			{Brave, "Brave Beta", "BraveSoftware/Brave-Browser-Beta"},
			{Brave, "Brave Nightly", "BraveSoftware/Brave-Browser-Nightly"},
			{Vivaldi, "Vivaldi", "Vivaldi"},
		}
	case "windows":
		return []profileDir{
			{Chrome, "Google Chrome", "Google/Chrome/User Data"},
			{Chrome, "Google Chrome Beta", "Google/Chrome Beta/User Data"},
			{Chrome, "Google Chrome Dev", "Google/Chrome Dev/User Data"},
			{Chrome, "Google Chrome Canary", "Google/Chrome SxS/User Data"},
			{Edge, "Microsoft Edge", "Microsoft/Edge/User Data"},
			{Edge, "Microsoft Edge Beta", "Microsoft/Edge Beta/User Data"},
			{Edge, "Microsoft Edge Dev", "Microsoft/Edge Dev/User Data"},
			{Edge, "Microsoft Edge Canary", "Microsoft/Edge SxS/User Data"},
			{Chromium, "Chromium", "Chromium/User Data"},
			{Brave, "Brave", "BraveSoftware/Brave-Browser/User Data"},
			{Brave, "Brave Beta", "BraveSoftware/Brave-Browser-Beta/User Data"},
			{Brave, "Brave Nightly", "BraveSoftware/Brave-Browser-Nightly/User Data"},
			{Vivaldi, "Vivaldi", "Vivaldi/User Data"},
		}
	default:
		return []profileDir{
			{Chrome, "Google Chrome", "google-chrome"},
			{Chrome, "Google Chrome Beta", "google-chrome-beta"},
			{Chrome, "Google Chrome Dev", "google-chrome-unstable"},
			{Chrome, "Google Chrome Canary", "google-chrome-canary"},
			{Edge, "Microsoft Edge", "microsoft-edge"},
			{Edge, "Microsoft Edge Beta", "microsoft-edge-beta"},
			{Edge, "Microsoft Edge Dev", "microsoft-edge-dev"},
			{Chromium, "Chromium", "chromium"},
			{Brave, "Brave", "BraveSoftware/Brave-Browser"},
			{Brave, "Brave Beta", "BraveSoftware/Brave-Browser-Beta"},
			{Brave, "Brave Nightly", "BraveSoftware/Brave-Browser-Nightly"},
			{Vivaldi, "Vivaldi", "vivaldi"},
		}
	}
}

// Profiles lists the default user data folders of the browsers on d's OS,
// stable channels first, whether or not they exist. Without a home folder
// the list is empty.
func (d *Detector) Profiles() []Profile {
	home := d.Getenv("HOME")
	if d.GOOS == "windows" {
		home = d.Getenv("USERPROFILE")
	}
	return ProfilesOf(osdirs.Env{GOOS: d.GOOS, Home: home, Getenv: d.Getenv})
}

// ProfilesOf lists the default user data folders of the browsers on env's
// OS, stable channels first: the one list of where each browser keeps its
// profiles (and looks for this user's native messaging hosts).
func ProfilesOf(env osdirs.Env) []Profile {
	base, err := env.BrowserData()
	if err != nil {
		return nil
	}
	dirs := profileDirs(env.GOOS)
	out := make([]Profile, 0, len(dirs))
	for _, p := range dirs {
		out = append(out, Profile{Type: p.typ, Name: p.name, Dir: env.Join(base, p.dir)})
	}
	return out
}

// StableProfile is the user data folder of t's stable channel on env's OS.
func StableProfile(env osdirs.Env, t Type) (Profile, bool) {
	for _, p := range ProfilesOf(env) {
		if p.Type == t {
			return p, true
		}
	}
	return Profile{}, false
}
