package mcpconfig

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/osdirs"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

// Where each host keeps its configuration, for each scope.

// location is the config file and the path of its server map for o's host
// and scope.
func location(o Options) (path string, key []string, err error) {
	switch o.Scope {
	case Project:
		return projectLocation(o)
	case User, Local:
		return userLocation(o)
	}
	return "", nil, fmt.Errorf("install: unknown scope %q: use project, user or local (claude-code)", o.Scope)
}

func projectLocation(o Options) (string, []string, error) {
	if o.Host == ClaudeDesktop {
		return "", nil, remedy.With(errors.New("install: claude-desktop has no project configuration, only the user's claude_desktop_config.json"), remedy.UserScope)
	}
	if o.Workspace == "" {
		return "", nil, errors.New("install: no workspace folder")
	}
	switch o.Host {
	case ClaudeCode:
		return filepath.Join(o.Workspace, ".mcp.json"), []string{"mcpServers"}, nil
	case Cursor:
		return filepath.Join(o.Workspace, ".cursor", "mcp.json"), []string{"mcpServers"}, nil
	case VSCode:
		return filepath.Join(o.Workspace, ".vscode", "mcp.json"), []string{"servers"}, nil
	}
	return "", nil, unknownHost(o.Host)
}

func userLocation(o Options) (string, []string, error) {
	if !slices.Contains(Hosts, o.Host) {
		return "", nil, unknownHost(o.Host)
	}
	if o.Scope == Local && o.Host != ClaudeCode {
		return "", nil, fmt.Errorf("install: only claude-code has a local scope (one user in one folder); %s has project and user", o.Host)
	}
	if o.Scope == Local && o.Workspace == "" && !o.AllWorkspaces {
		return "", nil, errors.New("install: no workspace folder for the local scope")
	}
	env := osdirs.Env{GOOS: o.GOOS, Home: o.Home, Getenv: o.Getenv}
	switch o.Host {
	case ClaudeCode:
		file, err := ClaudeCodeFile(env)
		if o.Scope == Local {
			return file, []string{"projects", o.Workspace, "mcpServers"}, err
		}
		return file, []string{"mcpServers"}, err
	case Cursor:
		dir, err := homeDir(env)
		return filepath.Join(dir, ".cursor", "mcp.json"), []string{"mcpServers"}, err
	case VSCode:
		dir, err := VSCodeUserDir(env, o.VSCodeProduct)
		return env.Join(dir, "mcp.json"), []string{"servers"}, err
	default: // ClaudeDesktop
		dir, err := env.AppData()
		return env.Join(dir, "Claude", "claude_desktop_config.json"), []string{"mcpServers"}, err
	}
}

func unknownHost(h Host) error {
	names := make([]string, len(Hosts))
	for i, x := range Hosts {
		names[i] = string(x)
	}
	return fmt.Errorf("install: unknown host %q: use %s", h, strings.Join(names, ", "))
}

func homeDir(env osdirs.Env) (string, error) {
	if env.Home == "" {
		return "", errors.New("install: no home folder for the user's configuration")
	}
	return env.Home, nil
}

// ClaudeCodeFile is Claude Code's own file, which holds its user and local
// scopes: $CLAUDE_CONFIG_DIR/.claude.json when that is set, else
// ~/.claude.json.
func ClaudeCodeFile(env osdirs.Env) (string, error) {
	if d := env.Var("CLAUDE_CONFIG_DIR"); d != "" {
		return env.Join(d, ".claude.json"), nil
	}
	home, err := homeDir(env)
	return env.Join(home, ".claude.json"), err
}

// VSCodeProducts are the VS Code flavours by the name install takes, with
// their product.json nameShort: the name of their folder in the OS's app
// data folder (VS Code's src/vs/platform/environment/node/userDataPath.ts).
var VSCodeProducts = map[string]string{
	"stable":   "Code",
	"insiders": "Code - Insiders",
	"oss":      "Code - OSS",
	"codium":   "VSCodium",
}

// VSCodeUserDir is the User folder of a VS Code flavour (VSCodeProducts;
// "" is stable), by VS Code's own rules: $VSCODE_PORTABLE/user-data, else
// $VSCODE_APPDATA or the OS's app data folder, then the product's folder.
func VSCodeUserDir(env osdirs.Env, product string) (string, error) {
	name, ok := VSCodeProducts[product]
	if product == "" {
		name, ok = VSCodeProducts["stable"], true
	}
	if !ok {
		return "", fmt.Errorf("install: unknown VS Code flavour %q: use stable, insiders, oss or codium", product)
	}
	if d := env.Var("VSCODE_PORTABLE"); d != "" {
		return env.Join(d, "user-data", "User"), nil
	}
	base := env.Var("VSCODE_APPDATA")
	if base == "" {
		var err error
		if base, err = env.AppData(); err != nil {
			return "", err
		}
	}
	return env.Join(base, name, "User"), nil
}
