package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

var bom = []byte{0xEF, 0xBB, 0xBF}

// neutralize returns a copy of a JSONC document in which comments and
// trailing commas are replaced by spaces (newlines kept), so it is plain
// JSON with every byte at the same offset as in the original: positions
// found in it are positions in the original.
func neutralize(doc []byte) []byte {
	out, _ := scanJSONC(doc)
	return out
}

// scanJSONC is neutralize that also returns the offsets of the trailing
// commas it blanked (a comma inside a comment is not one of them).
func scanJSONC(doc []byte) (neutral []byte, trailingCommas []int) {
	out := bytes.Clone(doc)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	inString := false
	lastComma := -1 // a comma after a value, not yet followed by anything but space and comments
	afterValue := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString, afterValue = false, true
			}
		case c == '"':
			inString, lastComma = true, -1
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			end := bytes.IndexByte(out[i:], '\n')
			if end < 0 {
				end = len(out) - i
			}
			blank(i, i+end)
			i += end - 1
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				blank(i, len(out)) // unterminated: the JSON check reports it
				i = len(out)
				break
			}
			blank(i, i+2+end+2)
			i += 2 + end + 1
		case c == ',':
			if afterValue {
				lastComma = i
			}
			afterValue = false
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
				trailingCommas = append(trailingCommas, lastComma)
			}
			lastComma, afterValue = -1, true
		case c == '{' || c == '[' || c == ':':
			lastComma, afterValue = -1, false
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default: // a literal: number, true, false, null
			lastComma, afterValue = -1, true
		}
	}
	return out, trailingCommas
}

// SyntaxError says where a document is not valid JSON(C).
type SyntaxError struct {
	Line, Column int
	Err          error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// syntaxError describes where neutralized JSON is invalid, as line:column.
func syntaxError(neutral []byte) error {
	var v any
	err := json.Unmarshal(neutral, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(neutral, int(se.Offset))
		return &SyntaxError{Line: line, Column: col, Err: se}
	}
	return err
}

func lineCol(doc []byte, offset int) (int, int) {
	offset = min(max(offset, 1), len(doc))
	before := doc[:offset-1]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := offset - bytes.LastIndexByte(before, '\n') - 1
	return line, col
}
