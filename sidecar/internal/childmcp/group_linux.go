package childmcp

import (
	"os/exec"
	"runtime"
	"syscall"
)

// lockThread pins the goroutine that spawns and reaps the child to its OS
// thread for the child's whole life: Linux sends Pdeathsig when the thread
// that forked the child exits, so a thread the runtime retires must not be
// the one. The thread ends with the goroutine, after the child is reaped;
// when the coordinator dies, the kernel kills the child.
func lockThread() { runtime.LockOSThread() }

func startGroup(cmd *exec.Cmd) (group, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // own group: one kill ends an npx tree; a terminal's ^C does not reach it
		Pdeathsig: syscall.SIGKILL, // dies with the coordinator (see lockThread)
	}
	return pgroup{}, cmd.Start()
}
