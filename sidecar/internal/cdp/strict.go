package cdp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A client's command is read strictly before anything of it is sent on.
//
// A relay decides about a command from what it reads (a Policy's
// allowlist, the session it names, the id it remaps), and the browser acts
// on what it reads: if the two parsers could read one text differently,
// the browser could run what the relay refused. They can: Go refuses
// control characters inside strings and Chromium takes them, gjson reads
// the first of two equal keys and Chromium the last, encoding/json matches
// keys ignoring case, and on a pipe a NUL ends a message, so
// `{…}\x00{…}` is two commands to Chromium. So a command must be one
// I-JSON text (RFC 7493: UTF-8, no unpaired surrogate, no key twice in an
// object) with only the members Chromium allows; on such a text every
// parser agrees, and whatever is not one is answered with an error and
// never forwarded, not even in part.

// maxDepth bounds how deeply a command nests (Chromium's own parser stops
// sooner); it bounds the scanner's recursion.
const maxDepth = 1000

// Why a client's message was refused without being sent on (see
// ParseCommand): it is not one strict JSON text, or it is one but not a
// command.
var (
	ErrUnparsable = errors.New("not one strict JSON text")
	ErrNotCommand = errors.New("not a CDP command")
)

// ParseCommand reads a client's command strictly: one JSON object with an
// id (a number or a string), a method, maybe a sessionId (a string) and
// params, nothing else; valid UTF-8, control characters escaped, no key
// twice in any object, nothing before or after it but JSON whitespace.
// Whatever it accepts, Chromium, encoding/json and gjson read alike. The
// error wraps ErrUnparsable (with where the text went wrong) or
// ErrNotCommand. The Message's ID and Params are data's own bytes.
func ParseCommand(data []byte) (Message, error) {
	c, err := parseCommand(data)
	if err != nil {
		return Message{}, err
	}
	return Message{ID: json.RawMessage(c.id), Method: string(c.method), SessionID: string(c.session), Params: json.RawMessage(c.params)}, nil
}

// command is a command ParseCommand read, its parts data's own bytes (the
// method and session decoded: a copy only where they had escapes).
type command struct {
	id, method, session, params []byte
	hasSession                  bool
}

func parseCommand(data []byte) (command, error) {
	var c command
	s := scanner{data: data}
	s.space()
	if s.i == len(data) || data[s.i] != '{' {
		if _, err := s.value(); err != nil {
			return c, err
		}
		return c, fmt.Errorf("%w: it is not a JSON object", ErrNotCommand)
	}
	err := s.object(true, &c) // object refuses a key seen before
	if err == nil {
		s.space()
		if s.i != len(data) {
			err = s.fail("more follows the command (one message is one JSON object)")
		}
	}
	if err != nil {
		return command{}, err
	}
	switch {
	case len(c.id) == 0:
		return command{}, fmt.Errorf("%w: it has no id", ErrNotCommand)
	case len(c.method) == 0:
		return command{}, fmt.Errorf("%w: it has no method", ErrNotCommand)
	}
	return c, nil
}

// set fills in one member of a command.
func (c *command) set(key, raw []byte) error {
	str := func() ([]byte, error) {
		if raw[0] != '"' {
			return nil, fmt.Errorf("%w: its %s is not a string", ErrNotCommand, key)
		}
		s := scanner{data: raw} // read already: it decodes
		return s.str(true)
	}
	var err error
	switch string(key) {
	case "id":
		if raw[0] != '"' && raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			return fmt.Errorf("%w: its id is not a number or a string", ErrNotCommand)
		}
		c.id = raw
	case "method":
		c.method, err = str()
	case "sessionId":
		c.session, err = str()
		c.hasSession = true
	case "params":
		c.params = raw
	default:
		err = fmt.Errorf("%w: it has a member %q (a command has only id, method, sessionId and params)", ErrNotCommand, key)
	}
	return err
}

// scanner checks one JSON text byte by byte.
type scanner struct {
	data  []byte
	i     int
	depth int
}

