package pagetools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Schema is the JSON Schema subset page tools use. Every schema has one
// type (never a type array), so clients that map schemas to a single-type
// dialect accept them. Properties keep the page's order.
type Schema struct {
	Type        string
	Format      string
	Description string
	Enum        []string
	Default     any
	Minimum     *float64
	Maximum     *float64
	MinLength   *int
	MaxLength   *int
	MinItems    *int
	Pattern     string
	WriteOnly   bool
	Items       *Schema
	Properties  []Property
	Required    []string
	// Closed is additionalProperties: false.
	Closed bool

	// minDate and maxDate are a date input's min and max: JSON Schema has
	// no keyword for them, so the description says them and validate
	// checks them.
	minDate, maxDate string
	// labels are a single choice's option labels (lower case): the page
	// takes an option by its label too.
	labels map[string]bool
	// file: a file field's (its values are paths; files.go).
	file bool
}

// Property is one named property of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

// MarshalJSON writes the schema with its keys in a fixed order and its
// properties in page order.
func (s *Schema) MarshalJSON() ([]byte, error) {
	w := &objectWriter{}
	w.b.WriteByte('{')
	w.field("type", s.Type)
	for _, k := range s.keywords() {
		if k.set {
			w.field(k.name, k.v)
		}
	}
	if s.Type == "object" {
		if err := s.writeObject(w); err != nil {
			return nil, err
		}
	}
	w.b.WriteByte('}')
	return w.b.Bytes(), nil
}

// keyword is one JSON Schema keyword of a schema, in the order written.
type keyword struct {
	name string
	v    any
	set  bool
}

// keywords are the schema's keywords after "type", in the order written
// (pointers are written as the value they point to).
func (s *Schema) keywords() []keyword {
	return []keyword{
		{"format", s.Format, s.Format != ""},
		{"description", s.Description, s.Description != ""},
		{"enum", s.Enum, s.Enum != nil},
		{"default", s.Default, s.Default != nil},
		{"minimum", s.Minimum, s.Minimum != nil},
		{"maximum", s.Maximum, s.Maximum != nil},
		{"minLength", s.MinLength, s.MinLength != nil},
		{"maxLength", s.MaxLength, s.MaxLength != nil},
		{"minItems", s.MinItems, s.MinItems != nil},
		{"pattern", s.Pattern, s.Pattern != ""},
		{"writeOnly", true, s.WriteOnly},
		{"items", s.Items, s.Items != nil},
	}
}

// writeObject writes an object schema's properties (in page order),
// required and additionalProperties.
func (s *Schema) writeObject(w *objectWriter) error {
	w.key("properties")
	w.b.WriteByte('{')
	for i, p := range s.Properties {
		if i > 0 {
			w.b.WriteByte(',')
		}
		kb, _ := json.Marshal(p.Name)
		w.b.Write(kb)
		w.b.WriteByte(':')
		pb, err := p.Schema.MarshalJSON()
		if err != nil {
			return err
		}
		w.b.Write(pb)
	}
	w.b.WriteByte('}')
	if len(s.Required) > 0 {
		w.field("required", s.Required)
	}
	if s.Closed {
		w.field("additionalProperties", false)
	}
	return nil
}

// objectWriter writes a JSON object's members in the order given.
type objectWriter struct {
	b bytes.Buffer
	n int
}

func (w *objectWriter) key(k string) {
	if w.n > 0 {
		w.b.WriteByte(',')
	}
	w.n++
	kb, _ := json.Marshal(k)
	w.b.Write(kb)
	w.b.WriteByte(':')
}

func (w *objectWriter) field(k string, v any) {
	w.key(k)
	vb, err := json.Marshal(v)
	if err != nil {
		vb = []byte("null")
	}
	w.b.Write(vb)
}

func (s *Schema) property(name string) *Schema {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

func (s *Schema) propertyNames() []string {
	out := make([]string, len(s.Properties))
	for i, p := range s.Properties {
		out[i] = p.Name
	}
	return out
}

// validate checks arguments against an object schema and answers the first
// problem as a sentence that names the field and says what is allowed. It
// never repeats a value the caller gave (one may be a password).
func (s *Schema) validate(args map[string]any) error {
	for _, name := range s.Required {
		if v, ok := args[name]; !ok || v == nil {
			return fmt.Errorf("argument %q is required (%s)", name, s.property(name).expect())
		}
	}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p := s.property(k)
		if p == nil {
			if s.Closed {
				return fmt.Errorf("unknown argument %q: this tool takes %s", k, listOr(s.propertyNames(), "no arguments"))
			}
			continue
		}
		if args[k] == nil {
			continue
		}
		if err := p.check(args[k]); err != nil {
			return fmt.Errorf("argument %q %w", k, err)
		}
	}
	return nil
}

