package state

import (
	"os"
	"path/filepath"
)

// The per-user base folder of each OS. They are plain functions of the
// environment, so every OS's rule is tested on any host; userBase (build
// tagged) picks this OS's.

// xdgBase is the rule on Linux and the other Unix systems: the runtime
// folder when the session has one (created by the login manager, mode 0700),
// else the state folder of the XDG spec (~/.local/state). XDG_RUNTIME_DIR is
// unset for root, in containers and over SSH, hence the fallback; never the
// shared /tmp, where another user could create the folder first.
func xdgBase(getenv func(string) string, home func() (string, error)) string {
	if d := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return d
	}
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d
	}
	if h, err := home(); err == nil && h != "" {
		return filepath.Join(h, ".local", "state")
	}
	// No home at all: still per user, and userfile.CheckDir refuses it
	// when another user made (or can swap) a folder on its way.
	return filepath.Join(os.TempDir(), "uid-"+uidString())
}

// darwinBase: macOS gives every user a private $TMPDIR (/var/folders/…, mode 0700).
func darwinBase(getenv func(string) string, home func() (string, error)) string {
	if d := getenv("TMPDIR"); filepath.IsAbs(d) {
		return d
	}
	if h, err := home(); err == nil && h != "" {
		return filepath.Join(h, "Library", "Caches")
	}
	return os.TempDir()
}

// windowsBase: %LOCALAPPDATA%, in the user's profile.
func windowsBase(getenv func(string) string, home func() (string, error)) string {
	if d := getenv("LOCALAPPDATA"); d != "" {
		return d
	}
	if h, err := home(); err == nil && h != "" {
		return filepath.Join(h, "AppData", "Local")
	}
	return os.TempDir()
}
