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

// WaitGroupExit waits until every process of process group pgid has exited:
// a browser's helpers outlive its main process by a little, and may still
// write into its profile meanwhile.
func WaitGroupExit(t testing.TB, pgid int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		left := 0
		for _, p := range processes() {
			if p.pgrp == pgid && !p.reapIfZombie() {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes of group %d still running after %v", left, pgid, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
