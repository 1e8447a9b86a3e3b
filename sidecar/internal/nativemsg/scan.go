package nativemsg

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// Fields are the top-level members of a message that routing and dispatch
// read. Params, Result and the other raw members are slices of the message
// itself: a CDP event or answer is passed on as the bytes it came as,
// never decoded and encoded again on the way (a 15 MB screenshot is
// scanned once and copied never). The short strings are decoded.
type Fields struct {
	Type      string
	Client    string
	ID        int64
	TabID     int
	SessionID string
	Method    string
	Reason    string
	Code      string
	Message   string
	Params    json.RawMessage
	Result    json.RawMessage
	Error     json.RawMessage // {"message":…} of an answer that failed
	Tab       json.RawMessage
	Tabs      json.RawMessage
	Browser   json.RawMessage
	Messages  json.RawMessage // the members of a batch: an array of messages
	Chunk     json.RawMessage // {"id":…,"last":…} of a chunk
	Data      json.RawMessage // the piece a chunk carries (a JSON string)
	Proof     string          // the coordinator's answer on a channel it accepted
}

// ErrNotMessage is the error of Scan for what is not a protocol message.
var ErrNotMessage = errors.New("not a protocol message")

// Scan reads msg's top-level members into f. It checks the structure of
// the whole message (an object of members whose values are JSON), so that
// what it passes on raw is one JSON value each; it does not check that
// strings are valid UTF-8 (the browser and the coordinator write valid
// JSON; a peer that does not gets a garbled string, never a second message).
func Scan(msg []byte) (Fields, error) {
	var f Fields
	s := scanner{b: msg}
	s.space()
	if !s.at('{') {
		return f, errors.Join(ErrNotMessage, errors.New("not a JSON object"))
	}
	if err := s.object(0, f.set); err != nil {
		return f, s.err(err)
	}
	s.space()
	if s.i != len(msg) {
		return f, s.err(s.fail("the end of the message"))
	}
	if f.Type == "" {
		return f, errors.Join(ErrNotMessage, errors.New(`no "type"`))
	}
	return f, nil
}

// set keeps the value v of the member named key, when Fields has a place
// for it: strings unquoted, numbers parsed, the rest raw.
func (f *Fields) set(key, v []byte) {
	switch string(key) {
	case "type":
		f.Type = text(v)
	case "client":
		f.Client = text(v)
	case "id":
		f.ID, _ = strconv.ParseInt(string(v), 10, 64)
	case "tabId":
		n, _ := strconv.ParseInt(string(v), 10, 32)
		f.TabID = int(n)
	case "sessionId":
		f.SessionID = text(v)
	case "method":
		f.Method = text(v)
	case "reason":
		f.Reason = text(v)
	case "code":
		f.Code = text(v)
	case "message":
		f.Message = text(v)
	case "params":
		f.Params = v
	case "result":
		f.Result = v
	case "error":
		f.Error = v
	case "tab":
		f.Tab = v
	case "tabs":
		f.Tabs = v
	case "browser":
		f.Browser = v
	case "messages":
		f.Messages = v
	case "chunk":
		f.Chunk = v
	case "data":
		f.Data = v
	case "proof":
		f.Proof = text(v)
	}
}

// Each calls fn with every element of a JSON array (a batch's messages),
// each a slice of arr; it stops at fn's first error.
func Each(arr []byte, fn func([]byte) error) error {
	s := scanner{b: arr}
	s.space()
	if !s.at('[') {
		return errors.New("not a JSON array")
	}
	return s.err(s.array(0, fn))
}

// ErrorMessage is the message of an answer's error member.
func ErrorMessage(raw json.RawMessage) string {
	var e ErrorBody
	if json.Unmarshal(raw, &e) != nil || e.Message == "" {
		return "the browser extension failed"
	}
	return e.Message
}

