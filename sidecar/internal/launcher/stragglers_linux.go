package launcher

import (
	"bytes"
	"log/slog"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
)

// endStragglers ends the processes of a stopped browser that left its
// process group (Chromium's crash handler daemonizes): those with the
// argument --database=<marker> (the crash handler's database folder, which
// names the profile), and waits, a little, until they are gone. An editor
// or a tail on a file in that folder names it otherwise, and is left alone.
// /proc is read again until none is left: a handler still daemonizing when
// it is first read (its fork not yet there) would otherwise be missed.
func endStragglers(marker string, log *slog.Logger) {
	needle := []byte("\x00--database=" + marker + "\x00")
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := 0
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			// Arguments end with a NUL each; the first has none before it.
			if err != nil || !bytes.Contains(append([]byte{0}, cmdline...), needle) || !proc.Alive(pid) {
				continue
			}
			left++
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			log.Warn("processes of a stopped browser are still running", "count", left, "marker", marker)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
