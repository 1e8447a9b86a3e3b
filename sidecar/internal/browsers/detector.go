package browsers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

// Detector holds what detection reads from the system, so tests can fake all
// of it. The zero value is not usable (its methods return an error); use
// [System] for the real machine.
type Detector struct {
	// GOOS selects the path table: "linux", "darwin", "windows"; any other
	// value uses the Linux table. Required.
	GOOS string
	// Getenv reads an environment variable (HOME, LOCALAPPDATA, ...). Required.
	Getenv func(string) string
	// Exists reports whether path is an existing executable file (on Windows:
	// an existing file). Required.
	Exists func(path string) bool
	// LookPath finds an executable on PATH. Required.
	LookPath func(name string) (string, error)
	// Version reads a browser's version. Nil: versions are left empty.
	Version func(ctx context.Context, b Browser) (string, error)
	// EvalSymlinks resolves a found path for de-duplication only; Browser.Path
	// keeps the path as found. Nil: paths are compared as found.
	EvalSymlinks func(path string) (string, error)
	// ReadDir lists the names in a directory; only the Chrome for Testing
	// cache (<cache>/chrome/<platform>-<version>/) is listed. Nil: that
	// location is skipped.
	ReadDir func(dir string) ([]string, error)
}

// System returns a Detector for the real machine: runtime.GOOS, os.Getenv,
// the OS's executable check, exec.LookPath, filepath.EvalSymlinks, os.ReadDir
// and the OS's version reader (see the package doc).
func System() *Detector {
	return &Detector{
		GOOS:         runtime.GOOS,
		Getenv:       os.Getenv,
		Exists:       systemExists,
		LookPath:     exec.LookPath,
		Version:      systemVersion,
		EvalSymlinks: filepath.EvalSymlinks,
		ReadDir:      readDirNames,
	}
}

// Detect returns every browser found, ordered by [Types] preference (within
// a type: stable channel first), one entry per installation: candidates whose
// paths resolve to the same file are reported once, under the first path
// found. Versions are read concurrently, each within 5 s; a version that
// cannot be read is left empty and is not an error. Finding nothing is not an
// error either: the result is empty (Find turns that into ErrNotFound).
func (d *Detector) Detect(ctx context.Context) ([]Browser, error) {
	found, _, err := d.scan(ctx)
	if err != nil {
		return nil, err
	}
	d.readVersions(ctx, found)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("detect browsers: %w", err)
	}
	return found, nil
}

// Find returns the preferred type's first installation, or with preferred ==
// "" the first browser Detect would list. Only the returned browser's version
// is read. Errors wrap ErrUnknownType for a preferred type that is not one of
// [Types], and ErrNotFound when nothing (or nothing of that type) is
// installed; the message says what to install and lists what was detected.
func (d *Detector) Find(ctx context.Context, preferred Type) (Browser, error) {
	if preferred != "" && rank(preferred) == len(Types()) {
		return Browser{}, fmt.Errorf("%w %q: use one of %s", ErrUnknownType, preferred, typeList())
	}
	found, t, err := d.scan(ctx)
	if err != nil {
		return Browser{}, err
	}
	if len(found) == 0 {
		if preferred != "" {
			return Browser{}, remedy.With(fmt.Errorf("%w: %s is not installed and no other browser was detected; install %s",
				ErrNotFound, preferred, defaultName(preferred)), remedy.BrowserPath)
		}
		return Browser{}, notFound(t)
	}
	i := 0
	if preferred != "" {
		i = slices.IndexFunc(found, func(b Browser) bool { return b.Type == preferred })
		if i < 0 {
			return Browser{}, remedy.With(fmt.Errorf("%w: %s is not installed; detected: %s; install %s, or choose a detected browser",
				ErrNotFound, preferred, List(found), defaultName(preferred)), remedy.BrowserPath)
		}
	}
	b := found[i]
	b.Version = d.readVersion(ctx, b)
	if err := ctx.Err(); err != nil {
		return Browser{}, fmt.Errorf("find browser: %w", err)
	}
	return b, nil
}

// Installed returns the installations Detect would, without reading their
// versions: for messages that only name them.
func (d *Detector) Installed(ctx context.Context) ([]Browser, error) {
	found, _, err := d.scan(ctx)
	return found, err
}

