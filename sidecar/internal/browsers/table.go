package browsers

import (
	"path"
	"slices"
	"strings"
)

// table is one OS's knowledge of where browsers live.
type table struct {
	// installs in preference order within each type; Detect sorts by type.
	installs []install
	// join joins path elements with this OS's separator.
	join func(elem ...string) string
	// foldCase: the OS's default file system ignores case, so paths that differ
	// only in case are the same file.
	foldCase bool
	// advice is the install hint appended to "install Chrome, Edge, Chromium or
	// Brave" when nothing is found, e.g. "(on Debian/Ubuntu: apt-get install chromium)".
	advice string
	// example is an executable path to show when a path is not one.
	example string
	// isAbs reports whether a path is absolute on this OS.
	isAbs func(string) bool
	// appBundles: an explicit path may name a macOS .app bundle, whose
	// executable is <bundle>/Contents/MacOS/<name>.
	appBundles bool
}

// install is one installation (a browser family in one channel). Detection
// takes the first candidate that exists, in this order: paths, then the
// newest versioned cache entry, then PATH names.
type install struct {
	typ  Type
	name string
	// paths are absolute candidate executables, preferred first.
	paths []string
	// cache, when set, is a directory of <platform>-<version> installs.
	cache *versionedCache
	// pathNames are looked up on PATH.
	pathNames []string
}

// versionedCache describes a Puppeteer-style cache directory:
// <root>/<platform>-<version>/<exe>.
type versionedCache struct {
	root    string
	layouts []cacheLayout
}

// cacheLayout is where the executable sits inside one platform's install dir.
type cacheLayout struct {
	platform string // directory name prefix before "-<version>", e.g. "linux", "mac_arm", "win64"
	exe      string // path relative to the install dir, joined with the OS separator
}

// candidates returns the executables for the version dirs among names,
// newest version first. names that are not <platform>-<version> are ignored.
func (c *versionedCache) candidates(names []string, join func(elem ...string) string) []string {
	type entry struct {
		version string
		exe     string
	}
	var found []entry
	for _, name := range names {
		for _, l := range c.layouts {
			v, ok := strings.CutPrefix(name, l.platform+"-")
			if !ok {
				continue
			}
			if _, ok := parseVersion(v); ok {
				found = append(found, entry{v, join(c.root, name, l.exe)})
			}
		}
	}
	slices.SortStableFunc(found, func(a, b entry) int { return compareVersions(b.version, a.version) })
	exes := make([]string, len(found))
	for i, e := range found {
		exes[i] = e.exe
	}
	return exes
}

// tableFor returns the path table for goos. Unixes other than darwin use the
// Linux table: the /usr/bin and /opt layouts are Linux packages', but the PATH
// names still find BSD ports.
func tableFor(goos string, getenv func(string) string) table {
	switch goos {
	case "darwin":
		return darwinTable(getenv)
	case "windows":
		return windowsTable(getenv)
	default:
		return linuxTable(getenv)
	}
}

// puppeteerCache is where Puppeteer keeps the Chrome for Testing builds it
// downloads: $PUPPETEER_CACHE_DIR, else <home>/.cache/puppeteer, then
// chrome/<platform>-<version>/. `npx @puppeteer/browsers install` without
// --path installs into the current directory instead; that location is
// unknowable here and not searched. Returns nil when home is unknown.
func puppeteerCache(getenv func(string) string, home string, join func(elem ...string) string, layouts ...cacheLayout) *versionedCache {
	root := getenv("PUPPETEER_CACHE_DIR")
	if root == "" {
		if home == "" {
			return nil
		}
		root = join(home, ".cache", "puppeteer")
	}
	return &versionedCache{root: join(root, "chrome"), layouts: layouts}
}

// slashJoin joins with "/" for the Linux and macOS tables.
func slashJoin(elem ...string) string { return path.Join(elem...) }

// slashIsAbs is isAbs for the Linux and macOS tables.
func slashIsAbs(p string) bool { return strings.HasPrefix(p, "/") }

// winIsAbs is isAbs for the Windows table: a drive path (C:\...) or a UNC
// path (\\server\share\...).
func winIsAbs(p string) bool {
	if strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//") {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// winJoin joins with `\` for the Windows table. Unlike filepath.Join it
// behaves the same on every host, which is what lets the Windows table be
// tested on Linux. Empty elements are skipped.
func winJoin(elem ...string) string {
	parts := make([]string, 0, len(elem))
	for i, e := range elem {
		if i > 0 {
			e = strings.TrimLeft(e, `\/`)
		}
		e = strings.TrimRight(e, `\/`)
		if e != "" {
			parts = append(parts, e)
		}
	}
	return strings.Join(parts, `\`)
}
