// Package procgroup starts a command in a process group of its own that
// dies with this process, however this process dies: on Linux through
// Pdeathsig (set from a locked OS thread), on Windows through a kill-on-close
// Job object, on macOS and other unixes through a watchdog process. The
// launcher runs browsers this way and single-entry mode its child MCP.
package procgroup

import "os/exec"

// Group is a process tree started by Start.
type Group struct {
	pid int
	os  osGroup
}

// Start starts cmd in a group of its own, tied to this process's life. Call
// it, and later cmd.Wait, from one goroutine that called LockThread first
// (see lockThread in procgroup_linux.go). cmd.SysProcAttr is replaced.
func Start(cmd *exec.Cmd) (*Group, error) {
	g, err := start(cmd)
	if err != nil {
		return nil, err
	}
	return &Group{pid: cmd.Process.Pid, os: g}, nil
}

// LockThread pins the calling goroutine to its OS thread for good: call it
// first on the goroutine that starts and reaps the process. On Linux the
// kernel sends Pdeathsig when the *thread* that forked the child exits; a
// locked goroutine owns its thread alone, and the thread ends only when the
// goroutine returns, after the child has been reaped. Elsewhere it does
// nothing.
func LockThread() { lockThread() }

// Kill ends the whole group now.
func (g *Group) Kill() {
	if g != nil {
		g.os.kill(g.pid)
	}
}

// Release drops what the group holds; call it once the leader is reaped.
func (g *Group) Release() {
	if g != nil {
		g.os.release()
	}
}

// osGroup is what differs per OS.
type osGroup interface {
	kill(pid int)
	release()
}
