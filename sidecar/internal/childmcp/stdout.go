package childmcp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/lines"
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

// maxLine bounds one line of the child's stdout: a message as large as a
// screenshot fits; a line that never ends must not take all memory.
const maxLine = 256 << 20

func (f *stdoutFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, tooLong, err := lines.Read(f.r, maxLine)
		f.err = err
		if tooLong {
			f.onGarbage([]byte(fmt.Sprintf("(a line of more than %d MiB, dropped)", maxLine>>20)))
			continue
		}
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
