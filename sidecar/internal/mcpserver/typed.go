package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Typed tools. A tool's input type writes its input schema and takes its
// arguments; its output type writes its output schema and is what its
// structured content holds. The schemas come from jsonschema-go, the
// generator behind mcp-go's WithInputSchema[T] and WithOutputSchema[T],
// with two differences that those options cannot make:
//
//   - Portable: one "type" per schema (MCP Inspector's --strict check;
//     clients that map tool schemas onto a single-type dialect, such as
//     Gemini's function declarations, reject or drop a list). The
//     generator writes ["null","string"] for a pointer and ["null","array"]
//     for a slice; a value that may be missing is left out of the answer
//     (omitempty) and of "required" instead, so the list becomes its
//     second type.
//   - The surface's words: a field's description is its `jsonschema` tag
//     where the type is this package's; a type of a lower layer (a status,
//     a page tool's answer) gets its words here, by path (about), since
//     what an agent is told belongs to the surface, not to the layer.
//
// The arguments are checked against the input type before they are bound
// (mcp-go's BindArguments): a bad call gets a tool error that says what
// was wrong and what is allowed, which json.Unmarshal's errors do not.

// spec is a tool's name, words and hints.
type spec struct {
	name, title, description    string
	readOnly, destructive, idem bool
	openWorld                   bool
	needs                       string // said when a required argument is missing: where to find it
	in, out                     about  // words for the schemas, by path
	openInput                   bool   // the input schema allows other properties (002's schemas)
}

// about is what the surface says of the properties of a generated schema,
// by path: "browser", "everyday.via", "tabs.id" (an array's items are
// passed through). A path the type does not have is a mistake that every
// surface's construction panics on.
type about map[string]prop

// prop is what a type cannot say of a property.
type prop struct {
	desc   string
	enum   []any
	format string
	typ    string // for a value of any type (json.RawMessage): what it is
	def    any    // the default value; nil: none
}

// toolDef is a tool and its handler.
type toolDef struct {
	tool   mcp.Tool
	handle server.ToolHandlerFunc
}

// typed makes the tool s: run gets the arguments bound to In and answers
// the structured content, its text, or an error. An error with text is
// said with it (a failed action and the status it left); without, it is
// the whole answer.
func typed[In, Out any](s spec, run func(context.Context, In) (Out, string, error)) toolDef {
	t := mcp.NewToolWithRawSchema(s.name, s.description, schemaOf[In](s.name+" input", s.in, !s.openInput))
	t.Title = s.title
	t.RawOutputSchema = schemaOf[Out](s.name+" output", s.out, true)
	t.Annotations = mcp.ToolAnnotation{
		Title:           s.title,
		ReadOnlyHint:    hint(s.readOnly),
		DestructiveHint: hint(s.destructive),
		IdempotentHint:  hint(s.idem),
		OpenWorldHint:   hint(s.openWorld),
	}
	args := argsOf[In](s)
	return toolDef{t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if err := args.bind(req, &in); err != nil {
			return toolError(err), nil
		}
		out, text, err := run(ctx, in)
		switch {
		case err == nil:
			return mcp.NewToolResultStructured(out, text), nil
		case text == "":
			return toolError(err), nil
		}
		r := mcp.NewToolResultStructured(out, text)
		r.Content = []mcp.Content{newFailure("Error: ", err, "\n\n"+text)}
		r.IsError = true
		return r, nil
	}}
}

func hint(b bool) *bool { return &b }

// schemaOf is T's schema, portable, with the surface's words; closed: no
// other properties at the top. what names it (the tool's name and input or
// output): with T's type, the key of the schema made ahead of time
// (schemas_gen.go), which is what it answers when there is one.
func schemaOf[T any](what string, words about, closed bool) json.RawMessage {
	key := what + " " + reflect.TypeFor[T]().String()
	if b, ok := schemaMadeAhead(key); ok {
		return b
	}
	b := makeSchema[T](words, closed)
	madeNow(key, b)
	return b
}

// makeSchema generates T's schema (schemaOf's, made now).
func makeSchema[T any](words about, closed bool) json.RawMessage {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {}, // any JSON value
	}})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: the schema of %T: %v", *new(T), err))
	}
	portable(s)
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{} // "properties": {} even with none
	}
	if !closed {
		s.AdditionalProperties = nil
	}
	for path, p := range words {
		at := lookup(s, path)
		if at == nil {
			panic(fmt.Sprintf("mcpserver: the schema of %T has no property %s", *new(T), path))
		}
		p.apply(at)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// portable gives every subschema one type: a list such as ["null","array"]
// becomes its other type, and an empty additionalProperties (any) goes.
func portable(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(types) == 1 {
			s.Type, s.Types = types[0], nil
		}
	}
	if a := s.AdditionalProperties; a != nil && reflect.ValueOf(*a).IsZero() {
		s.AdditionalProperties = nil
	}
	for _, p := range s.Properties {
		portable(p)
	}
	portable(s.Items)
	portable(s.AdditionalProperties)
}

