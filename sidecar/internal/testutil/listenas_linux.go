package testutil

import (
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"
)

// ListenAs listens on a free loopback port with a socket that belongs to
// uid, as if another local user held the port: the kernel gives a socket
// the file-system uid of the thread that creates it, and that can be set
// for one thread alone. It needs root (CI runs as root); elsewhere the test
// is skipped.
func ListenAs(t testing.TB, uid int) net.Listener {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a socket of another user needs root (CI runs as root)")
	}
	runtime.LockOSThread()
	syscall.Setfsuid(uid)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	syscall.Setfsuid(0)
	runtime.UnlockOSThread()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}
