package mcpconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
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

// Merge sets each entry under the object at path (e.g. ["mcpServers"], or
// ["projects", "/home/u/app", "mcpServers"]) of a JSON or JSONC document,
// creating the objects on the way when missing, and changes nothing else:
// other entries, comments, trailing commas, a BOM and the file's
// indentation stay as they were. An entry that exists is replaced in place.
// An empty document becomes a new one.
func Merge(doc []byte, path []string, entries []Entry) ([]byte, error) {
	if len(entries) == 0 {
		return doc, nil
	}
	return edit(doc, len(entries), func(doc []byte, i int) ([]byte, error) {
		if i == 0 && len(bytes.TrimSpace(neutralize(doc))) == 0 {
			doc = []byte("{}\n")
		}
		return set(doc, path, entries[i])
	})
}

// edit runs n steps on doc with its BOM taken off, and puts the BOM back.
func edit(doc []byte, n int, step func(doc []byte, i int) ([]byte, error)) ([]byte, error) {
	hadBOM := bytes.HasPrefix(doc, bom)
	doc = bytes.TrimPrefix(doc, bom)
	for i := range n {
		var err error
		if doc, err = step(doc, i); err != nil {
			return nil, err
		}
	}
	if hadBOM {
		doc = append(bytes.Clone(bom), doc...)
	}
	return doc, nil
}

// document is a document ready for edits: offsets come from its neutralized
// copy (comments and trailing commas blanked), which has every byte where
// the document has it.
type document struct {
	doc, neutral []byte
	commas       []int // the trailing commas blanked
	root         gjson.Result
	ind          string // one level of indentation
}

func parse(doc []byte) (document, error) {
	neutral, commas := scanJSONC(doc)
	if !json.Valid(neutral) {
		return document{}, fmt.Errorf("%w: %w", ErrInvalid, syntaxError(neutral))
	}
	root := gjson.ParseBytes(neutral)
	if !root.IsObject() {
		return document{}, fmt.Errorf("%w: the top level is not an object", ErrInvalid)
	}
	root.Index, root.Raw = 0, string(neutral) // the whole document
	return document{doc: doc, neutral: neutral, commas: commas, root: root, ind: indentUnit(neutral)}, nil
}

// object is the object at path, or found false; a value there that is
// not an object is an error.
func (p document) object(path []string) (gjson.Result, bool, error) {
	if len(path) == 0 {
		return p.root, true, nil
	}
	r := gjson.GetBytes(p.neutral, gjsonPath(path))
	if !r.Exists() {
		return r, false, nil
	}
	if !r.IsObject() {
		return r, false, fmt.Errorf("%w: %q is not an object", ErrInvalid, strings.Join(path, "."))
	}
	return r, true, nil
}

// objectAt parses doc and finds the object at path (ok false: not there).
func objectAt(doc []byte, path []string) (document, gjson.Result, bool, error) {
	p, err := parse(doc)
	if err != nil {
		return p, gjson.Result{}, false, err
	}
	obj, ok, err := p.object(path)
	return p, obj, ok, err
}

// set applies one entry: replaced where it is, else added to the deepest
// object of path that exists, with what is missing below it.
func set(doc []byte, path []string, e Entry) ([]byte, error) {
	p, err := parse(doc)
	if err != nil {
		return nil, err
	}
	for depth := len(path); depth >= 0; depth-- {
		obj, ok, err := p.object(path[:depth])
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if depth < len(path) {
			return insertMember(p, obj, depth, path[depth], nestedWith(path[depth+1:], e))
		}
		existing := gjson.GetBytes(p.neutral, gjsonPath(append(slices.Clone(path), e.Name)))
		if existing.Exists() {
			raw := pretty(e.Value, depth+1, p.ind)
			out := append(bytes.Clone(doc[:existing.Index]), raw...)
			return append(out, doc[existing.Index+len(existing.Raw):]...), nil
		}
		return insertMember(p, obj, depth, e.Name, pretty(e.Value, depth+1, p.ind))
	}
	return nil, fmt.Errorf("%w: no top-level object", ErrInvalid)
}

