//go:build darwin

package browsers

import "context"

// systemExists is the real executable check: a regular file with an execute
// bit (the table lists the executable inside each .app bundle).
func systemExists(p string) bool { return isExecutableFile(p) }

// systemVersion reads the bundle's Info.plist instead of running the binary,
// which on macOS may open a window or a first-run dialog.
func systemVersion(_ context.Context, b Browser) (string, error) {
	return versionFromAppBundle(b.Path)
}
