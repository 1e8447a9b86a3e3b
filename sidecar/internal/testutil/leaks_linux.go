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
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+2:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(self) {
			continue
		}
		if fields[0] == "Z" {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		out = append(out, fmt.Sprintf("  pid %d: %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return strings.Join(out, "\n")
}
