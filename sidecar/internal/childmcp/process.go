package childmcp

import (
	"os/exec"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/procgroup"
)

// process is the child MCP's process tree: the command, in a process group
// of its own that dies with the coordinator (package procgroup), so that an
// `npx` tree, a shell wrapper and whatever they started all end together.
type process struct {
	pid    int
	group  *procgroup.Group
	exited chan struct{} // closed once the leader has been reaped
	err    error         // the leader's exit; set before exited closes
}

// spawn starts cmd in a group of its own. One goroutine starts and reaps the
// process (Wait is always called), locked to its thread for the child's life
// (procgroup.LockThread).
func spawn(cmd *exec.Cmd) (*process, error) {
	p := &process{exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		procgroup.LockThread()
		g, err := procgroup.Start(cmd)
		if err != nil {
			started <- err
			return
		}
		p.pid, p.group = cmd.Process.Pid, g
		started <- nil
		p.err = cmd.Wait()
		close(p.exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// kill ends the whole tree: the leader and everything it started.
func (p *process) kill() { p.group.Kill() }
