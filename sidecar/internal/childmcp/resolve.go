package childmcp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/lazyre"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

// How says how Resolve read the command line given after --mcp.
type How string

const (
	AsDefault How = "default" // nothing given: Playwright MCP through npx
	AsCommand How = "command" // a path, or a command found on PATH: run as it is
	AsPackage How = "package" // an npm package spec: run through npx -y
)

// DefaultCommand is the child of `--mcp` given alone: Playwright MCP, as in
// the product's quick start (`npx -y @playwright/mcp@latest`).
func DefaultCommand() []string {
	return []string{"npx", "-y", "@playwright/mcp@latest"}
}

// ErrFlagFirst is returned when the child's command line starts with a
// flag: the coordinator's own flags were most likely put after --mcp.
var ErrFlagFirst = errors.New("the child MCP's command line starts with a flag")

// Resolve reads the command line given after --mcp, the way the product's
// quick start writes it (`--mcp @playwright/mcp@latest`):
//
//   - nothing: DefaultCommand;
//   - a path, or a name lookPath finds (exec.LookPath: PATH, and PATHEXT on
//     Windows): run as it is, as before;
//   - else, an npm package spec (name, @scope/name, either with @version,
//     @tag or @range): run through `npx -y`, its arguments after it;
//   - anything else is left as it is, and fails when the child starts with
//     the system's "not found", which status shows.
//
// A command line that starts with a flag is an error: everything after --mcp
// belongs to the child, so the coordinator's flags must come before it.
func Resolve(argv []string, lookPath func(string) (string, error)) ([]string, How, error) {
	if len(argv) == 0 {
		return DefaultCommand(), AsDefault, nil
	}
	name := argv[0]
	if strings.HasPrefix(name, "-") {
		return nil, "", remedy.With(fmt.Errorf("%w (%q)", ErrFlagFirst, name), remedy.FlagsBeforeChild)
	}
	if _, err := lookPath(name); err == nil {
		return slices.Clone(argv), AsCommand, nil
	}
	if IsPackageSpec(name) {
		return append([]string{"npx", "-y"}, argv...), AsPackage, nil
	}
	return slices.Clone(argv), AsCommand, nil
}

// npm's rules for new package names (validate-npm-package-name): lower
// case, URL-safe, not starting with a dot or an underscore, at most 214
// characters with the scope; a scope follows the same rules.
var (
	npmName    = lazyre.New(`^(?:@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]*$`)
	npmVersion = lazyre.New(`^[A-Za-z0-9.^~<>=*|+_-]+$`)
)

// IsPackageSpec reports whether s names an npm registry package, with an
// optional version, tag or range: chrome-devtools-mcp,
// @playwright/mcp@0.0.83, @playwright/mcp@latest, some-mcp@^1.2.
// Paths, URLs and git specs are not package specs here.
func IsPackageSpec(s string) bool {
	name, version := s, ""
	if at := strings.LastIndexByte(s, '@'); at > 0 {
		name, version = s[:at], s[at+1:]
		if !npmVersion.MatchString(version) {
			return false
		}
	}
	return len(name) <= 214 && npmName.MatchString(name)
}

// besideCommand is the environment that lets a child given by absolute path
// find the programs installed next to it: its folder goes first on PATH
// when PATH lacks it. `npx` is a script that starts with
// `#!/usr/bin/env node`, and an MCP host started from a desktop (Claude
// Desktop on macOS) has a PATH without Node's folder; `install --host
// claude-desktop` writes npx's absolute path, and its node sits beside it.
func besideCommand(command, path string) []string {
	if !filepath.IsAbs(command) {
		return nil
	}
	dir := filepath.Dir(command)
	if slices.Contains(filepath.SplitList(path), dir) {
		return nil
	}
	if path == "" {
		return []string{"PATH=" + dir}
	}
	return []string{"PATH=" + dir + string(os.PathListSeparator) + path}
}
