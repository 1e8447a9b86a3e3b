package procgroup

import (
	"os/exec"
	"syscall"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"golang.org/x/sys/windows"
)

// On Windows the process runs in a Job object with kill-on-close: we hold
// the only handle, so when we exit (or are killed) the kernel closes it and
// terminates every process in the job.

func lockThread() {}

type job struct{ j *proc.Job }

func (g job) kill(int) { g.j.Terminate() }
func (g job) release() { g.j.Close() }

func start(cmd *exec.Cmd) (osGroup, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	j, err := proc.StartInJob(cmd)
	return job{j: j}, err
}
