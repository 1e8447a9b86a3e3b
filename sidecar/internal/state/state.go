// Package state reads and writes coordinator state files: one JSON file per
// running coordinator in the user's state folder, so that `wrap`, `status`,
// the CLI's control commands and the VS Code extension can find it.
//
// The folder is per user (DefaultDir) and trusted only when this user owns
// it and no one else can write it (package userfile). A file is written
// atomically (temp file + rename, mode 0600, never through a link) so a
// reader never sees half of it, and removed when its coordinator exits
// cleanly. A file is read only when it is a regular 0600 file of this user;
// one whose pid is dead, or not this user's process, is stale: readers
// ignore it and Sweep removes it.
package state

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/endpoint"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/userfile"
)

// EnvDir overrides the default state directory.
const EnvDir = "BROWSER_COORDINATOR_STATE_DIR"

// Ext is the extension of state files; temp files never end with it, so a
// watcher filtering on it only ever sees complete files.
const Ext = ".json"

// Backend names, as written in File.Backend.
const (
	BackendTier1    = "tier1"    // a browser the coordinator launched
	BackendTier2    = "tier2"    // VS Code's own CDP port
	BackendAttach   = "attach"   // an existing endpoint given with --cdp-endpoint
	BackendEveryday = "everyday" // the user's own browser, through the browser extension
	BackendService  = "service"  // a session on a remote browser service (Browserless), given with --browser-service
)

// Browser describes the browser behind the proxy, when there is one.
type Browser struct {
	Type     string `json:"type"`
	Path     string `json:"path,omitempty"`
	Version  string `json:"version,omitempty"`
	PID      int    `json:"pid,omitempty"`
	Headless bool   `json:"headless"`
}

// Everyday says what is connected of the user's own browser (backend
// everyday).
type Everyday struct {
	// Via is how: "extension" (the Browser Coordinator extension and its
	// native host) or "devtools-port" (the browser's own debugging port,
	// found in its profile's DevToolsActivePort).
	Via              string `json:"via"`
	Connected        bool   `json:"connected"`
	ExtensionID      string `json:"extensionId,omitempty"`
	ExtensionVersion string `json:"extensionVersion,omitempty"`
	HostPID          int    `json:"hostPid,omitempty"` // the native host the browser started
	Tabs             int    `json:"tabs"`              // the tabs the agent can see
	Profile          string `json:"profile,omitempty"` // devtools-port: the profile
	Port             int    `json:"port,omitempty"`    // devtools-port: the browser's debugging port
	Reason           string `json:"reason,omitempty"`  // why it is not connected
}

// File is the content of one state file. Field names are a contract (the
// README's "State files"): the extension and scripts read them.
type File struct {
	PID          int       `json:"pid"`
	ProxyPort    int       `json:"proxyPort"`
	ProxySecret  string    `json:"proxySecret,omitempty"`
	CDPEndpoint  string    `json:"cdpEndpoint"`
	WSEndpoint   string    `json:"wsEndpoint"`
	Backend      string    `json:"backend"`
	Browser      *Browser  `json:"browser"`
	Everyday     *Everyday `json:"everyday,omitempty"`
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

// DirName is the state folder's name inside the per-user base folder.
const DirName = "browser-coordinator"

// DefaultDir resolves the state folder: the flag value if set, else
// $BROWSER_COORDINATOR_STATE_DIR, else a per-user folder no other user can
// create first (see userBase: never a predictable name in a shared /tmp).
func DefaultDir(flag string) string {
	return dirFrom(flag, os.Getenv, homeDir)
}

// homeDir is $HOME, else the home folder the system's user database names
// (a service started without HOME still has one).
func homeDir() (string, error) {
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return h, nil
	}
	u, err := user.Current()
	if err != nil {
		return "", err
	}
	if u.HomeDir == "" {
		return "", errors.New("no home folder")
	}
	return u.HomeDir, nil
}

func dirFrom(flag string, getenv func(string) string, home func() (string, error)) string {
	if flag != "" {
		return flag
	}
	if d := getenv(EnvDir); d != "" {
		return d
	}
	return filepath.Join(userBase(getenv, home), DirName)
}

// EnsureDir creates dir (mode 0700) if needed and checks that it is this
// user's and closed to others.
func EnsureDir(dir string) error {
	if err := userfile.EnsureDir(dir); err != nil {
		return remedy.With(fmt.Errorf("state folder: %w", err), remedy.StateDir)
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return remedy.With(fmt.Errorf("state folder %s is not writable: %w", dir, err), remedy.StateDir)
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

// Write stores f at path atomically with mode 0600, never through a link.
func Write(path string, f *File) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return userfile.Write(path, append(data, '\n'))
}

// ErrCorrupt marks a state file that is not valid state JSON.
var ErrCorrupt = errors.New("corrupted state file")

// Read parses one state file: a regular 0600 file of this user.
func Read(path string) (File, error) {
	var f File
	data, err := userfile.Read(path, userfile.Private)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("%w %s: %v", ErrCorrupt, path, err)
	}
	if f.PID <= 0 || f.ProxyPort <= 0 || f.ProxyPort > 65535 {
		return f, fmt.Errorf("%w %s: missing pid or proxyPort", ErrCorrupt, path)
	}
	if !validSecret(f.ProxySecret) {
		return f, fmt.Errorf("%w %s: proxySecret is not a secret this coordinator writes", ErrCorrupt, path)
	}
	return f, nil
}

// Scan is what a directory holds: live coordinators (newest first), stale
// files (a dead pid, or a process of another user) and files that could not
// be read or were refused.
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
		case proc.Alive(f.PID) && proc.Mine(f.PID):
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

// CDPURL is the coordinator's CDP endpoint, built from the port and the
// secret: http://127.0.0.1:PORT/SECRET. It is never taken from the file's
// cdpEndpoint as written: a forged file must not send a client elsewhere.
func (f File) CDPURL() string { return f.endpoints().HTTP() }

// WSURL is the browser WebSocket of the coordinator's proxy, valid
// across browser restarts, built like CDPURL.
func (f File) WSURL() string { return f.endpoints().WS() }

func (f File) endpoints() endpoint.Proxy {
	return endpoint.Proxy{Port: f.ProxyPort, Secret: f.ProxySecret}
}

// validSecret: empty, or what NewSecret makes (letters and digits): it goes
// into URLs as a path segment.
func validSecret(s string) bool {
	if len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// ControlURL is where the coordinator's control API answers (with its
// controlToken): http://127.0.0.1:PORT.
func (f File) ControlURL() string { return f.endpoints().Base() }
