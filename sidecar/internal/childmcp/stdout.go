package childmcp

import (
	"bufio"
	"bytes"
	"io"
)

// stdoutFilter passes the child's stdout on line by line and drops lines that
// cannot be JSON-RPC (a banner, a stray console.log): stdout is the MCP
// stream, and one such line must not end the session. Each dropped line is
// reported, so that a child that only ever prints garbage gets a clear error
// instead of a silent timeout.
type stdoutFilter struct {
	r         *bufio.Reader
	pending   []byte
	err       error
	onGarbage func(line []byte)
}

func newStdoutFilter(r io.Reader, onGarbage func(line []byte)) *stdoutFilter {
	return &stdoutFilter{r: bufio.NewReaderSize(r, 64<<10), onGarbage: onGarbage}
}

func (f *stdoutFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.r.ReadBytes('\n')
		f.err = err
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if t[0] == '{' {
				f.pending = line
			} else {
				f.onGarbage(t)
			}
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}