func (s *scanner) fail(what string) error {
	return fmt.Errorf("%w: %s (at byte %d)", ErrUnparsable, what, s.i)
}

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads one JSON value and returns its bytes.
func (s *scanner) value() ([]byte, error) {
	s.space()
	start := s.i
	if s.i == len(s.data) {
		return nil, s.fail("the text ends where a value should be")
	}
	var err error
	switch c := s.data[s.i]; {
	case c == '{':
		err = s.object(false, nil)
	case c == '[':
		err = s.array()
	case c == '"':
		_, err = s.str(false)
	case c == '-' || (c >= '0' && c <= '9'):
		err = s.number()
	case c == 't':
		err = s.word("true")
	case c == 'f':
		err = s.word("false")
	case c == 'n':
		err = s.word("null")
	default:
		err = s.fail(fmt.Sprintf("unexpected %s", quoteByte(c)))
	}
	return s.data[start:s.i], err
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// open enters the object or array whose opening byte s is at; empty: it
// ended at once (its end was read), as next says for the last member.
func (s *scanner) open(end byte) (empty bool, err error) {
	if s.depth++; s.depth > maxDepth {
		return false, s.fail(fmt.Sprintf("nested deeper than %d", maxDepth))
	}
	s.i++ // { or [
	s.space()
	if s.i < len(s.data) && s.data[s.i] == end {
		s.i++
		s.depth--
		return true, nil
	}
	return false, nil
}

// object reads an object, refusing a key it has seen in it already; a
// command's (top) members are set in cmd.
func (s *scanner) object(top bool, cmd *command) error {
	if empty, err := s.open('}'); empty || err != nil {
		return err
	}
	var keys keySet
	for {
		s.space()
		if s.i == len(s.data) || s.data[s.i] != '"' {
			return s.fail("a key (a string) was expected")
		}
		at := s.i
		key, err := s.str(true)
		if err != nil {
			return err
		}
		if !keys.add(key) {
			s.i = at
			return s.fail(fmt.Sprintf("the key %q appears twice in one object", key))
		}
		s.space()
		if s.i == len(s.data) || s.data[s.i] != ':' {
			return s.fail("':' was expected after a key")
		}
		s.i++
		raw, err := s.value()
		if err == nil && top {
			err = cmd.set(key, raw)
		}
		if err != nil {
			return err
		}
		if done, err := s.next('}'); done || err != nil {
			return err
		}
	}
}

func (s *scanner) array() error {
	if empty, err := s.open(']'); empty || err != nil {
		return err
	}
	for {
		if _, err := s.value(); err != nil {
			return err
		}
		if done, err := s.next(']'); done || err != nil {
			return err
		}
	}
}

// next reads what follows a member or an element: a comma, or end.
func (s *scanner) next(end byte) (done bool, err error) {
	s.space()
	switch {
	case s.i < len(s.data) && s.data[s.i] == ',':
		s.i++
		return false, nil
	case s.i < len(s.data) && s.data[s.i] == end:
		s.i++
		s.depth--
		return true, nil
	}
	return false, s.fail(fmt.Sprintf("',' or '%c' was expected", end))
}

func (s *scanner) word(w string) error {
	if !bytes.HasPrefix(s.data[s.i:], []byte(w)) {
		return s.fail("unexpected word (JSON has true, false and null)")
	}
	s.i += len(w)
	return nil
}

func (s *scanner) number() error {
	start := s.i
	digits := func() int {
		n := 0
		for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.data[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.data) && s.data[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return s.fail("a number has digits")
	}
	if s.i < len(s.data) && s.data[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return s.fail("digits must follow a decimal point")
		}
	}
	if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		s.i++
		if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return s.fail("digits must follow an exponent")
		}
	}
	if s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		s.i = start
		return s.fail("a number does not start with 0 unless it is 0")
	}
	return nil
}

// str reads a string; with decode it returns its text (a key's, to
// compare): data's own bytes where it has no escape, else a copy.
func (s *scanner) str(decode bool) ([]byte, error) {
	s.i++ // "
	var out []byte
	from := s.i
	for s.i < len(s.data) {
		c := s.data[s.i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			s.i++ // the common case, first
			continue
		}
		switch {
		case c == '"':
			var text []byte
			switch {
			case !decode:
			case out == nil: // no escape: the text as written
				text = s.data[from:s.i:s.i]
			default:
				text = append(out, s.data[from:s.i]...)
			}
			s.i++
			return text, nil
		case c < 0x20:
			return nil, s.fail(fmt.Sprintf("a control character (%s) inside a string must be escaped", quoteByte(c)))
		case c == '\\':
			if decode {
				out = append(out, s.data[from:s.i]...)
			}
			r, err := s.escape()
			if err != nil {
				return nil, err
			}
			if decode {
				out = utf8.AppendRune(out, r)
			}
			from = s.i
		default:
			r, n := utf8.DecodeRune(s.data[s.i:])
			if r == utf8.RuneError && n == 1 {
				return nil, s.fail("the text is not valid UTF-8")
			}
			s.i += n
		}
	}
	return nil, s.fail("a string is not closed")
}

