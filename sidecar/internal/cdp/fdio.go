package cdp

import (
	"errors"
	"io"
	"net"
	"time"
)

// errWouldBlock: tryWrite wrote nothing, as the descriptor takes nothing
// now (or cannot be written without waiting at all).
var errWouldBlock = errors.New("the write would block")

// maxIov bounds the parts of one write.
const maxIov = 6

// plainFDIO reads and writes through a connection's own methods.
type plainFDIO struct{ rw io.ReadWriter }

func (f plainFDIO) Read(p []byte) (int, error) { return f.rw.Read(p) }

func (f plainFDIO) writeAll(bufs ...[]byte) error {
	b := net.Buffers(append([][]byte(nil), bufs...))
	_, err := b.WriteTo(f.rw)
	return err
}

// advance drops the first n bytes of parts.
func advance(parts [][]byte, n int) [][]byte {
	for len(parts) > 0 && n >= len(parts[0]) {
		n -= len(parts[0])
		parts = parts[1:]
	}
	if len(parts) > 0 {
		parts[0] = parts[0][n:]
	}
	return parts
}

// writeSoon writes bufs whole: at once, if the descriptor takes them now
// (no deadline to set, the usual case), else the rest waiting, for
// WriteTimeout at most (more for a big message), set on d and cleared
// after, so that the next try does not meet it.
func writeSoon(f fdio, d interface{ SetWriteDeadline(time.Time) error }, bufs ...[]byte) error {
	total := 0
	for _, b := range bufs {
		total += len(b)
	}
	n, err := f.tryWrite(bufs...)
	if n == total {
		return nil
	}
	if err != nil && !errors.Is(err, errWouldBlock) {
		return err
	}
	var rest [maxIov][]byte
	left := advance(rest[:copy(rest[:], bufs)], n)
	_ = d.SetWriteDeadline(writeDeadline(total - n))
	defer func() { _ = d.SetWriteDeadline(time.Time{}) }()
	return f.writeAll(left...)
}
