package childmcp

import (
	"os/exec"
	"syscall"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"golang.org/x/sys/windows"
)

// On Windows the child runs in a Job object with kill-on-close: the
// coordinator holds the only handle, so the tree ends when the coordinator
// exits however it exits, and Terminate ends it on request.

func lockThread() {}

type job struct{ j *proc.Job }

func (g job) kill(int) { g.j.Terminate() }
func (g job) release() { g.j.Close() }

func startGroup(cmd *exec.Cmd) (group, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	j, err := proc.StartInJob(cmd)
	return job{j: j}, err
}
