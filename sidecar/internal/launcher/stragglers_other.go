//go:build !linux

package launcher

import "log/slog"

// endStragglers: elsewhere the crash handler stays in the browser's tree (a
// Job object on Windows ends it with the browser); nothing to find.
func endStragglers(string, *slog.Logger) {}
