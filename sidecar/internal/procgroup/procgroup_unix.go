//go:build unix

package procgroup

import "syscall"

// pgroup is a Unix process group led by the started process (Setpgid: its
// pid is the group id).
type pgroup struct{ onRelease func() }

func (g pgroup) kill(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

func (g pgroup) release() {
	if g.onRelease != nil {
		g.onRelease()
	}
}
