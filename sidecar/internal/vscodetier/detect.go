// Package vscodetier decides whether the coordinator drives VS Code's own
// browser view (Tier 2) or a browser it launches (Tier 1), keeps that
// decision live as VS Code's CDP port comes and goes, and presents VS Code's
// browser view to CDP clients as the only page of a browser.
//
// The chain: inside VS Code (TERM_PROGRAM=vscode or VSCODE_PID) and unless
// --no-vscode, VS Code's CDP port is VSCODE_CDP_PORT, else the port file
// vscode-cdp-port the extension writes (in the per-user state folder, else
// $TMPDIR, where macOS keeps it), else a --remote-debugging-port on an
// ancestor process's command line. The port must answer /json/version.
// VSCODE_CDP_PORT selects Tier 2 on its own, inside VS Code or not: it is
// set on purpose.
//
// Another local user must not be able to point us at a port of theirs: a
// port file is read only when this user owns it and no one else can write
// it, and on Linux the port's listening socket must belong to this user.
package vscodetier

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/userfile"
)

// PortFileName is the file the extension writes VS Code's CDP port to.
const PortFileName = "vscode-cdp-port"

// EnvPort names VS Code's CDP port directly.
const EnvPort = "VSCODE_CDP_PORT"

// Sources: which step of the chain found the port.
const (
	SourceEnv      = EnvPort
	SourcePortFile = "port file"
	SourceParent   = "parent process"
)

// Env is what the chain reads, injectable for tests.
type Env struct {
	Getenv func(string) string
	// PortFiles are where the port file may be, in the order they are tried.
	PortFiles []string
	// ReadFile reads a port file; System's refuses one another user could write.
	ReadFile func(string) ([]byte, error)
	// Ancestors returns the command lines of the ancestor processes,
	// nearest first.
	Ancestors func() ([][]string, error)
	// Probe checks that a port answers /json/version.
	Probe func(ctx context.Context, port int) error
}

// System is the real environment; stateDir is the coordinator's state folder.
func System(stateDir string) Env {
	return Env{
		Getenv:    os.Getenv,
		PortFiles: PortFiles(stateDir, os.TempDir()),
		ReadFile:  func(path string) ([]byte, error) { return userfile.Read(path, userfile.NoOthersWrite) },
		Ancestors: ancestorCommandLines,
		Probe:     probe,
	}
}

// PortFiles lists where the extension may have written the port file: the
// per-user state folder first, then the temp folder (macOS, where $TMPDIR
// is per user, and older extensions).
func PortFiles(stateDir, tmp string) []string {
	files := []string{filepath.Join(stateDir, PortFileName)}
	if t := filepath.Join(tmp, PortFileName); t != files[0] {
		files = append(files, t)
	}
	return files
}

// Detect runs the chain once.
func Detect(ctx context.Context, env Env, noVSCode bool) backend.VSCodeStatus {
	inside := env.Getenv("TERM_PROGRAM") == "vscode" || env.Getenv("VSCODE_PID") != ""
	d := backend.VSCodeStatus{Inside: inside, Tier: 1}
	if noVSCode {
		d.Reason = "VS Code detection is off (as asked at start): the coordinator launches its own browser"
		return d
	}
	var tried []string
	try := func(source, raw string) bool {
		port, err := ParsePort(raw)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", source, err))
			return false
		}
		if err := env.Probe(ctx, port); err != nil {
			tried = append(tried, fmt.Sprintf("%s: port %d %v", source, port, err))
			return false
		}
		d.Tier, d.Port, d.Source = 2, port, source
		d.Reason = fmt.Sprintf("VS Code's CDP port %d (from the %s) answers: the agent drives VS Code's browser view", port, source)
		return true
	}
	if v := env.Getenv(EnvPort); v != "" && try(SourceEnv, v) {
		return d
	}
	if !inside && env.Getenv(EnvPort) == "" {
		d.Reason = "not running inside VS Code: the coordinator launches its own browser"
		return d
	}
	for _, file := range env.PortFiles {
		data, err := env.ReadFile(file)
		switch {
		case err == nil:
			if try(SourcePortFile, string(data)) {
				return d
			}
		case errors.Is(err, fs.ErrNotExist):
			tried = append(tried, fmt.Sprintf("%s: %s does not exist", SourcePortFile, file))
		default:
			tried = append(tried, fmt.Sprintf("%s: %v", SourcePortFile, err))
		}
	}
	if env.Ancestors != nil {
		lines, _ := env.Ancestors()
		if port, ok := RemoteDebuggingPort(lines); ok {
			if try(SourceParent, strconv.Itoa(port)) {
				return d
			}
		} else {
			tried = append(tried, SourceParent+": no --remote-debugging-port with a fixed port")
		}
	}
	d.Reason = "no live VS Code CDP port (" + strings.Join(tried, "; ") +
		"): the coordinator launches its own browser; run \"Browser Coordinator: Enable Native CDP\" in VS Code and restart it to use VS Code's browser view"
	return d
}

// ParsePort reads a port number; a port file may end with a newline, and a
// half-written one is empty.
func ParsePort(raw string) (int, error) {
	s := strings.TrimSpace(raw)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	port, err := strconv.Atoi(s)
	if err != nil || port <= 0 || port > 65535 {
		return 0, fmt.Errorf("%q is not a port", s)
	}
	return port, nil
}

// RemoteDebuggingPort finds --remote-debugging-port=N (or the flag and N as
// two arguments) on the nearest ancestor that has it. Port 0 means "any"
// and says nothing about the real port: it does not count.
func RemoteDebuggingPort(commandLines [][]string) (int, bool) {
	for _, args := range commandLines {
		for i, a := range args {
			var v string
			switch {
			case strings.HasPrefix(a, "--remote-debugging-port="):
				v = strings.TrimPrefix(a, "--remote-debugging-port=")
			case a == "--remote-debugging-port" && i+1 < len(args):
				v = args[i+1]
			default:
				continue
			}
			if port, err := ParsePort(v); err == nil {
				return port, true
			}
		}
	}
	return 0, false
}
