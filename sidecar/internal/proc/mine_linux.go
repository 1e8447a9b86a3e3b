package proc

import (
	"os"
	"strconv"
	"syscall"
)

// mine compares the owner of /proc/<pid> (the process's effective uid).
func mine(pid int) bool {
	st, err := os.Stat("/proc/" + strconv.Itoa(pid))
	if err != nil {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Geteuid()
}