// text decodes a JSON string value; "" for any other value.
func text(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	inner := v[1 : len(v)-1]
	for _, c := range inner {
		if c == '\\' {
			var s string
			_ = json.Unmarshal(v, &s)
			return s
		}
	}
	return string(inner)
}

// maxDepth bounds nesting: a message nested deeper is not ours.
const maxDepth = 1000

type scanner struct {
	b []byte
	i int
	// what the last failure expected, and where: fail keeps them and err
	// words them once, as a hostile frame nested a thousand deep fails at
	// every level on its way out (an error built at each level cost such
	// a frame 5,000 allocations).
	want   string
	wantAt int
}

// errSyntax is what object and array return for a failure fail kept.
var errSyntax = errors.New("nativemsg: syntax")

func (s *scanner) fail(want string) error {
	s.want, s.wantAt = want, s.i
	return errSyntax
}

// err is the error a scan returns for err: the kept failure in words, or
// err itself (an element callback's error).
func (s *scanner) err(err error) error {
	if err != errSyntax {
		return err
	}
	return errors.Join(ErrNotMessage, errors.New("expected "+s.want+" at byte "+strconv.Itoa(s.wantAt)))
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) at(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

func (s *scanner) byte(c byte) bool {
	if s.at(c) {
		s.i++
		return true
	}
	return false
}

// str skips a string and returns its contents (escapes left as they are).
func (s *scanner) str() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\':
			s.i += 2
		case c < 0x20:
			return nil, false
		default:
			s.i++
		}
	}
	return nil, false
}

// value skips one JSON value.
func (s *scanner) value(depth int) bool {
	if s.i >= len(s.b) || depth > maxDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '{':
		return s.object(depth+1, nil) == nil
	case c == '[':
		return s.array(depth+1, nil) == nil
	case c == '-' || c >= '0' && c <= '9':
		start := s.i
		for s.i < len(s.b) && (s.b[s.i] >= '0' && s.b[s.i] <= '9' || s.b[s.i] == '-' || s.b[s.i] == '+' || s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
			s.i++
		}
		return s.i > start
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				return true
			}
		}
		return false
	}
}

// object reads the object s is at, handing each member's name and value
// (a slice of the text) to member, if any; its members' values are at
// depth.
func (s *scanner) object(depth int, member func(key, v []byte)) error {
	s.i++ // {
	s.space()
	if s.byte('}') {
		return nil
	}
	for {
		s.space()
		key, ok := s.str()
		if !ok {
			return s.fail("a member name")
		}
		s.space()
		if !s.byte(':') {
			return s.fail("':'")
		}
		s.space()
		start := s.i
		if !s.value(depth) {
			return s.fail("a value")
		}
		if member != nil {
			member(key, s.b[start:s.i:s.i])
		}
		s.space()
		if s.byte('}') {
			return nil
		}
		if !s.byte(',') {
			return s.fail("',' or '}'")
		}
	}
}

// array reads the array s is at, handing each element (a slice of the
// text) to element, if any, and stopping at its first error; its elements
// are at depth.
func (s *scanner) array(depth int, element func(v []byte) error) error {
	s.i++ // [
	s.space()
	if s.byte(']') {
		return nil
	}
	for {
		s.space()
		start := s.i
		if !s.value(depth) {
			return s.fail("an element")
		}
		if element != nil {
			if err := element(s.b[start:s.i:s.i]); err != nil {
				return err
			}
		}
		s.space()
		if s.byte(']') {
			return nil
		}
		if !s.byte(',') {
			return s.fail("',' or ']'")
		}
	}
}

// AppendString appends s as a JSON string: '"', '\' and control characters
// escaped, invalid UTF-8 as U+FFFD (a browser's JSON parser refuses it), the
// rest as it is.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, []byte(s))
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// appendEscaped appends b's bytes as the inside of a JSON string.
func appendEscaped(dst, b []byte) []byte {
	start := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(b[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(dst, b[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, b[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	return append(dst, b[start:]...)
}
