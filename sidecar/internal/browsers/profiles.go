package browsers

import "strings"

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

// profileDirs lists, per OS, each channel's user data folder below a base:
// ~/.config (or $XDG_CONFIG_HOME) on Linux and the other unixes,
// ~/Library/Application Support on macOS, %LOCALAPPDATA% on Windows. Stable
// channels come first.
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
// (on Windows: %LOCALAPPDATA%) the list is empty.
func (d *Detector) Profiles() []Profile {
	var base string
	sep := "/"
	switch d.GOOS {
	case "windows":
		base, sep = d.Getenv("LOCALAPPDATA"), `\`
	case "darwin":
		if home := d.Getenv("HOME"); home != "" {
			base = home + "/Library/Application Support"
		}
	default:
		base = d.Getenv("XDG_CONFIG_HOME")
		if base == "" {
			if home := d.Getenv("HOME"); home != "" {
				base = home + "/.config"
			}
		}
	}
	if base == "" {
		return nil
	}
	base = strings.TrimRight(base, `/\`)
	dirs := profileDirs(d.GOOS)
	out := make([]Profile, 0, len(dirs))
	for _, p := range dirs {
		out = append(out, Profile{Type: p.typ, Name: p.name, Dir: base + sep + strings.ReplaceAll(p.dir, "/", sep)})
	}
	return out
}
