package launcher

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is what the browser's pipes hold: a screenshot's answer of tens
// of megabytes crosses in 1 MiB steps instead of the default 64 KiB ones
// (1 MiB is the most an unprivileged process may ask for, pipe-max-size).
const pipeSize = 1 << 20

// enlarge asks the kernel for bigger pipe buffers; where it says no, the
// pipes work as they are.
func enlarge(pipes ...*os.File) {
	for _, p := range pipes {
		if rc, err := p.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
		}
	}
}
