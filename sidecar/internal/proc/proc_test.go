//go:build linux

package proc

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("Alive(self) = false")
	}
	if Alive(0) || Alive(-1) {
		t.Fatal("Alive of a non-pid = true")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !Alive(pid) {
		t.Fatal("Alive(running child) = false")
	}
	_ = cmd.Process.Kill()
	// Wait for the exit without reaping it: the child is now a zombie,
	// which must count as dead.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if !zombie(pid) {
		t.Fatal("killed, unreaped child is not a zombie")
	}
	if Alive(pid) {
		t.Fatal("Alive(zombie) = true")
	}
	_ = cmd.Wait()
	if Alive(pid) {
		t.Fatal("Alive(reaped child) = true")
	}
}
