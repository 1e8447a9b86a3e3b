package browsers

import (
	"errors"
	"fmt"
	"strings"
)

// Type names a browser family. Release channels (Beta, Dev, Canary, Nightly,
// Snapshot) are not types of their own: they are found as their family and
// told apart by [Browser.Name].
type Type string

// The known browser types.
const (
	Chrome           Type = "chrome"
	Edge             Type = "edge"
	Chromium         Type = "chromium"
	Brave            Type = "brave"
	ChromeForTesting Type = "chrome-for-testing"
	Vivaldi          Type = "vivaldi"
)

// Sentinel errors for errors.Is. Returned errors wrap them with a message
// that says what to do.
var (
	// ErrNotFound: no browser, or not the requested type, is installed.
	ErrNotFound = errors.New("no browser found")
	// ErrUnknownType: a browser type name is not one of [Types].
	ErrUnknownType = errors.New("unknown browser type")
	// ErrNotExecutable: an explicit browser path does not name an executable file.
	ErrNotExecutable = errors.New("browser path is not an executable file")
)

// Types lists every known type in default preference order: chrome, edge,
// chromium, brave, chrome-for-testing, vivaldi. The slice is new on each call.
func Types() []Type {
	return []Type{Chrome, Edge, Chromium, Brave, ChromeForTesting, Vivaldi}
}

// typeAliases are the names ParseType accepts besides the type names themselves.
// Kept small on purpose: the executable names people already type.
func typeAliases() map[string]Type {
	return map[string]Type{
		"google-chrome":    Chrome,
		"msedge":           Edge,
		"microsoft-edge":   Edge,
		"chromium-browser": Chromium,
		"brave-browser":    Brave,
		"cft":              ChromeForTesting,
	}
}

// ParseType returns the type named by s, ignoring case and surrounding space.
// Besides the names in [Types] it accepts these aliases: google-chrome
// (chrome), msedge and microsoft-edge (edge), chromium-browser (chromium),
// brave-browser (brave), cft (chrome-for-testing). Channel names such as
// "chrome-beta" are not types. An empty or unknown name returns an error
// wrapping [ErrUnknownType] that lists the valid names.
func ParseType(s string) (Type, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for _, t := range Types() {
		if name == string(t) {
			return t, nil
		}
	}
	if t, ok := typeAliases()[name]; ok {
		return t, nil
	}
	return "", fmt.Errorf("%w %q: use one of %s", ErrUnknownType, s, typeList())
}

func typeList() string {
	names := make([]string, 0, len(Types()))
	for _, t := range Types() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

// rank is t's position in Types(), or len(Types()) for an unknown type.
func rank(t Type) int {
	for i, known := range Types() {
		if t == known {
			return i
		}
	}
	return len(Types())
}

// defaultName is the human name of a type's stable channel.
func defaultName(t Type) string {
	switch t {
	case Chrome:
		return "Google Chrome"
	case Edge:
		return "Microsoft Edge"
	case Brave:
		return "Brave"
	case ChromeForTesting:
		return "Google Chrome for Testing"
	case Vivaldi:
		return "Vivaldi"
	default:
		return "Chromium"
	}
}

// Browser is one installed browser.
type Browser struct {
	Type    Type   `json:"type"`
	Name    string `json:"name"`              // human name, e.g. "Chromium", "Google Chrome Beta"
	Path    string `json:"path"`              // absolute executable path, as found (not symlink-resolved)
	Version string `json:"version,omitempty"` // e.g. "156.0.8078.79"; empty if it could not be read
}