func lookup(s *jsonschema.Schema, path string) *jsonschema.Schema {
	for name := range strings.SplitSeq(path, ".") {
		if s.Type == "array" && s.Items != nil {
			s = s.Items
		}
		if s = s.Properties[name]; s == nil {
			return nil
		}
	}
	return s
}

func (p prop) apply(s *jsonschema.Schema) {
	if p.desc != "" {
		s.Description = p.desc
	}
	if p.enum != nil {
		s.Enum = p.enum
	}
	if p.format != "" {
		s.Format = p.format
	}
	if p.typ != "" {
		s.Type = p.typ
	}
	if p.def != nil {
		s.Default, _ = json.Marshal(p.def)
	}
}

// args are the arguments a tool takes, in its input type's order.
type args struct {
	tool   string
	needs  string
	fields []arg
}

type arg struct {
	name     string
	kind     reflect.Kind // String, Bool, Float64, Map
	required bool
}

func argsOf[In any](s spec) args {
	a := args{tool: s.name, needs: s.needs}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[In]()) {
		tag, ok := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if !f.IsExported() || !ok || name == "-" {
			continue
		}
		t := f.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.String, reflect.Bool, reflect.Float64, reflect.Map:
		default:
			panic(fmt.Sprintf("mcpserver: %s: argument %s is a %s; a tool takes strings, booleans, numbers (float64) and objects", s.name, name, t))
		}
		a.fields = append(a.fields, arg{name: name, kind: t.Kind(), required: !strings.Contains(opts, "omit")})
	}
	return a
}

// bind checks a call's arguments against the tool's and binds them to in:
// an argument that is absent or null is not given; a required one that is
// not given, or given as "", is missing.
func (a args) bind(req mcp.CallToolRequest, in any) error {
	m, err := objectArguments(req)
	if err != nil {
		return err
	}
	var unknown []string
	for k := range m {
		if !slices.ContainsFunc(a.fields, func(f arg) bool { return f.name == k }) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		allowed := make([]string, len(a.fields))
		for i, f := range a.fields {
			allowed[i] = f.name
		}
		return fmt.Errorf("%s: unknown argument %s; allowed: %s", a.tool, strings.Join(unknown, ", "), listOr(allowed, "none"))
	}
	for _, f := range a.fields {
		v := m[f.name]
		if want := f.wants(v); v != nil && want != "" {
			return fmt.Errorf("%s: %s %s, got %s", a.tool, f.name, want, jsonText(v))
		}
		if f.required && (v == nil || v == "") {
			if a.needs != "" {
				return fmt.Errorf("%s: %s is required (%s)", a.tool, f.name, a.needs)
			}
			return fmt.Errorf("%s: %s is required", a.tool, f.name)
		}
	}
	if err := req.BindArguments(in); err != nil {
		return fmt.Errorf("%s: %w", a.tool, err)
	}
	return nil
}

// wants says what f takes if v is not that, or "".
func (f arg) wants(v any) string {
	switch f.kind {
	case reflect.String:
		if _, ok := v.(string); !ok {
			return "must be a string"
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return "must be true or false"
		}
	case reflect.Float64:
		if _, ok := v.(float64); !ok {
			return "must be a number"
		}
	case reflect.Map:
		if _, ok := v.(map[string]any); !ok {
			return "must be an object"
		}
	}
	return ""
}

// objectArguments are a call's arguments, which must be an object: absent
// or null arguments are no arguments; anything else is a mistake.
func objectArguments(req mcp.CallToolRequest) (map[string]any, error) {
	if m := req.GetArguments(); m != nil {
		return m, nil
	}
	switch raw := req.GetRawArguments().(type) {
	case nil, map[string]any:
		return map[string]any{}, nil
	case json.RawMessage:
		if t := strings.TrimSpace(string(raw)); t == "" || t == "null" {
			return map[string]any{}, nil
		}
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil && m != nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%s: arguments must be an object", req.Params.Name)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// asJSON answers v with its JSON as its text, as 002's tools answer.
func asJSON[T any](v T) (T, string, error) {
	b, _ := json.Marshal(v)
	return v, string(b), nil
}

// noArgs is the input of a tool that takes none.
type noArgs struct{}
