// Package osdirs is the one owner of the per-user folders each OS gives
// programs: where desktop (Electron) apps keep their settings, and where
// Chromium-family browsers keep their profiles. Other packages ask it
// instead of reading APPDATA, XDG_CONFIG_HOME or ~/Library themselves.
//
// The rules are plain functions of an Env, so every OS's table is tested on
// any host, and the VS Code extension's copy of the one it needs before a
// sidecar is found (product.ts) is tested against the same cases
// (testdata/cases.json).
//
// An XDG variable that is not an absolute path is invalid and ignored, as
// the XDG Base Directory spec says ("If an implementation encounters a
// relative path in any of these variables it should consider the path
// invalid and ignore it").
package osdirs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Env is what the rules read.
type Env struct {
	GOOS   string // "linux", "darwin", "windows"; other values follow Linux
	Home   string // the user's home folder; "" when unknown
	Getenv func(string) string
}

// System is this machine's Env.
func System() Env {
	home, _ := os.UserHomeDir()
	return Env{GOOS: runtime.GOOS, Home: home, Getenv: os.Getenv}
}

// ErrNoHome: a folder below the home folder was asked for, and there is none.
var ErrNoHome = errors.New("no home folder")

// Join joins elems with the separator of e's OS, so the Windows rules read
// right when tested elsewhere.
func (e Env) Join(elems ...string) string {
	if e.GOOS == "windows" {
		parts := make([]string, 0, len(elems))
		for _, p := range elems {
			if p = strings.TrimRight(strings.ReplaceAll(p, "/", `\`), `\`); p != "" {
				parts = append(parts, p)
			}
		}
		return strings.Join(parts, `\`)
	}
	return filepath.Join(elems...)
}

// Var is the variable's value when it is an absolute path on e's OS, else "".
func (e Env) Var(name string) string {
	if e.Getenv == nil {
		return ""
	}
	v := e.Getenv(name)
	if e.IsAbs(v) {
		return v
	}
	return ""
}

// IsAbs reports whether p is absolute on e's OS.
func (e Env) IsAbs(p string) bool {
	if e.GOOS == "windows" {
		return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
	}
	return strings.HasPrefix(p, "/")
}

func (e Env) home(elems ...string) (string, error) {
	if e.Home == "" {
		return "", ErrNoHome
	}
	return e.Join(append([]string{e.Home}, elems...)...), nil
}

// AppData is where desktop apps keep their user data, Electron's
// app.getPath("appData"): %APPDATA% (the roaming profile) on Windows,
// ~/Library/Application Support on macOS, $XDG_CONFIG_HOME or ~/.config
// elsewhere. VS Code, Cursor and Claude Desktop keep their settings below it.
func (e Env) AppData() (string, error) {
	switch e.GOOS {
	case "windows":
		if d := e.Var("APPDATA"); d != "" {
			return d, nil
		}
		return e.home("AppData", "Roaming")
	case "darwin":
		return e.home("Library", "Application Support")
	default:
		if d := e.Var("XDG_CONFIG_HOME"); d != "" {
			return d, nil
		}
		return e.home(".config")
	}
}

// BrowserData is where Chromium-family browsers keep their per-user
// folders (profiles, native messaging hosts): %LOCALAPPDATA% on Windows,
// elsewhere as AppData.
func (e Env) BrowserData() (string, error) {
	if e.GOOS == "windows" {
		if d := e.Var("LOCALAPPDATA"); d != "" {
			return d, nil
		}
		return e.home("AppData", "Local")
	}
	return e.AppData()
}

// StateBase is a per-user folder for runtime state that no other user can
// create first (never a predictable name in a shared /tmp):
//   - Linux and the other unixes: the session's runtime folder
//     $XDG_RUNTIME_DIR (made by the login manager, mode 0700), else the
//     XDG state folder $XDG_STATE_HOME, else ~/.local/state. The runtime
//     folder is unset for root, in containers and over SSH, hence the rest.
//   - macOS: $TMPDIR, which is per user there (/var/folders/…, mode 0700),
//     else ~/Library/Caches.
//   - Windows: %LOCALAPPDATA%, in the user's profile, else its default.
func (e Env) StateBase() (string, error) {
	switch e.GOOS {
	case "windows":
		return e.BrowserData()
	case "darwin":
		if d := e.Var("TMPDIR"); d != "" {
			return e.Join(d), nil
		}
		return e.home("Library", "Caches")
	default:
		for _, v := range []string{"XDG_RUNTIME_DIR", "XDG_STATE_HOME"} {
			if d := e.Var(v); d != "" {
				return d, nil
			}
		}
		return e.home(".local", "state")
	}
}
