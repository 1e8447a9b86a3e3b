package launcher

import (
	"errors"
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
	if err != nil {
		t.Fatal(err)
	}
	if size != pipeSize {
		// Best effort by design: pipe-max-size or the user's pipe pages
		// may say no, and the pipe works as it is.
		t.Skipf("the kernel gave %d bytes, not %d (see /proc/sys/fs/pipe-max-size)", size, pipeSize)
	}
	// enlarge left the pipe to the runtime's poller: a write that no one
	// reads still gives up at its deadline.
	_ = w.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	if _, err := w.Write(make([]byte, 2*pipeSize)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a write to a full pipe: %v, want the deadline", err)
	}
}
