package testutil

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// WaitExit waits until pid (any process, not only a child) has exited, by
// polling a pidfd: the kernel wakes us on exit, no sleep loop.
func WaitExit(t testing.TB, pid int, timeout time.Duration) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return
	}
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(timeout.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatalf("poll pidfd: %v", err)
		}
		if n == 0 {
			t.Fatalf("process %d still running after %v", pid, timeout)
		}
		return
	}
}
