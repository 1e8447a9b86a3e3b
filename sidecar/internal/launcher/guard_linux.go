package launcher

import (
	"os/exec"
	"runtime"
	"syscall"
)

// lockThread pins the goroutine that spawns and reaps the browser to its OS
// thread, and never unlocks it. Linux delivers Pdeathsig when the *thread*
// that forked the child exits, not the process: had the spawn happened on a
// thread the runtime might later retire, the browser would be killed while
// the coordinator still runs. A locked goroutine owns its thread alone, and
// the thread ends only when this goroutine returns — after the browser has
// been reaped. When the coordinator dies, every thread dies and the kernel
// kills the browser.
func lockThread() { runtime.LockOSThread() }

func startGuarded(cmd *exec.Cmd) (guard, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // own group: one kill ends the tree; terminal ^C does not reach it
		Pdeathsig: syscall.SIGKILL, // dies with the coordinator (see lockThread)
	}
	return groupGuard{}, cmd.Start()
}
