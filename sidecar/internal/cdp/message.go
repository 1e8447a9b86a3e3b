package cdp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Message is one decoded CDP message: a command, an answer or an event. The
// id is kept as it was written (a client's ids are its own business).
type Message struct {
	ID        json.RawMessage `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *Error          `json:"error,omitempty"`
}

// Error is a CDP error, from the browser or of our own.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

func (e *Error) Error() string {
	if e.Data != "" {
		return fmt.Sprintf("CDP error %d: %s (%s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("CDP error %d: %s", e.Code, e.Message)
}

// Error codes Chromium uses.
const (
	ServerError     = -32000 // a command refused
	ParseError      = -32700 // a message that is not JSON (or not strictly)
	InvalidRequest  = -32600
	InvalidParams   = -32602
	SessionNotFound = -32001
)

// ErrClosed is returned by calls on a connection or peer that has closed.
var ErrClosed = errors.New("CDP connection closed")

// Reply answers m with result (any JSON-marshalable value).
func Reply(m *Message, result any) *Message {
	raw, err := json.Marshal(result)
	if err != nil {
		return Fail(m, "%v", err)
	}
	return &Message{ID: m.ID, SessionID: m.SessionID, Result: raw}
}

// Fail answers m with a CDP error.
func Fail(m *Message, format string, a ...any) *Message {
	return &Message{ID: m.ID, SessionID: m.SessionID, Error: &Error{Code: ServerError, Message: fmt.Sprintf(format, a...)}}
}

// envelope is what routing needs of a message, read without decoding it.
// Its slices are data's own (nothing is copied to read a message).
type envelope struct {
	hasID   bool   // an answer (events have no id)
	id      []byte // the id as written, when hasID
	session []byte
	method  []byte
	// Where a browser's message has its usual shape (see peekBrowser): the
	// id's end when the id is the first member, the start of the sessionId
	// member when it is the last. 0 when not known.
	idEnd, sessionAt int
}

// peek reads a client's message (any shape: the full read).
func peek(data []byte) envelope {
	r := gjson.GetManyBytes(data, "id", "sessionId", "method")
	e := envelope{hasID: r[0].Exists()}
	if e.hasID {
		e.id = []byte(r[0].Raw)
	}
	if s := r[1].String(); s != "" {
		e.session = []byte(s)
	}
	if m := r[2].String(); m != "" {
		e.method = []byte(m)
	}
	return e
}

// peekBrowser reads a browser's message. Chromium writes them in one shape:
// an answer begins {"id":N, an event {"method":"…", the sessionId, if any,
// is the last member, and the object's } is the last byte. Read from those
// ends, a message costs the same whatever its size (a screenshot's answer
// is tens of megabytes), and nothing is allocated; anything else (another
// endpoint's "…}\n") gets the full read.
func peekBrowser(data []byte) envelope {
	var e envelope
	if len(data) == 0 || data[len(data)-1] != '}' {
		return peek(data)
	}
	switch {
	case bytes.HasPrefix(data, []byte(`{"id":`)):
		end := len(`{"id":`)
		for end < len(data) && data[end] >= '0' && data[end] <= '9' {
			end++
		}
		if end == len(`{"id":`) || end == len(data) || (data[end] != ',' && data[end] != '}') || end-len(`{"id":`) > 18 {
			return peek(data)
		}
		e.hasID, e.id, e.idEnd = true, data[len(`{"id":`):end], end
	case bytes.HasPrefix(data, []byte(`{"method":"`)):
		rest := data[len(`{"method":"`):]
		end := bytes.IndexAny(rest, `"\`)
		if end < 0 || rest[end] != '"' || bytes.Contains(rest, []byte(`"id"`)) {
			return peek(data)
		}
		e.method = rest[:end]
	default:
		return peek(data)
	}
	if s, at, ok := lastSession(data); ok {
		e.session, e.sessionAt = s, at
	} else if bytes.Contains(data, []byte(`"sessionId"`)) {
		return peek(data) // somewhere else: read it properly
	}
	return e
}

// lastSession finds a message's sessionId when it is its last member: data
// ends with ,"sessionId":"S"}, S free of quotes and backslashes. Then the
// quotes before S are not escaped, so the member is the object's own.
func lastSession(data []byte) (session []byte, at int, ok bool) {
	const key = `,"sessionId":"`
	if !bytes.HasSuffix(data, []byte(`"}`)) {
		return nil, 0, false
	}
	from := max(0, len(data)-len(key)-128) // a session id is 32 characters
	i := bytes.LastIndex(data[from:], []byte(key))
	if i < 0 {
		return nil, 0, false
	}
	at = from + i
	s := data[at+len(key) : len(data)-2]
	if bytes.ContainsAny(s, `"\`) {
		return nil, 0, false
	}
	return s, at, true
}

// numericID reads an answer's id: the ids we send are integers.
func (e envelope) numericID() (int64, bool) {
	id := e.id
	if !e.hasID || len(id) == 0 || len(id) > 18 {
		return 0, false
	}
	neg := id[0] == '-'
	if neg {
		id = id[1:]
	}
	if len(id) == 0 || (id[0] == '0' && len(id) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range id {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// parts is one message in up to three pieces, written as one: a transport
// that can write them so (the pipe, a client's WebSocket) never joins them,
// so that a screenshot's answer is passed on without being copied again.
type parts struct{ head, body, tail []byte }

func (p parts) len() int { return len(p.head) + len(p.body) + len(p.tail) }

// join is the message in one piece, a copy of its own.
func (p parts) join() []byte {
	out := make([]byte, 0, p.len())
	return append(append(append(out, p.head...), p.body...), p.tail...)
}

var closeBrace = []byte{'}'}

// rewrite sets data's id to id (raw JSON), and removes its sessionId if
// strip. The rest of the message is copied as it is.
func rewrite(data []byte, id []byte, strip bool) ([]byte, error) {
	out, err := sjson.SetRawBytes(data, "id", id)
	if err != nil || !strip || !gjson.GetBytes(out, "sessionId").Exists() {
		return out, err
	}
	return sjson.DeleteBytes(out, "sessionId")
}

// answerAs is a browser's answer with the client's id, and without its
// session if strip: where the envelope knows the answer's shape, parts of
// data itself behind head (`{"id":` and the client's id), nothing copied.
func answerAs(data []byte, env envelope, head []byte, strip bool) (parts, error) {
	if env.idEnd == 0 || (strip && env.sessionAt == 0) || data[len(data)-1] != '}' {
		out, err := rewrite(data, head[len(`{"id":`):], strip)
		return parts{body: out}, err
	}
	end := len(data) - 1
	if strip && env.sessionAt != 0 {
		end = env.sessionAt
	}
	return parts{head: head, body: data[env.idEnd:end], tail: closeBrace}, nil
}

// eventWithout is a browser's event without its sessionId.
func eventWithout(data []byte, env envelope) (parts, error) {
	if env.sessionAt == 0 || data[len(data)-1] != '}' {
		out, err := withoutSession(data)
		return parts{body: out}, err
	}
	return parts{body: data[:env.sessionAt], tail: closeBrace}, nil
}

// withoutSession removes an event's sessionId.
func withoutSession(data []byte) ([]byte, error) { return sjson.DeleteBytes(data, "sessionId") }

// errorAnswer is a CDP error answer to a client's id; without one (a text
// whose id cannot be read) it has none, as Chromium's own.
func errorAnswer(id []byte, session string, code int, msg string) []byte {
	text, _ := json.Marshal(msg)
	out := fmt.Sprintf(`{"error":{"code":%d,"message":%s}`, code, text)
	if len(id) > 0 {
		out = fmt.Sprintf(`{"id":%s,"error":{"code":%d,"message":%s}`, id, code, text)
	}
	if session != "" {
		s, _ := json.Marshal(session)
		out += fmt.Sprintf(`,"sessionId":%s`, s)
	}
	return []byte(out + "}")
}
