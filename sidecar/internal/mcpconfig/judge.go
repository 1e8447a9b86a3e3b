package mcpconfig

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/lazyre"
)

// Entries that run browser-coordinator, found in a config file, and what
// to make of them.

// Status says what an entry that runs browser-coordinator is, compared with
// what install writes there.
type Status string

const (
	// Current: as install writes it there.
	Current Status = "current"
	// Stale: install's kind of entry, but broken or wrong for its file (a
	// binary that is gone, a path of this machine in a file teammates
	// share, the sidecar of another version of the VS Code extension).
	Stale Status = "stale"
	// Custom: runs browser-coordinator in a way of the user's own
	// (another command, flags, another child): left alone.
	Custom Status = "custom"
)

// Found is an entry that runs browser-coordinator.
type Found struct {
	Name   string          `json:"name"`
	Entry  json.RawMessage `json:"entry"`
	Status Status          `json:"status"`
	Why    string          `json:"why,omitempty"` // for Stale
}

var (
	exeRE     = lazyre.New(`(?i)^browser-coordinator(\.exe)?$`)
	npxRE     = lazyre.New(`(?i)^npx(\.cmd)?$`)
	packageRE = lazyre.New(`^browser-coordinator(@.+)?$`)
	cmdRE     = lazyre.New(`(?i)^cmd(\.exe)?$`)
	// The VS Code extension's folder, whose name holds its version:
	// …/browser-coordinator.browser-coordinator-0.1.0-linux-x64/bin/…
	versionRE = lazyre.New(`(?i)[\\/]browser-coordinator\.browser-coordinator-(\d+\.\d+\.\d+[^\\/]*?)(-(linux|darwin|win32|alpine)-(x64|arm64|armhf))?[\\/]`)
)

// decode reads an entry; ok is false for anything that is not a command.
func decode(raw []byte) (server, bool) {
	var e struct {
		Type    string            `json:"type"`
		Command *string           `json:"command"`
		Args    []any             `json:"args"`
		Env     map[string]string `json:"env"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Command == nil {
		return server{}, false
	}
	s := server{Type: e.Type, Command: *e.Command, Env: e.Env}
	for _, a := range e.Args {
		if str, ok := a.(string); ok {
			s.Args = append(s.Args, str)
		}
	}
	return s, true
}

// base is a command's file name, whichever the separator.
func base(command string) string {
	return filepath.Base(strings.ReplaceAll(command, `\`, "/"))
}

// runsCoordinator reports whether an entry runs browser-coordinator:
// directly, or through npx (also `cmd /c npx`). Those are install's to
// update or remove; every other entry is someone else's.
func runsCoordinator(s server) bool {
	if exeRE.MatchString(base(s.Command)) {
		return true
	}
	words := append([]string{s.Command}, s.Args...)
	if cmdRE.MatchString(base(s.Command)) && len(words) > 1 && strings.EqualFold(words[1], "/c") {
		words = words[2:]
	}
	if len(words) == 0 || !npxRE.MatchString(base(words[0])) {
		return false
	}
	end := slices.Index(words, "wrap")
	if end < 0 {
		end = len(words)
	}
	return slices.ContainsFunc(words[1:end], packageRE.MatchString)
}

// extensionVersion is the VS Code extension's version in a path inside its
// folder, or "".
func extensionVersion(file string) string {
	if m := versionRE.FindStringSubmatch(file); m != nil {
		return m[1]
	}
	return ""
}

// sameEntry compares entries as their hosts read them: no args is empty
// args, no type is stdio, no env is an empty env.
func sameEntry(a, b server) bool {
	norm := func(s server) server {
		if s.Type == "" {
			s.Type = "stdio"
		}
		if len(s.Args) == 0 {
			s.Args = nil
		}
		if len(s.Env) == 0 {
			s.Env = nil
		}
		return s
	}
	x, y := norm(a), norm(b)
	return x.Type == y.Type && x.Command == y.Command && slices.Equal(x.Args, y.Args) && fmt.Sprint(x.Env) == fmt.Sprint(y.Env)
}

// judgeEntry says what an entry that runs browser-coordinator is, at scope
// (shared: Project), against wanted (nil: install writes none by that name).
func judgeEntry(scope Scope, actual server, wanted *server, home string, exists func(string) bool) (Status, string) {
	if wanted != nil && sameEntry(actual, *wanted) {
		return Current, ""
	}
	command := actual.Command
	if !filepath.IsAbs(command) && !isWindowsAbs(command) {
		return Custom, ""
	}
	if !exists(command) {
		return Stale, fmt.Sprintf("it runs %s, which does not exist (any more)", command)
	}
	version := extensionVersion(command)
	underHome := home != "" && strings.HasPrefix(command, home+string(filepath.Separator))
	if scope == Project && (version != "" || underHome) {
		also := ""
		if version != "" {
			also = " and extension version " + version
		}
		return Stale, fmt.Sprintf("it runs %s, a path of this machine%s, in a file teammates share: it fails on their machines", command, also)
	}
	if scope != Project && version != "" && wanted != nil && version != extensionVersion(wanted.Command) {
		return Stale, fmt.Sprintf("it runs the sidecar of extension version %s, not of this one", version)
	}
	return Custom, ""
}

func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}
