package childmcp

import (
	"os/exec"
)

// process is the child MCP's process tree: the command, in a process group
// of its own (a Job object on Windows), so that an `npx` tree, a shell
// wrapper and whatever they started all end together.
type process struct {
	pid    int
	group  group
	exited chan struct{} // closed once the leader has been reaped
	err    error         // the leader's exit; set before exited closes
}

// group ends a whole process tree; each OS has its own (group_*.go).
type group interface {
	kill(pid int) // ends every process in the tree now
	release()     // drops what the group holds, once the leader is reaped
}

// spawn starts cmd in a group of its own. One goroutine starts and reaps the
// process (Wait is always called), on a thread of its own where the OS ties
// the child's life to the spawning thread (Linux Pdeathsig).
func spawn(cmd *exec.Cmd) (*process, error) {
	p := &process{exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		lockThread()
		g, err := startGroup(cmd)
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
func (p *process) kill() { p.group.kill(p.pid) }

// done reports whether the leader has exited.
func (p *process) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}
