package childmcp

import (
	"os"

	"golang.org/x/sys/unix"
)

// unread is how many bytes written to pipe f no reader has taken yet. The
// bytes stay in the pipe after its last reader exits, so this tells whether
// a child that died had read what was written last.
func unread(f *os.File) (int, bool) {
	raw, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	n, ok := 0, false
	_ = raw.Control(func(fd uintptr) {
		v, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ) // FIONREAD
		n, ok = v, err == nil
	})
	return n, ok
}
