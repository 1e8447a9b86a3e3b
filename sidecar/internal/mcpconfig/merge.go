package mcpconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// Entry is one MCP server entry to merge.
type Entry struct {
	Name  string
	Value any // marshals to the entry's JSON object
}

// ErrInvalid marks a config file that is not valid JSON(C).
var ErrInvalid = fmt.Errorf("not valid JSON")

// Merge sets each entry under the object at key (e.g. "mcpServers") of a
// JSON or JSONC document, creating the object when missing, and changes
// nothing else: other entries, comments, trailing commas, a BOM and the
// file's indentation stay as they were. An entry that exists is replaced in
// place. An empty document becomes a new one.
func Merge(doc []byte, key string, entries []Entry) ([]byte, error) {
	hadBOM := bytes.HasPrefix(doc, bom)
	doc = bytes.TrimPrefix(doc, bom)
	if len(bytes.TrimSpace(neutralize(doc))) == 0 {
		doc = []byte("{}\n")
	}
	for _, e := range entries {
		var err error
		if doc, err = set(doc, key, e); err != nil {
			return nil, err
		}
	}
	if hadBOM {
		doc = append(bytes.Clone(bom), doc...)
	}
	return doc, nil
}

// set applies one entry; offsets come from the neutralized copy.
func set(doc []byte, key string, e Entry) ([]byte, error) {
	neutral, commas := scanJSONC(doc)
	if !json.Valid(neutral) {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, syntaxError(neutral))
	}
	root := gjson.ParseBytes(neutral)
	if !root.IsObject() {
		return nil, fmt.Errorf("%w: the top level is not an object", ErrInvalid)
	}
	root.Index, root.Raw = 0, string(neutral) // the whole document
	ind := indentUnit(neutral)
	container := gjson.GetBytes(neutral, escapePath(key))
	if !container.Exists() {
		return insertMember(doc, neutral, commas, root, 0, ind, key, containerWith(e))
	}
	if !container.IsObject() {
		return nil, fmt.Errorf("%w: %q is not an object", ErrInvalid, key)
	}
	existing := gjson.GetBytes(neutral, escapePath(key)+"."+escapePath(e.Name))
	if existing.Exists() {
		raw := pretty(e.Value, 2, ind)
		out := append(bytes.Clone(doc[:existing.Index]), raw...)
		return append(out, doc[existing.Index+len(existing.Raw):]...), nil
	}
	return insertMember(doc, neutral, commas, container, 1, ind, e.Name, pretty(e.Value, 2, ind))
}

// containerWith renders a new container object holding e, for its depth.
func containerWith(e Entry) func(depth int, ind string) []byte {
	return func(depth int, ind string) []byte {
		inner := strings.Repeat(ind, depth+1)
		var b bytes.Buffer
		b.WriteString("{\n")
		b.WriteString(inner)
		b.Write(quote(e.Name))
		b.WriteString(": ")
		b.Write(pretty(e.Value, depth+1, ind))
		b.WriteString("\n")
		b.WriteString(strings.Repeat(ind, depth))
		b.WriteString("}")
		return b.Bytes()
	}
}

// insertMember adds "name": value as the last member of obj (at depth).
// value is raw JSON, or a function that renders it for the depth. commas
// are the offsets of the document's trailing commas.
func insertMember(doc, neutral []byte, commas []int, obj gjson.Result, depth int, ind, name string, value any) ([]byte, error) {
	var raw []byte
	switch v := value.(type) {
	case []byte:
		raw = v
	case func(int, string) []byte:
		raw = v(depth+1, ind)
	}
	member := append(append(quote(name), ": "...), raw...)
	memberIndent := strings.Repeat(ind, depth+1)

	lastEnd := -1
	obj.ForEach(func(_, v gjson.Result) bool {
		lastEnd = v.Index + len(v.Raw)
		return true
	})
	// The braces: gjson's Raw of a whole document may carry whitespace.
	span := neutral[obj.Index : obj.Index+len(obj.Raw)]
	opening := obj.Index + bytes.IndexByte(span, '{')
	closing := obj.Index + bytes.LastIndexByte(span, '}')
	var out bytes.Buffer
	if lastEnd < 0 {
		// Empty object: lay it out afresh between its braces.
		out.Write(doc[:opening+1])
		out.WriteString("\n" + memberIndent)
		out.Write(member)
		out.WriteString("\n" + strings.Repeat(ind, depth))
		out.Write(doc[closing:])
		return out.Bytes(), nil
	}

	// The gap between the last member and '}' may hold a trailing comma
	// (JSONC) and comments. The new member goes after the rest of the last
	// member's line, so a // comment there stays with its member.
	gap := bytes.Clone(doc[lastEnd:closing])
	trailingComma := false
	for _, at := range commas {
		if at >= lastEnd && at < closing {
			i := at - lastEnd
			gap = append(gap[:i], gap[i+1:]...)
			trailingComma = true
			break
		}
	}
	head, tail := gap, []byte("\n"+strings.Repeat(ind, depth))
	if nl := bytes.IndexByte(gap, '\n'); nl >= 0 {
		head, tail = gap[:nl], gap[nl:]
	} else {
		head = bytes.TrimRight(gap, " \t")
	}
	out.Write(doc[:lastEnd])
	out.WriteString(",")
	out.Write(head)
	out.WriteString("\n" + memberIndent)
	out.Write(member)
	if trailingComma {
		out.WriteString(",") // keep the file's style
	}
	out.Write(tail)
	out.Write(doc[closing:])
	return out.Bytes(), nil
}

// indentUnit is the whitespace before the first member of the top-level
// object ("  " by default, also for one-line files).
func indentUnit(neutral []byte) string {
	i := bytes.IndexByte(neutral, '{')
	if i < 0 {
		return "  "
	}
	rest := neutral[i+1:]
	nl := bytes.IndexByte(rest, '\n')
	for nl >= 0 {
		line := rest[nl+1:]
		ws := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		if len(line) > len(ws) && line[len(ws)] != '\n' && line[len(ws)] != '\r' {
			if len(ws) > 0 {
				return string(ws)
			}
			return "  "
		}
		rest = line
		nl = bytes.IndexByte(rest, '\n')
	}
	return "  "
}

// pretty renders v indented for depth (its first line needs no indent).
func pretty(v any, depth int, ind string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(strings.Repeat(ind, depth), ind)
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

func quote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// escapePath escapes a key for a gjson path.
func escapePath(key string) string {
	r := strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`, "|", `\|`, "#", `\#`, "@", `\@`)
	return r.Replace(key)
}
