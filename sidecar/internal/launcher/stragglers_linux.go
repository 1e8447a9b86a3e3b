package launcher

import (
	"bytes"
	"log/slog"
	"os"
	"slices"
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
// None can start once the browser's group is gone: one look at /proc finds
// them all.
func endStragglers(marker string, log *slog.Logger) {
	needle := []byte("\x00--database=" + marker + "\x00")
	var found []int
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
		found = append(found, pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	// They are not our children: nothing says when they are gone but /proc.
	deadline := time.Now().Add(2 * time.Second)
	for {
		found = slices.DeleteFunc(found, func(pid int) bool { return !proc.Alive(pid) })
		if len(found) == 0 {
			return
		}
		if time.Now().After(deadline) {
			log.Warn("processes of a stopped browser are still running", "count", len(found), "marker", marker)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
