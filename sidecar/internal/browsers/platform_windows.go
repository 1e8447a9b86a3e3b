//go:build windows

package browsers

import "context"

// systemExists is the real executable check: Windows has no execute bit, so
// an existing regular file will do.
func systemExists(p string) bool { return isRegularFile(p) }

// systemVersion reads the version-named directory next to the executable:
// chrome.exe --version does not print on Windows, it starts a browser.
func systemVersion(_ context.Context, b Browser) (string, error) {
	return versionFromSiblingDirs(b.Path)
}
