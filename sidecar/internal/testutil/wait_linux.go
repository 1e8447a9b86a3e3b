package testutil

import (
	"fmt"
	"os"
	"strconv"
	"strings"
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

// ListeningTCP lists the TCP ports that processes of group pgid listen on,
// from their open sockets and /proc/net/tcp and tcp6.
func ListeningTCP(t testing.TB, pgid int) []int {
	t.Helper()
	inodes := map[string]bool{}
	for _, p := range processes() {
		if p.pgrp != pgid {
			continue
		}
		dir := fmt.Sprintf("/proc/%d/fd", p.pid)
		fds, _ := os.ReadDir(dir)
		for _, fd := range fds {
			target, err := os.Readlink(dir + "/" + fd.Name())
			if err == nil && strings.HasPrefix(target, "socket:[") {
				inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
			}
		}
	}
	var ports []int
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] {
				continue
			}
			_, hex, _ := strings.Cut(f[1], ":")
			if port, err := strconv.ParseInt(hex, 16, 32); err == nil {
				ports = append(ports, int(port))
			}
		}
	}
	return ports
}

// ProcessesWith lists the live processes whose command line contains needle.
func ProcessesWith(needle string) []string {
	var out []string
	for _, p := range processes() {
		if p.state == "Z" {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
		if err == nil && strings.Contains(string(cmdline), needle) {
			out = append(out, fmt.Sprintf("pid %d: %s", p.pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
		}
	}
	return out
}
