// Package lines reads newline-ended lines with a bound: a peer (an MCP
// client on stdin, a child MCP on its stdout) that writes a line that never
// ends must not take all memory.
package lines

import (
	"bufio"
	"errors"
)

// Read reads up to and with the next newline. A line longer than max is
// read to its end and dropped: tooLong says so and line is nil. err is the
// reader's (io.EOF at the end; the last line may come with it).
func Read(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}
