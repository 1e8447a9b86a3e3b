//go:build unix

package launcher

import (
	"os"
	"syscall"
)

// groupGuard kills the browser's process group; the browser is the leader
// (Setpgid), so its pid is the group id.
type groupGuard struct {
	onRelease func()
}

func (g groupGuard) kill(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}

func (g groupGuard) release() {
	if g.onRelease != nil {
		g.onRelease()
	}
}

// needsNoSandbox: Chromium refuses to run as root with its sandbox on.
func needsNoSandbox() bool { return os.Geteuid() == 0 }
