//go:build !linux && !darwin && !windows

package browsers

import "context"

// On unixes other than Linux and macOS (the BSDs, Solaris) browsers come from
// ports and answer --version like on Linux.

// systemExists is the real executable check: a regular file with an execute bit.
func systemExists(p string) bool { return isExecutableFile(p) }

// systemVersion runs "<path> --version".
func systemVersion(ctx context.Context, b Browser) (string, error) {
	return versionFromCommand(ctx, b.Path)
}