// NotFound is the error Find returns when no browser is installed: it wraps
// ErrNotFound and says what to install on this system.
func (d *Detector) NotFound() error {
	if err := d.validate(); err != nil {
		return err
	}
	return notFound(tableFor(d.GOOS, d.Getenv))
}

func notFound(t table) error {
	return remedy.With(fmt.Errorf("%w: install Chrome, Edge, Chromium or Brave %s", ErrNotFound, t.advice), remedy.BrowserPath)
}

// List names bs for a message: "chrome (/usr/bin/google-chrome), chromium
// (/usr/bin/chromium)"; "" for none.
func List(bs []Browser) string {
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = fmt.Sprintf("%s (%s)", b.Type, b.Path)
	}
	return strings.Join(names, ", ")
}

// FromPath describes the browser at an explicit path (--browser-path). On
// macOS the path may also be the .app bundle. A bare name without a separator
// ("chromium") is looked up on PATH, a relative path is made absolute. The
// file must exist and be executable, else the error wraps ErrNotExecutable.
// The type comes from the path table when the path is a known location, else
// from the file or app name, falling back to Chromium. The version is read
// like Detect's; failing to read it is not an error.
func (d *Detector) FromPath(ctx context.Context, p string) (Browser, error) {
	if err := d.validate(); err != nil {
		return Browser{}, err
	}
	t := tableFor(d.GOOS, d.Getenv)
	exe, err := d.explicitExecutable(p, t)
	if err != nil {
		return Browser{}, err
	}
	if !d.Exists(exe) {
		return Browser{}, remedy.WithArg(fmt.Errorf("%w: %s does not exist or is not executable", ErrNotExecutable, exe), remedy.Executable, t.example)
	}
	b := Browser{Path: exe}
	b.Type, b.Name = identify(exe, t)
	b.Version = d.readVersion(ctx, b)
	if err := ctx.Err(); err != nil {
		return Browser{}, fmt.Errorf("read browser at %s: %w", exe, err)
	}
	return b, nil
}

