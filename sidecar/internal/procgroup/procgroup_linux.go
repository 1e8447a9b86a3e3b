package procgroup

import (
	"os/exec"
	"runtime"
	"syscall"
)

func lockThread() { runtime.LockOSThread() }

func start(cmd *exec.Cmd) (osGroup, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // own group: one kill ends the tree; a terminal's ^C does not reach it
		Pdeathsig: syscall.SIGKILL, // dies with us (see LockThread)
	}
	return pgroup{}, cmd.Start()
}