// nestedWith renders the objects named by rest, nested, the innermost
// holding e, for the depth they are put at.
func nestedWith(rest []string, e Entry) func(depth int, ind string) []byte {
	return func(depth int, ind string) []byte {
		var b bytes.Buffer
		b.WriteString("{\n")
		b.WriteString(strings.Repeat(ind, depth+1))
		if len(rest) == 0 {
			b.Write(quote(e.Name))
			b.WriteString(": ")
			b.Write(pretty(e.Value, depth+1, ind))
		} else {
			b.Write(quote(rest[0]))
			b.WriteString(": ")
			b.Write(nestedWith(rest[1:], e)(depth+1, ind))
		}
		b.WriteString("\n")
		b.WriteString(strings.Repeat(ind, depth))
		b.WriteString("}")
		return b.Bytes()
	}
}

// insertMember adds "name": value as the last member of obj (at depth).
// value is raw JSON, or a function that renders it for the depth.
func insertMember(p document, obj gjson.Result, depth int, name string, value any) ([]byte, error) {
	doc, neutral, commas, ind := p.doc, p.neutral, p.commas, p.ind
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

// gjsonPath is path as a gjson path, each key escaped.
func gjsonPath(path []string) string {
	r := strings.NewReplacer(`\`, `\\`, ".", `\.`, "*", `\*`, "?", `\?`, "|", `\|`, "#", `\#`, "@", `\@`, "!", `\!`, "=", `\=`, "<", `\<`, ">", `\>`, "%", `\%`)
	keys := make([]string, len(path))
	for i, k := range path {
		keys[i] = r.Replace(k)
	}
	return strings.Join(keys, ".")
}

// Member is one member of an object in a document.
type Member struct {
	Name string
	Raw  json.RawMessage // the value, comments and trailing commas taken out
}

// Members lists the members of the object at path, in the document's
// order; none when the path is missing.
func Members(doc []byte, path []string) ([]Member, error) {
	doc = bytes.TrimPrefix(doc, bom)
	if len(bytes.TrimSpace(neutralize(doc))) == 0 {
		return nil, nil
	}
	_, obj, ok, err := objectAt(doc, path)
	if !ok || err != nil {
		return nil, err
	}
	var out []Member
	obj.ForEach(func(k, v gjson.Result) bool {
		out = append(out, Member{Name: k.String(), Raw: json.RawMessage(v.Raw)})
		return true
	})
	return out, nil
}

// Remove takes the named members out of the object at path, and changes
// nothing else; names that are not there are passed over.
func Remove(doc []byte, path []string, names []string) ([]byte, error) {
	return edit(doc, len(names), func(doc []byte, i int) ([]byte, error) { return removeMember(doc, path, names[i]) })
}

// span is one member's place: its key's start and its value's end.
type span struct{ key, end int }

func removeMember(doc []byte, path []string, name string) ([]byte, error) {
	p, obj, ok, err := objectAt(doc, path)
	if !ok || err != nil {
		return doc, err
	}
	var members []span
	at := -1
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.String() == name {
			at = len(members)
		}
		members = append(members, span{k.Index, v.Index + len(v.Raw)})
		return true
	})
	if at < 0 {
		return doc, nil
	}
	out := bytes.Clone(doc)
	for _, c := range cuts(p.neutral, members, at) { // from the end: offsets stay valid
		out = append(out[:c.key], out[c.end:]...)
	}
	return out, nil
}

// cuts are the text to take out with member at, the last first: its
// whole lines when it has them to itself (with a comment after it on its
// last line), else just it and one comma; the last member takes the comma
// before it instead, and a comment after that comma stays.
func cuts(neutral []byte, members []span, at int) []span {
	m := members[at]
	lineStart := bytes.LastIndexByte(neutral[:m.key], '\n') + 1
	alone := len(bytes.TrimSpace(neutral[lineStart:m.key])) == 0
	if at+1 < len(members) {
		next := members[at+1]
		comma := m.end + bytes.IndexByte(neutral[m.end:next.key], ',')
		if nl := bytes.IndexByte(neutral[comma:next.key], '\n'); alone && nl >= 0 {
			return []span{{lineStart, comma + nl + 1}}
		}
		return []span{{m.key, next.key}}
	}
	if at == 0 {
		// The only member: the object becomes empty.
		open := bytes.LastIndexByte(neutral[:m.key], '{') + 1
		close := m.end + bytes.IndexByte(neutral[m.end:], '}')
		return []span{{open, close}}
	}
	prev := members[at-1]
	comma := prev.end + bytes.IndexByte(neutral[prev.end:m.key], ',')
	if nl := bytes.LastIndexByte(neutral[comma:m.key], '\n'); alone && nl >= 0 {
		return []span{{comma + nl, m.end}, {comma, comma + 1}}
	}
	return []span{{comma, m.end}}
}
