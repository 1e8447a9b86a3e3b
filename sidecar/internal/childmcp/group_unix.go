//go:build unix

package childmcp

import "syscall"

// pgroup is a Unix process group led by the child (Setpgid: its pid is the
// group id).
type pgroup struct{}

func (pgroup) kill(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
func (pgroup) release()     {}