// escape reads one escape sequence (a surrogate pair is one).
func (s *scanner) escape() (rune, error) {
	at := s.i
	if s.i+1 >= len(s.data) {
		return 0, s.fail("an escape is cut short")
	}
	c := s.data[s.i+1]
	s.i += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
	default:
		s.i = at
		return 0, s.fail(fmt.Sprintf("unknown escape \\%c", c))
	}
	r, ok := s.hex4()
	switch {
	case !ok:
		s.i = at
		return 0, s.fail("\\u takes four hex digits")
	case utf16.IsSurrogate(r) && r < 0xdc00 && bytes.HasPrefix(s.data[s.i:], []byte(`\u`)):
		s.i += 2
		if lo, ok := s.hex4(); ok && lo >= 0xdc00 && lo <= 0xdfff {
			return utf16.DecodeRune(r, lo), nil
		}
		fallthrough
	case utf16.IsSurrogate(r):
		s.i = at
		return 0, s.fail("a \\u escape names half of a surrogate pair without the other half")
	}
	return r, nil
}

func (s *scanner) hex4() (rune, bool) {
	if s.i+4 > len(s.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s.data[s.i:s.i+4]), 16, 16)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(n), true
}

// keySet is the keys of one object: a few are compared in an array (no
// allocation for a command's usual objects), many go into a map.
type keySet struct {
	few  [16][]byte
	n    int
	many map[string]bool
}

func (k *keySet) add(key []byte) bool {
	if k.many != nil {
		if k.many[string(key)] {
			return false
		}
		k.many[string(key)] = true
		return true
	}
	for _, seen := range k.few[:k.n] {
		if string(seen) == string(key) {
			return false
		}
	}
	if k.n < len(k.few) {
		k.few[k.n] = key
		k.n++
		return true
	}
	k.many = make(map[string]bool, 2*len(k.few))
	for _, seen := range k.few {
		k.many[string(seen)] = true
	}
	k.many[string(key)] = true
	return true
}

// encodeCommand is the command a peer sends for a client: written anew
// from what was read, with the connection's id and the session it goes to.
// Its head is appended to buf; the params follow as they were read (the
// scanner has checked them), then the closing brace.
func encodeCommand(buf []byte, id int64, method, session, params []byte) parts {
	buf = append(buf, `{"id":`...)
	buf = strconv.AppendInt(buf, id, 10)
	buf = append(buf, `,"method":`...)
	buf = appendString(buf, method)
	if len(session) > 0 {
		buf = append(buf, `,"sessionId":`...)
		buf = appendString(buf, session)
	}
	if len(params) == 0 {
		return parts{head: append(buf, '}')}
	}
	buf = append(buf, `,"params":`...)
	return parts{head: buf, body: params, tail: closeBrace}
}

// appendString appends s as a JSON string, escaped as encoding/json
// escapes it.
func appendString(out, s []byte) []byte {
	for _, c := range s {
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(string(s)) // a string always encodes
			return append(out, q...)
		}
	}
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"')
}

// refusal answers a message ParseCommand refused, under the id (and
// session) the client meant, when a lenient read finds them: its call
// then fails at once instead of waiting forever. Chromium answers a text
// it cannot parse without an id; so does this when none can be read.
func refusal(data []byte, why error) []byte {
	env := peek(data)
	id := env.id
	if s := (scanner{data: id}); len(id) == 0 || (id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
		id = nil
	} else if _, err := s.value(); err != nil || s.i != len(id) {
		id = nil
	}
	code := InvalidRequest
	if errors.Is(why, ErrUnparsable) {
		code = ParseError
	}
	msg := "browser-coordinator: refused a message, " + why.Error() + "; nothing of it was sent to the browser. Send each command as one JSON object (UTF-8, control characters escaped, no key twice, nothing after it)"
	return errorAnswer(id, string(env.session), code, msg)
}
