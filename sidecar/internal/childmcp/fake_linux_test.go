package childmcp

import (
	"os"

	"golang.org/x/sys/unix"
)

// awaitInput returns once stdin holds bytes to read, without reading them:
// the kernel wakes it (poll), no sleep.
func awaitInput() {
	fds := []unix.PollFd{{Fd: int32(os.Stdin.Fd()), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != unix.EINTR {
			return
		}
	}
}
