//go:build unix && !linux

package childmcp

import (
	"os/exec"
	"syscall"
)

// Without Pdeathsig the child outlives a coordinator killed with SIGKILL
// only until it reads EOF on stdin, which every MCP server over stdio treats
// as the end of its session.
func lockThread() {}

func startGroup(cmd *exec.Cmd) (group, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return pgroup{}, cmd.Start()
}
