// Package rpccheck looks at each JSON-RPC message before the MCP library
// does, on stdio and over HTTP alike, and answers what it would take badly:
// a batch (MCP has none since 2025-06-18), an id that is neither a string nor
// a number, something that is not a JSON object, a message too large. The
// answer says what was wrong; the message never reaches the server, and the
// server keeps running.
package rpccheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/lines"
	"github.com/tidwall/gjson"
)

// JSON-RPC error codes.
const (
	ParseError     = -32700
	InvalidRequest = -32600
)

// Problem is a message refused, with the error answer to send.
type Problem struct {
	Code    int
	Message string
	ID      json.RawMessage // the message's id when it had a usable one, else null
}

func (p *Problem) Error() string { return p.Message }

// Answer is the JSON-RPC error response for p, one line.
func (p *Problem) Answer() []byte {
	id := p.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(p.Message)
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, p.Code, msg))
}

// Check returns nil when msg is one JSON-RPC message the server can take.
func Check(msg []byte) *Problem {
	msg = bytes.TrimSpace(msg)
	if !json.Valid(msg) {
		return &Problem{Code: ParseError, Message: "Parse error: the message is not valid JSON"}
	}
	switch msg[0] {
	case '[':
		return &Problem{Code: InvalidRequest, Message: "Invalid request: JSON-RPC batches are not supported (MCP has none); send one message at a time"}
	case '{':
	default:
		return &Problem{Code: InvalidRequest, Message: "Invalid request: a JSON-RPC message is a JSON object"}
	}
	id := gjson.GetBytes(msg, "id")
	switch {
	case !id.Exists():
	case id.Type == gjson.String || id.Type == gjson.Number:
	default:
		return &Problem{Code: InvalidRequest, Message: fmt.Sprintf("Invalid request: the id must be a string or a number, got %s", shorten(id.Raw, 40))}
	}
	if v := gjson.GetBytes(msg, "jsonrpc"); v.String() != "2.0" {
		p := &Problem{Code: InvalidRequest, Message: `Invalid request: "jsonrpc" must be "2.0"`}
		if id.Exists() {
			p.ID = json.RawMessage(id.Raw)
		}
		return p
	}
	return nil
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Filter reads newline-delimited messages from in, answers the bad ones on
// out (through w, shared with the server so lines never interleave) and
// passes the good ones on in the returned reader. A line longer than max is
// answered without being kept in memory. The returned reader ends when in
// does.
func Filter(in io.Reader, w io.Writer, max int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := lines.Read(br, max)
			line = bytes.TrimRight(line, "\r\n")
			if len(bytes.TrimSpace(line)) > 0 || tooLong {
				var p *Problem
				if tooLong {
					p = &Problem{Code: InvalidRequest, Message: fmt.Sprintf("Invalid request: the message is larger than %d MiB", max>>20)}
				} else {
					p = Check(line)
				}
				if p != nil {
					_, _ = w.Write(append(p.Answer(), '\n'))
				} else if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return // the server stopped reading
				}
			}
			if err != nil {
				pw.CloseWithError(err) // io.EOF ends the server's input cleanly
				return
			}
		}
	}()
	return pr
}

// LockedWriter serializes writes: the server's answers and Filter's go to
// one stream, each in one Write.
type LockedWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (l *LockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(p)
}
