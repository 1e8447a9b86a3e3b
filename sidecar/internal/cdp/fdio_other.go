//go:build !linux

package cdp

import "io"

// fdio reads and writes through the connection's own Read and Write: the
// raw, non-blocking calls of fdio_linux.go are Linux's alone, and without
// them no write is tried without waiting (tryWrite says so, and the
// relay's writer goroutine writes instead).
type fdio struct{ plainFDIO }

func newFDIO(c io.ReadWriter) fdio { return fdio{plainFDIO{c}} }

func (fdio) tryWrite(...[]byte) (int, error) { return 0, errWouldBlock }
