package cli

import (
	"log"
	"log/slog"
)

// newStdLogger adapts slog for libraries that take a *log.Logger.
func newStdLogger(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelError)
}
