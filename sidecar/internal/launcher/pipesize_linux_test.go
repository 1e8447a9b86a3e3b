package launcher

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestEnlargedPipesHoldAMebibyte(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	enlarge(r)
	rc, _ := w.SyscallConn()
	var size int
	_ = rc.Control(func(fd uintptr) { size, err = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
	if err != nil || size != pipeSize {
		t.Fatalf("pipe holds %d bytes (%v), want %d", size, err, pipeSize)
	}
	// The deadline still works: enlarge left the pipe non-blocking.
	if err := w.SetWriteDeadline(time.Now().Add(time.Second)); err != nil {
		t.Fatalf("SetWriteDeadline after enlarge: %v", err)
	}
}
