package testutil

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

func becomeSubreaper() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// leakedProcesses lists our child processes that are still running, and
// reaps any that have exited (zombies are not leaks, just unreaped).
func leakedProcesses() string {
	self := os.Getpid()
	var out []string
	for _, p := range processes() {
		if p.ppid != self || p.reapIfZombie() {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
		out = append(out, fmt.Sprintf("  pid %d: %s", p.pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return strings.Join(out, "\n")
}

type process struct {
	pid, ppid, pgrp int
	state           string
}

// processes reads every process's state, parent and process group from
// /proc/<pid>/stat.
func processes() []process {
	var out []process
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')') // the command name may hold anything
		if i < 0 || i+2 > len(stat) {
			continue
		}
		fields := strings.Fields(string(stat[i+2:]))
		if len(fields) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		pgrp, _ := strconv.Atoi(fields[2])
		out = append(out, process{pid: pid, ppid: ppid, pgrp: pgrp, state: fields[0]})
	}
	return out
}

// reapIfZombie reaps p if it has exited and is our child (or an orphan
// given to us as the subreaper), and says whether it had exited.
func (p process) reapIfZombie() bool {
	if p.state != "Z" {
		return false
	}
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
	return true
}
