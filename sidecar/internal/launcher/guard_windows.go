package launcher

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"golang.org/x/sys/windows"
)

// On Windows the browser runs in a Job object with kill-on-close: the
// coordinator holds the only handle, so when it exits (or is killed) the
// kernel closes the handle and terminates every process in the job.

func lockThread() {}

func needsNoSandbox() bool { return false }

type jobGuard struct{ job *proc.Job }

func (g jobGuard) kill(*os.Process) { g.job.Terminate() }
func (g jobGuard) release()         { g.job.Close() }

func startGuarded(cmd *exec.Cmd) (guard, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	job, err := proc.StartInJob(cmd)
	return jobGuard{job: job}, err
}
