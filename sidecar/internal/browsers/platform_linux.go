//go:build linux

package browsers

import "context"

// systemExists is the real executable check: a regular file with an execute bit.
func systemExists(p string) bool { return isExecutableFile(p) }

// systemVersion runs "<path> --version"; every Linux browser package answers
// it without opening a window.
func systemVersion(ctx context.Context, b Browser) (string, error) {
	return versionFromCommand(ctx, b.Path)
}
