//go:build unix

package procgroup

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// WatchdogCommand is the hidden subcommand that runs RunWatchdog. The CLI
// dispatches it before parsing anything else.
const WatchdogCommand = "__watchdog"

// disarmByte, written by the coordinator before it closes the pipe, means
// "the browser is already gone; kill nothing".
const disarmByte = 'd'

// RunWatchdog is the watchdog process's body: args is the browser's process
// group id; stdin is the read end of a pipe whose only writer is the
// coordinator. EOF without the disarm byte means the coordinator died, so the
// group is killed. Signals that would reach a terminal's foreground group are
// ignored: the watchdog must outlive its coordinator to do its job.
func RunWatchdog(args []string, stdin io.Reader) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: browser-coordinator "+WatchdogCommand+" PGID (internal)")
		return 1
	}
	pgid, err := strconv.Atoi(args[0])
	if err != nil || pgid <= 1 {
		fmt.Fprintln(os.Stderr, "watchdog: bad process group", args[0])
		return 1
	}
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	var b [1]byte
	n, _ := stdin.Read(b[:])
	if n == 1 && b[0] == disarmByte {
		return 0
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return 0
}

type watchdog struct {
	w   *os.File
	cmd *exec.Cmd
}

// startWatchdog re-executes this binary as a watchdog over process group pgid.
func startWatchdog(pgid int) (*watchdog, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	r, w, err := os.Pipe() // close-on-exec: no other child inherits the write end
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, WatchdogCommand, strconv.Itoa(pgid))
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	r.Close()
	wd := &watchdog{w: w, cmd: cmd}
	return wd, nil
}

// disarm tells the watchdog the browser is gone, and reaps it.
func (wd *watchdog) disarm() {
	_, _ = wd.w.Write([]byte{disarmByte})
	wd.w.Close()
	_ = wd.cmd.Wait()
}
