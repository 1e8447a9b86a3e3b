package state

import (
	"runtime"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/osdirs"
)

// userBase is this OS's per-user base folder (osdirs.Env.StateBase). With no
// home folder at all it is still per user (noHomeBase), and
// userfile.CheckDir refuses it when another user made (or can swap) a
// folder on its way.
func userBase(getenv func(string) string, home func() (string, error)) string {
	h, _ := home()
	if base, err := (osdirs.Env{GOOS: runtime.GOOS, Home: h, Getenv: getenv}).StateBase(); err == nil {
		return base
	}
	return noHomeBase()
}
