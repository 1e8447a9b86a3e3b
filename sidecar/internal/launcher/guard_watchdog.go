//go:build unix && !linux

package launcher

import (
	"os/exec"
	"syscall"
)

// macOS (and other unixes) have no Pdeathsig: a watchdog process waits on a
// pipe from the coordinator and kills the browser's group when the pipe
// closes without being disarmed (watchdog_unix.go).
func lockThread() {}

func startGuarded(cmd *exec.Cmd) (guard, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return groupGuard{}, err
	}
	// Between Start and the watchdog's start the browser is unguarded; a
	// coordinator killed in that instant leaks it. The window is microseconds.
	w, err := startWatchdog(cmd.Process.Pid)
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return groupGuard{}, err
	}
	return groupGuard{onRelease: w.disarm}, nil
}
