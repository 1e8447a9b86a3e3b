package cdp

import (
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
	InvalidRequest  = -32600
	MethodNotFound  = -32601
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
}

func peek(data []byte) envelope {
	r := gjson.GetManyBytes(data, "id", "sessionId", "method")
	return envelope{id: r[0], session: r[1].String(), method: r[2].String()}
}

// numericID reads an answer's id: the ids we send are integers.
func (e envelope) numericID() (int64, bool) {
	if e.id.Type != gjson.Number {
		return 0, false
	}
	n, err := strconv.ParseInt(e.id.Raw, 10, 64)
	return n, err == nil
}

// rewrite sets data's id to id (raw JSON) and its session: "" removes it,
// anything else sets it. The rest of the message is copied as it is.
func rewrite(data []byte, id []byte, session string, setSession bool) ([]byte, error) {
	out, err := sjson.SetRawBytes(data, "id", id)
	if err != nil || !setSession {
		return out, err
	}
	if session == "" {
		if gjson.GetBytes(out, "sessionId").Exists() {
			return sjson.DeleteBytes(out, "sessionId")
		}
		return out, nil
	}
	return sjson.SetBytes(out, "sessionId", session)
}

// withoutSession removes an event's sessionId.
func withoutSession(data []byte) ([]byte, error) { return sjson.DeleteBytes(data, "sessionId") }

// errorAnswer is a CDP error answer to a client's id.
func errorAnswer(id []byte, session string, code int, msg string) []byte {
	if len(id) == 0 {
		id = []byte("null")
	}
	text, _ := json.Marshal(msg)
	out := fmt.Sprintf(`{"id":%s,"error":{"code":%d,"message":%s}`, id, code, text)
	if session != "" {
		s, _ := json.Marshal(session)
		out += fmt.Sprintf(`,"sessionId":%s`, s)
	}
	return []byte(out + "}")
}
