// Package state reads and writes coordinator state files: one JSON file per
// running coordinator in a shared state directory, so that `wrap`, `status`,
// the CLI's control commands and the VS Code extension can find it.
//
// A file is written atomically (temp file + rename, mode 0600) so a reader
// never sees half of it, and removed when its coordinator exits cleanly. A
// file whose pid is dead is stale: readers ignore it and Sweep removes it.
package state

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/atomicfile"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
)

// EnvDir overrides the default state directory.
const EnvDir = "BROWSER_COORDINATOR_STATE_DIR"

// Ext is the extension of state files; temp files never end with it, so a
// watcher filtering on it only ever sees complete files.
const Ext = ".json"

// Backend names, as written in File.Backend.
const (
	BackendTier1  = "tier1"  // a browser the coordinator launched
	BackendTier2  = "tier2"  // VS Code's own CDP port
	BackendAttach = "attach" // an existing endpoint given with --cdp-endpoint
)

// Browser describes the browser behind the proxy, when there is one.
type Browser struct {
	Type     string `json:"type"`
	Path     string `json:"path,omitempty"`
	Version  string `json:"version,omitempty"`
	PID      int    `json:"pid,omitempty"`
	Headless bool   `json:"headless"`
}

// File is the content of one state file. Field names are a contract
// (../shared/DESIGN.md): the extension and scripts read them.
type File struct {
	PID          int       `json:"pid"`
	ProxyPort    int       `json:"proxyPort"`
	CDPEndpoint  string    `json:"cdpEndpoint"`
	WSEndpoint   string    `json:"wsEndpoint"`
	Backend      string    `json:"backend"`
	Browser      *Browser  `json:"browser"`
	State        string    `json:"state"`
	CurrentURL   string    `json:"currentUrl"`
	Workspace    string    `json:"workspace"`
	ControlToken string    `json:"controlToken"`
	StartedAt    time.Time `json:"startedAt"`
	Version      string    `json:"version"`
}

// Entry is a state file found on disk.
type Entry struct {
	Path string
	File File
}

// DefaultDir resolves the state directory: the flag value if set, else
// $BROWSER_COORDINATOR_STATE_DIR, else $TMPDIR/browser-coordinator.
func DefaultDir(flag string) string {
	if flag != "" {
		return flag
	}
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "browser-coordinator")
}

// EnsureDir creates dir (mode 0700) if needed and checks this user can write it.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create state directory %s: %w (pass --state-dir or set %s to a writable folder)", dir, err, EnvDir)
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return fmt.Errorf("state directory %s is not writable: %w (pass --state-dir or set %s to a folder you own)", dir, err, EnvDir)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// NewInstance returns a fresh instance name for this process: its pid and a
// random suffix, so that several coordinators in one process never collide.
func NewInstance() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%d-%s", os.Getpid(), hex.EncodeToString(b[:]))
}

// Path is where instance's state file lives in dir.
func Path(dir, instance string) string {
	return filepath.Join(dir, instance+Ext)
}

// Write stores f at path atomically with mode 0600.
func Write(path string, f *File) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o600)
}

// ErrCorrupt marks a state file that is not valid state JSON.
var ErrCorrupt = errors.New("corrupted state file")

// Read parses one state file.
func Read(path string) (File, error) {
	var f File
	data, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("%w %s: %v", ErrCorrupt, path, err)
	}
	if f.PID <= 0 || f.ProxyPort <= 0 {
		return f, fmt.Errorf("%w %s: missing pid or proxyPort", ErrCorrupt, path)
	}
	return f, nil
}

// Scan is what a directory holds: live coordinators (newest first), stale
// files (dead pid) and files that could not be read.
type Scan struct {
	Live    []Entry
	Stale   []Entry
	Corrupt []error
}

// ScanDir reads every state file in dir. A missing dir is an empty scan.
func ScanDir(dir string) Scan {
	var s Scan
	names, err := os.ReadDir(dir)
	if err != nil {
		return s
	}
	for _, de := range names {
		name := de.Name()
		if de.IsDir() || !IsStateFileName(name) {
			continue
		}
		p := filepath.Join(dir, name)
		f, err := Read(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			// Removed between ReadDir and Read: its coordinator just exited.
		case err != nil:
			s.Corrupt = append(s.Corrupt, err)
		case proc.Alive(f.PID):
			s.Live = append(s.Live, Entry{Path: p, File: f})
		default:
			s.Stale = append(s.Stale, Entry{Path: p, File: f})
		}
	}
	sort.SliceStable(s.Live, func(i, j int) bool { return s.Live[i].File.StartedAt.After(s.Live[j].File.StartedAt) })
	return s
}

// IsStateFileName reports whether a directory entry name is a state file
// (not a temp file of an atomic write, not a hidden file).
func IsStateFileName(name string) bool {
	return strings.HasSuffix(name, Ext) && !strings.HasPrefix(name, ".")
}

// Sweep removes the stale files of s and returns how many it removed.
func (s Scan) Sweep() int {
	n := 0
	for _, e := range s.Stale {
		if os.Remove(e.Path) == nil {
			n++
		}
	}
	return n
}

// Pick chooses the coordinator serving workspace: the newest live one whose
// workspace is the same folder, else (when fallback is true) the newest live one.
func (s Scan) Pick(workspace string, fallback bool) (Entry, bool) {
	for _, e := range s.Live {
		if SameDir(e.File.Workspace, workspace) {
			return e, true
		}
	}
	if fallback && len(s.Live) > 0 {
		return s.Live[0], true
	}
	return Entry{}, false
}

// SameDir compares two folder paths after cleaning and resolving symlinks,
// so /tmp/x and /private/tmp/x (macOS) are one workspace.
func SameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return samePath(canonical(a), canonical(b))
}

func canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p
}