// check validates one value; its error reads after the field's name.
func (s *Schema) check(v any) error {
	switch s.Type {
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("must be a string, not %s (%s)", jsonKind(v), s.expect())
		}
		if s.Enum != nil && !slices.Contains(s.Enum, str) && !s.labels[strings.ToLower(str)] {
			return fmt.Errorf("must be one of %s", quoteList(s.Enum))
		}
		n := len([]rune(str))
		if s.MinLength != nil && n < *s.MinLength {
			return fmt.Errorf("must be at least %d characters long", *s.MinLength)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return fmt.Errorf("must be at most %d characters long", *s.MaxLength)
		}
		if s.Format == "date" && str != "" {
			if _, err := time.Parse("2006-01-02", str); err != nil {
				return fmt.Errorf("must be a date written YYYY-MM-DD")
			}
			if err := s.checkDateRange(str); err != nil {
				return err
			}
		}
		return nil
	case "integer", "number":
		f, ok := v.(float64)
		if !ok {
			if i, isInt := v.(int); isInt {
				f, ok = float64(i), true
			}
		}
		if !ok {
			return fmt.Errorf("must be a number, not %s (%s)", jsonKind(v), s.expect())
		}
		if s.Type == "integer" && f != math.Trunc(f) {
			return fmt.Errorf("must be a whole number (%s)", s.expect())
		}
		if (s.Minimum != nil && f < *s.Minimum) || (s.Maximum != nil && f > *s.Maximum) {
			return fmt.Errorf("is out of range: %s", s.expect())
		}
		return nil
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("must be true or false, not %s", jsonKind(v))
		}
		return nil
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("must be an array, not %s (%s)", jsonKind(v), s.expect())
		}
		if s.MinItems != nil && len(arr) < *s.MinItems {
			return fmt.Errorf("must hold at least %d item(s)", *s.MinItems)
		}
		if s.Items != nil {
			for i, x := range arr {
				if err := s.Items.check(x); err != nil {
					return fmt.Errorf("item %d %w", i, err)
				}
			}
		}
		return nil
	case "object":
		if _, ok := v.(map[string]any); !ok {
			return fmt.Errorf("must be an object, not %s", jsonKind(v))
		}
		return nil
	}
	return nil
}

func (s *Schema) checkDateRange(str string) error {
	if s.minDate != "" && str < s.minDate {
		return fmt.Errorf("must be on or after %s", s.minDate)
	}
	if s.maxDate != "" && str > s.maxDate {
		return fmt.Errorf("must be on or before %s", s.maxDate)
	}
	return nil
}

// expect says what a value of this schema looks like, for error messages.
func (s *Schema) expect() string {
	if s == nil {
		return "any value"
	}
	switch s.Type {
	case "string":
		switch {
		case s.Enum != nil:
			return "one of " + quoteList(s.Enum)
		case s.Format == "date":
			return "a date, YYYY-MM-DD"
		}
		return "a string"
	case "integer", "number":
		what := "a number"
		if s.Type == "integer" {
			what = "a whole number"
		}
		switch {
		case s.Minimum != nil && s.Maximum != nil:
			return fmt.Sprintf("%s from %s to %s", what, num(*s.Minimum), num(*s.Maximum))
		case s.Minimum != nil:
			return fmt.Sprintf("%s of at least %s", what, num(*s.Minimum))
		case s.Maximum != nil:
			return fmt.Sprintf("%s of at most %s", what, num(*s.Maximum))
		}
		return what
	case "boolean":
		return "true or false"
	case "array":
		if s.Items != nil && s.Items.Enum != nil {
			return "an array of " + quoteList(s.Items.Enum)
		}
		return "an array"
	}
	return "a " + s.Type
}

func num(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64, int:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func quoteList(ss []string) string {
	const show = 12
	q := make([]string, 0, show)
	for i, s := range ss {
		if i == show {
			q = append(q, fmt.Sprintf("… (%d in all)", len(ss)))
			break
		}
		b, _ := json.Marshal(s)
		q = append(q, string(b))
	}
	return strings.Join(q, ", ")
}

func listOr(ss []string, none string) string {
	if len(ss) == 0 {
		return none
	}
	return strings.Join(ss, ", ")
}

// portable rewrites a schema a page supplied (WebMCP imperative tools) so
// every "type" is one string: a type array keeps its first non-null type.
// Anything not a JSON object becomes an empty object schema.
func portable(raw string) (json.RawMessage, map[string]any) {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		v = map[string]any{}
	}
	m, ok := v.(map[string]any)
	if !ok {
		m = map[string]any{}
	}
	fixTypes(m)
	if t, _ := m["type"].(string); t != "object" {
		m = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	out, _ := json.Marshal(m)
	return out, m
}

func fixTypes(v any) {
	switch x := v.(type) {
	case map[string]any:
		if arr, ok := x["type"].([]any); ok {
			t := "string"
			for _, e := range arr {
				if s, ok := e.(string); ok && s != "null" {
					t = s
					break
				}
			}
			x["type"] = t
		}
		for _, e := range x {
			fixTypes(e)
		}
	case []any:
		for _, e := range x {
			fixTypes(e)
		}
	}
}

// validateForeign applies the parts of a page-supplied schema that can be
// checked without a full validator (required properties, and each
// property's single type); the page's own tool checks the rest.
func validateForeign(schema map[string]any, args map[string]any) error {
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				if v, present := args[name]; !present || v == nil {
					return fmt.Errorf("argument %q is required", name)
				}
			}
		}
	}
	props, _ := schema["properties"].(map[string]any)
	for name, v := range args {
		p, _ := props[name].(map[string]any)
		t, _ := p["type"].(string)
		if t == "" || v == nil {
			continue
		}
		if err := (&Schema{Type: t}).check(v); err != nil {
			return fmt.Errorf("argument %q %w", name, err)
		}
	}
	return nil
}
