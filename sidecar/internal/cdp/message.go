package cdp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

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
type envelope struct {
	id      gjson.Result // the id as written; !Exists for events
	session string
	method  string
	// Where a browser's message has its usual shape (see peekBrowser): the
	// id's end when the id is the first member, the start of the sessionId
	// member when it is the last. 0 when not known.
	idEnd, sessionAt int
}

// peek reads a client's message (any shape: the full read).
func peek(data []byte) envelope {
	r := gjson.GetManyBytes(data, "id", "sessionId", "method")
	return envelope{id: r[0], session: r[1].String(), method: r[2].String()}
}

// peekBrowser reads a browser's message. Chromium writes them in one shape:
// an answer begins {"id":N, an event {"method":"…", the sessionId, if any,
// is the last member, and the object's } is the last byte. Read from those
// ends, a message costs the same whatever its size (a screenshot's answer
// is tens of megabytes); anything else (another endpoint's "…}\n") gets the
// full read.
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
		if end == len(`{"id":`) || end == len(data) || (data[end] != ',' && data[end] != '}') {
			return peek(data)
		}
		raw := string(data[len(`{"id":`):end])
		n, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return peek(data)
		}
		e.id, e.idEnd = gjson.Result{Type: gjson.Number, Raw: raw, Num: n}, end
	case bytes.HasPrefix(data, []byte(`{"method":"`)):
		rest := data[len(`{"method":"`):]
		end := bytes.IndexAny(rest, `"\`)
		if end < 0 || rest[end] != '"' || bytes.Contains(rest, []byte(`"id"`)) {
			return peek(data)
		}
		e.method = string(rest[:end])
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
func lastSession(data []byte) (session string, at int, ok bool) {
	const key = `,"sessionId":"`
	if !bytes.HasSuffix(data, []byte(`"}`)) {
		return "", 0, false
	}
	from := max(0, len(data)-len(key)-128) // a session id is 32 characters
	i := bytes.LastIndex(data[from:], []byte(key))
	if i < 0 {
		return "", 0, false
	}
	at = from + i
	s := data[at+len(key) : len(data)-2]
	if bytes.ContainsAny(s, `"\`) {
		return "", 0, false
	}
	return string(s), at, true
}

// numericID reads an answer's id: the ids we send are integers.
func (e envelope) numericID() (int64, bool) {
	if e.id.Type != gjson.Number {
		return 0, false
	}
	n, err := strconv.ParseInt(e.id.Raw, 10, 64)
	return n, err == nil
}

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
// session if strip: in one copy where the envelope knows the answer's shape.
func answerAs(data []byte, env envelope, id []byte, strip bool) ([]byte, error) {
	if env.idEnd == 0 || (strip && env.sessionAt == 0) || data[len(data)-1] != '}' {
		return rewrite(data, id, strip)
	}
	end := len(data) - 1
	if strip && env.sessionAt != 0 {
		end = env.sessionAt
	}
	out := make([]byte, 0, len(`{"id":`)+len(id)+end-env.idEnd+1)
	out = append(out, `{"id":`...)
	out = append(out, id...)
	out = append(out, data[env.idEnd:end]...)
	return append(out, '}'), nil
}

// eventWithout is a browser's event without its sessionId.
func eventWithout(data []byte, env envelope) ([]byte, error) {
	if env.sessionAt == 0 || data[len(data)-1] != '}' {
		return withoutSession(data)
	}
	out := make([]byte, 0, env.sessionAt+1)
	out = append(out, data[:env.sessionAt]...)
	return append(out, '}'), nil
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
