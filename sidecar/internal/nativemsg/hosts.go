package nativemsg

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/userfile"
)

// HostExt ends the name of a host's announcement file: <pid>.host.
const HostExt = ".host"

// Dir is the folder of the everyday browser inside the per-user state folder:
// hosts put their socket and their announcement there. A subfolder, so the
// state files' readers (which take every *.json) never see them.
func Dir(stateDir string) string { return filepath.Join(stateDir, "everyday") }

// Browser is what the extension says of the browser it runs in.
type Browser struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	UserAgent string `json:"userAgent,omitempty"`
}

// Extension names the extension that connected.
type Extension struct {
	ID      string `json:"id"`
	Version string `json:"version"`
}

// Host is a native host's announcement: where its socket is and which
// browser is behind it.
type Host struct {
	PID       int       `json:"pid"`
	Socket    string    `json:"socket"`
	Protocol  int       `json:"protocol"`
	Version   string    `json:"version"`
	Browser   Browser   `json:"browser"`
	Extension Extension `json:"extension"`
	StartedAt time.Time `json:"startedAt"`
}

// HostPath is where the host of pid announces itself.
func HostPath(dir string, pid int) string {
	return filepath.Join(dir, strconv.Itoa(pid)+HostExt)
}

// SocketPath is where the host of pid listens. Short on purpose: a Unix
// socket path is limited to about 104 bytes.
func SocketPath(dir string, pid int) string {
	return filepath.Join(dir, strconv.Itoa(pid)+".sock")
}

// WriteHost announces h in dir, atomically, readable by this user only and
// never through a link.
func WriteHost(dir string, h Host) error {
	data, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	return userfile.Write(HostPath(dir, h.PID), append(data, '\n'))
}

// IsHostFileName reports whether a directory entry is an announcement (not
// the temp file of an atomic write).
func IsHostFileName(name string) bool {
	return strings.HasSuffix(name, HostExt) && !strings.HasPrefix(name, ".")
}

// LiveHosts reads the announcements in dir: hosts whose process is alive,
// newest first. The files of dead hosts (a browser that crashed) and their
// sockets are removed.
func LiveHosts(dir string) []Host {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var live []Host
	for _, e := range entries {
		if e.IsDir() || !IsHostFileName(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		h, err := readHost(dir, p)
		if err != nil {
			continue // half-removed or foreign; a live host rewrites its own
		}
		if !proc.Alive(h.PID) || !proc.Mine(h.PID) {
			os.Remove(p)
			os.Remove(SocketPath(dir, h.PID))
			continue
		}
		live = append(live, h)
	}
	sort.SliceStable(live, func(i, j int) bool { return live[i].StartedAt.After(live[j].StartedAt) })
	return live
}

// readHost reads an announcement: a private regular file of this user's,
// whose socket is the one its pid's host listens on in dir (a forged file
// must not send a coordinator to another socket).
func readHost(dir, p string) (Host, error) {
	var h Host
	data, err := userfile.Read(p, userfile.Private)
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return h, err
	}
	if h.PID <= 0 || h.Socket == "" {
		return h, errors.New("announcement without pid or socket")
	}
	if filepath.Clean(h.Socket) != SocketPath(dir, h.PID) {
		return h, errors.New("announcement of a socket outside its folder")
	}
	return h, nil
}

// EnsureDir creates dir for this user only (0700) and checks that nobody
// else can write into it (package userfile): a socket in it answers only
// this user.
func EnsureDir(dir string) error {
	if err := userfile.EnsureDir(dir); err != nil {
		return fmt.Errorf("%w (set BROWSER_COORDINATOR_STATE_DIR to a folder of your own)", err)
	}
	// Ours and closed to others' writes; close it to their reads too: the
	// socket's folder says which browsers and folders are in use.
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("close %s to other users: %w", dir, err)
		}
	}
	return nil
}