// explicitExecutable turns an explicit browser path into an absolute executable path.
func (d *Detector) explicitExecutable(p string, t table) (string, error) {
	if p == "" {
		return "", remedy.WithArg(fmt.Errorf("%w: the path is empty", ErrNotExecutable), remedy.Executable, t.example)
	}
	if t.appBundles {
		dir := strings.TrimRight(p, "/")
		if app, ok := strings.CutSuffix(pathBase(dir), ".app"); ok && app != "" {
			p = t.join(dir, "Contents", "MacOS", app)
		}
	}
	if t.isAbs(p) {
		return p, nil
	}
	if !strings.ContainsAny(p, `/\`) {
		found, err := d.LookPath(p)
		if err != nil {
			return "", remedy.WithArg(fmt.Errorf("%w: %q is not an absolute path and was not found on PATH (%w)", ErrNotExecutable, p, err), remedy.Executable, t.example)
		}
		return found, nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", remedy.WithArg(fmt.Errorf("%w: make %q absolute: %w", ErrNotExecutable, p, err), remedy.Executable, t.example)
	}
	return abs, nil
}

// identify returns the type and name for an explicit path: the table's entry
// when the path is a known location, else inferred from the name.
func identify(exe string, t table) (Type, string) {
	for _, in := range t.installs {
		for _, p := range in.paths {
			if p == exe || (t.foldCase && strings.EqualFold(p, exe)) {
				return in.typ, in.name
			}
		}
	}
	typ := inferType(exe)
	return typ, defaultName(typ)
}

// inferType guesses the browser type from an executable path. On macOS the
// .app bundle's name is used; a bare "chrome"/"chrome.exe" is told apart by
// its directories (Chrome for Testing's chrome-<platform>, a "chromium"
// directory, Google's "google" directory). Anything else is Chromium.
func inferType(exe string) Type {
	segs := strings.FieldsFunc(strings.ToLower(exe), func(r rune) bool { return r == '/' || r == '\\' })
	if len(segs) == 0 {
		return Chromium
	}
	name := strings.TrimSuffix(segs[len(segs)-1], ".exe")
	dirs := segs[:len(segs)-1]
	for _, s := range segs {
		if app, ok := strings.CutSuffix(s, ".app"); ok {
			name = app
			break
		}
	}
	switch {
	case strings.Contains(name, "for testing"):
		return ChromeForTesting
	case strings.Contains(name, "edge"):
		return Edge
	case strings.Contains(name, "brave"):
		return Brave
	case strings.Contains(name, "vivaldi"):
		return Vivaldi
	case strings.Contains(name, "chromium"):
		return Chromium
	case strings.Contains(name, "chrome") && strings.Contains(name, "google"):
		return Chrome
	case strings.Contains(name, "chrome"):
		for _, dir := range dirs {
			for _, cft := range []string{"chrome-linux64", "chrome-win64", "chrome-win32", "chrome-mac-x64", "chrome-mac-arm64"} {
				if dir == cft {
					return ChromeForTesting
				}
			}
		}
		if slices.ContainsFunc(dirs, func(d string) bool { return strings.Contains(d, "chromium") }) {
			return Chromium
		}
		if slices.Contains(dirs, "google") {
			return Chrome
		}
	}
	return Chromium
}

// scan finds the installations without reading versions.
func (d *Detector) scan(ctx context.Context) ([]Browser, table, error) {
	if err := d.validate(); err != nil {
		return nil, table{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, table{}, fmt.Errorf("detect browsers: %w", err)
	}
	t := tableFor(d.GOOS, d.Getenv)
	seen := make(map[string]string) // dedupe key → path that claimed it
	var found []Browser
	for _, in := range t.installs {
		p, ok := d.locate(in, t)
		if !ok {
			continue
		}
		key := d.dedupeKey(p, t)
		if first, dup := seen[key]; dup {
			slog.DebugContext(ctx, "browsers: skipping duplicate", "name", in.name, "path", p, "same_as", first)
			continue
		}
		seen[key] = p
		found = append(found, Browser{Type: in.typ, Name: in.name, Path: p})
	}
	slices.SortStableFunc(found, func(a, b Browser) int { return cmp.Compare(rank(a.Type), rank(b.Type)) })
	return found, t, nil
}

// locate returns the first existing candidate of one installation.
func (d *Detector) locate(in install, t table) (string, bool) {
	for _, p := range in.paths {
		if d.Exists(p) {
			return p, true
		}
	}
	if in.cache != nil && d.ReadDir != nil {
		if names, err := d.ReadDir(in.cache.root); err == nil {
			for _, p := range in.cache.candidates(names, t.join) {
				if d.Exists(p) {
					return p, true
				}
			}
		}
	}
	for _, name := range in.pathNames {
		if p, err := d.LookPath(name); err == nil && p != "" {
			return p, true
		}
	}
	return "", false
}

// dedupeKey identifies the file behind p: its symlink-resolved path, except
// for snap launchers (every /snap/bin/<app> links to /usr/bin/snap, which
// says nothing about which app it starts).
func (d *Detector) dedupeKey(p string, t table) string {
	key := p
	if d.EvalSymlinks != nil {
		if r, err := d.EvalSymlinks(p); err == nil && pathBase(r) != "snap" {
			key = r
		}
	}
	if t.foldCase {
		key = strings.ToLower(key)
	}
	return key
}

// readVersions fills in the versions of bs concurrently.
func (d *Detector) readVersions(ctx context.Context, bs []Browser) {
	if d.Version == nil {
		return
	}
	var wg sync.WaitGroup
	for i := range bs {
		wg.Go(func() { bs[i].Version = d.readVersion(ctx, bs[i]) })
	}
	wg.Wait()
}

// readVersion reads b's version within versionTimeout; "" if it cannot.
func (d *Detector) readVersion(ctx context.Context, b Browser) string {
	if d.Version == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	v, err := d.Version(ctx, b)
	if err != nil {
		slog.DebugContext(ctx, "browsers: could not read version", "type", b.Type, "path", b.Path, "err", err)
		return ""
	}
	return strings.TrimSpace(v)
}

func (d *Detector) validate() error {
	if d == nil {
		return errors.New("browsers: nil Detector; use browsers.System()")
	}
	var missing []string
	if d.GOOS == "" {
		missing = append(missing, "GOOS")
	}
	if d.Getenv == nil {
		missing = append(missing, "Getenv")
	}
	if d.Exists == nil {
		missing = append(missing, "Exists")
	}
	if d.LookPath == nil {
		missing = append(missing, "LookPath")
	}
	if len(missing) > 0 {
		return fmt.Errorf("browsers: Detector is missing %s; use browsers.System() or set every required field", strings.Join(missing, ", "))
	}
	return nil
}

// pathBase is the last element of a path with either separator.
func pathBase(p string) string {
	return p[strings.LastIndexAny(p, `/\`)+1:]
}
