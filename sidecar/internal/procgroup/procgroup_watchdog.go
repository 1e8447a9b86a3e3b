//go:build unix && !linux

package procgroup

import (
	"os/exec"
	"syscall"
)

// Without Pdeathsig, a watchdog process waits on a pipe from us and kills
// the group when the pipe closes without being disarmed (watchdog_unix.go).
func lockThread() {}

func start(cmd *exec.Cmd) (osGroup, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return pgroup{}, err
	}
	// Between Start and the watchdog's start the group is unguarded; a
	// process killed in that instant leaks it. The window is microseconds.
	w, err := startWatchdog(cmd.Process.Pid)
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return pgroup{}, err
	}
	return pgroup{onRelease: w.disarm}, nil
}
