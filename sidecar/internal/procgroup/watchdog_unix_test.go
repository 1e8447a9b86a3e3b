//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func TestMain(m *testing.M) {
	// The test binary doubles as the watchdog (the macOS guard, tested here
	// on Linux too).
	if len(os.Args) > 1 && os.Args[1] == WatchdogCommand {
		os.Exit(RunWatchdog(os.Args[2:], os.Stdin))
	}
	os.Exit(testutil.Main(m))
}

func TestWatchdog(t *testing.T) {
	start := func(t *testing.T) (*exec.Cmd, *watchdog) {
		group := exec.Command("sleep", "60")
		group.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := group.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = group.Process.Kill(); _ = group.Wait() })
		wd, err := startWatchdog(group.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		return group, wd
	}
	t.Run("coordinator dies", func(t *testing.T) {
		group, wd := start(t)
		// What the kernel does to the pipe when the coordinator dies.
		wd.w.Close()
		_ = wd.cmd.Wait()
		done := make(chan error, 1)
		go func() { done <- group.Wait() }()
		select {
		case <-done:
		case <-time.After(testutil.Guard):
			t.Fatal("watchdog did not kill the group when its pipe closed")
		}
	})
	t.Run("disarmed", func(t *testing.T) {
		group, wd := start(t)
		wd.disarm()
		if !proc.Alive(group.Process.Pid) {
			t.Fatal("a disarmed watchdog killed the group")
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		if RunWatchdog(nil, strings.NewReader("")) == 0 || RunWatchdog([]string{"1"}, strings.NewReader("")) == 0 {
			t.Fatal("watchdog accepted a missing or dangerous process group")
		}
	})
}
