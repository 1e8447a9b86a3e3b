//go:build !linux

package testutil

import (
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
)

// WaitExit waits until pid has exited. Without pidfds it polls.
func WaitExit(t testing.TB, pid int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for proc.Alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running after %v", pid, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
