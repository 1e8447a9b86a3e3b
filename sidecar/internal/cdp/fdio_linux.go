package cdp

import (
	"io"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fdio reads and writes a pollable descriptor (a socket, a pipe) with raw
// system calls, waiting through Go's poller when it would block.
//
// Why not the net and os packages' Read and Write: each of their system
// calls tells the scheduler it may block, and in a process that was idle
// that wakes the runtime's monitor thread (sysmon) — a futex wake and a
// context switch for a message, measured at about two a round trip through
// the proxy. On a descriptor in non-blocking mode a call never blocks, so
// it need not say so: the call is made raw, and a read or write that would
// block waits in the poller like any other.
//
// One goroutine reads at a time, and one writes (the transports' own
// rule): each has its state here, made once, so that a call allocates
// nothing.
type fdio struct {
	rc    syscall.RawConn
	plain plainFDIO // without a descriptor (rc nil): c's own Read and Write
	r, w  *fdOp
}

// fdOp is one direction's call in progress.
type fdOp struct {
	raw   bool // the descriptor is non-blocking: raw calls are safe
	p     []byte
	iov   [maxIov][]byte
	parts [][]byte // what is left to write, in iov
	n     int
	errno syscall.Errno
	wait  bool                  // a write that waits while the descriptor takes nothing
	call  func(fd uintptr) bool // the read's or the write's, bound once
}

// newFDIO wraps c: a *net.TCPConn, an *os.File, anything with a
// SyscallConn, or else any io.ReadWriter (then it reads and writes through
// its own methods, and tryWrite never writes).
func newFDIO(c io.ReadWriter) (f fdio) {
	f.plain = plainFDIO{c}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return f
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return f
	}
	raw := false
	if rc.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		raw = err == nil && flags&unix.O_NONBLOCK != 0
	}) != nil {
		return f
	}
	f.rc = rc
	f.r, f.w = &fdOp{raw: raw}, &fdOp{raw: raw}
	f.r.call, f.w.call = f.r.read, f.w.write
	return f
}

// Read reads into p, waiting until something is there.
func (f fdio) Read(p []byte) (int, error) {
	if f.rc == nil {
		return f.plain.Read(p)
	}
	if len(p) == 0 {
		return 0, nil
	}
	o := f.r
	o.p, o.n, o.errno = p, 0, 0
	werr := f.rc.Read(o.call)
	n, errno := o.n, o.errno
	o.p = nil
	switch {
	case werr != nil:
		return 0, werr
	case errno != 0:
		return 0, errno
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (o *fdOp) read(fd uintptr) bool {
	for {
		r, e := o.sys(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&o.p[0])), uintptr(len(o.p)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		case 0:
			o.n = int(r)
		default:
			o.errno = e
		}
		return true
	}
}

func (o *fdOp) sys(trap, a1, a2, a3 uintptr) (uintptr, syscall.Errno) {
	if o.raw {
		r, _, e := unix.RawSyscall(trap, a1, a2, a3)
		return r, e
	}
	r, _, e := unix.Syscall(trap, a1, a2, a3)
	return r, e
}

// write writes what it can of o.parts, one writev at a time, until all is
// written, or the descriptor takes nothing (then it waits if o.wait).
func (o *fdOp) write(fd uintptr) bool {
	for len(o.parts) > 0 {
		var iov [maxIov]unix.Iovec
		k := 0
		for _, b := range o.parts {
			if len(b) > 0 {
				iov[k].Base = &b[0]
				iov[k].SetLen(len(b))
				k++
			}
		}
		if k == 0 {
			break
		}
		r, e := o.sys(unix.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(k))
		switch e {
		case 0:
			o.n += int(r)
			o.parts = advance(o.parts, int(r))
		case syscall.EINTR:
		case syscall.EAGAIN:
			return !o.wait
		default:
			o.errno = e
			return true
		}
	}
	return true
}

// writeAll writes every byte of bufs (at most maxIov of them), waiting
// while the descriptor takes nothing.
func (f fdio) writeAll(bufs ...[]byte) error {
	if f.rc == nil {
		return f.plain.writeAll(bufs...)
	}
	_, err := f.writev(true, bufs)
	return err
}

// tryWrite writes what the descriptor takes of bufs now, never waiting:
// the count written (errWouldBlock when none).
func (f fdio) tryWrite(bufs ...[]byte) (int, error) {
	if f.rc == nil || !f.w.raw {
		return 0, errWouldBlock
	}
	n, err := f.writev(false, bufs)
	if err == nil && n == 0 {
		return 0, errWouldBlock
	}
	return n, err
}

func (f fdio) writev(wait bool, bufs [][]byte) (int, error) {
	o := f.w
	o.parts = o.iov[:copy(o.iov[:], bufs)]
	o.n, o.errno, o.wait = 0, 0, wait
	werr := f.rc.Write(o.call)
	n, errno := o.n, o.errno
	o.iov, o.parts = [maxIov][]byte{}, nil // hold on to no one's buffer
	switch {
	case werr != nil:
		return n, werr
	case errno != 0:
		return n, errno
	}
	return n, nil
}
