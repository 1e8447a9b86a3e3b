package cdp

import (
	"errors"
	"io"
	"net"
)

// errWouldBlock: tryWrite wrote nothing, as the descriptor takes nothing
// now (or cannot be written without waiting at all).
var errWouldBlock = errors.New("the write would block")

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
