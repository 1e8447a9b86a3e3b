package pagetools

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func flightSchema() *Schema {
	return &Schema{Type: "object", Closed: true, Required: []string{"from", "depart_date"}, Properties: []Property{
		{"from", &Schema{Type: "string", MaxLength: ptr(3)}},
		{"depart_date", &Schema{Type: "string", Format: "date", minDate: "2024-01-01"}},
		{"passengers", &Schema{Type: "integer", Minimum: ptr(1.0), Maximum: ptr(9.0)}},
		{"cabin", &Schema{Type: "string", Enum: []string{"economy", "business"}}},
		{"direct", &Schema{Type: "boolean"}},
		{"extras", &Schema{Type: "array", Items: &Schema{Type: "string", Enum: []string{"bag", "seat"}}}},
		{"password", &Schema{Type: "string", WriteOnly: true}},
	}}
}

func TestSchemaJSONKeepsPageOrderAndOneType(t *testing.T) {
	b, err := json.Marshal(flightSchema())
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	order := []string{`"from"`, `"depart_date"`, `"passengers"`, `"cabin"`, `"direct"`, `"extras"`, `"password"`}
	last := -1
	for _, k := range order {
		i := strings.Index(s, k+":")
		if i < last {
			t.Fatalf("property %s out of page order in %s", k, s)
		}
		last = i
	}
	var decoded map[string]any
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ty, ok := x["type"]; ok {
				if _, one := ty.(string); !one {
					t.Fatalf("a type that is not one string: %v", ty)
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(decoded)
	if !strings.Contains(s, `"writeOnly":true`) || !strings.Contains(s, `"additionalProperties":false`) {
		t.Fatalf("schema %s", s)
	}
	if strings.Contains(s, "2024-01-01") {
		t.Fatal("a date's minimum is not a JSON Schema keyword; it belongs in the description")
	}
}

func TestValidate(t *testing.T) {
	s := flightSchema()
	ok := map[string]any{"from": "SFO", "depart_date": "2026-07-10", "passengers": 2.0, "cabin": "business", "direct": true, "extras": []any{"bag"}}
	if err := s.validate(ok); err != nil {
		t.Fatalf("valid arguments refused: %v", err)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"depart_date": "2026-07-10"}, `argument "from" is required (a string)`},
		{map[string]any{"from": 5.0, "depart_date": "2026-07-10"}, `argument "from" must be a string, not a number`},
		{map[string]any{"from": "SFOX", "depart_date": "2026-07-10"}, `argument "from" must be at most 3 characters long`},
		{map[string]any{"from": "SFO", "depart_date": "10/07/2026"}, `argument "depart_date" must be a date written YYYY-MM-DD`},
		{map[string]any{"from": "SFO", "depart_date": "2023-12-31"}, `argument "depart_date" must be on or after 2024-01-01`},
		{map[string]any{"from": "SFO", "depart_date": "2026-02-30"}, `argument "depart_date" must be a date`},
		{map[string]any{"from": "SFO", "depart_date": "2026-07-10", "passengers": "two"}, `argument "passengers" must be a number, not a string (a whole number from 1 to 9)`},
		{map[string]any{"from": "SFO", "depart_date": "2026-07-10", "passengers": 1.5}, `argument "passengers" must be a whole number`},
		{map[string]any{"from": "SFO", "depart_date": "2026-07-10", "passengers": 12.0}, `argument "passengers" is out of range: a whole number from 1 to 9`},
		{map[string]any{"from": "SFO", "depart_date": "2026-07-10", "cabin": "first"}, `argument "cabin" must be one of "economy", "business"`},
		{map[string]any{"from": "SFO", "depart_date": "2026-07-10", "direct": "yes"}, `argument "direct" must be true or false`},
		{map[string]any{"from": "SFO", "depart_date": "2026-07-10", "extras": []any{"meal"}}, `argument "extras" item 0 must be one of "bag", "seat"`},
		{map[string]any{"from": "SFO", "depart_date": "2026-07-10", "to": "JFK"}, `unknown argument "to": this tool takes from, depart_date, passengers, cabin, direct, extras, password`},
	} {
		err := s.validate(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("validate(%v) = %v, want %q", c.args, err, c.want)
		}
	}
	err := s.validate(map[string]any{"from": "SFO", "depart_date": "2026-07-10", "password": 123456789.0})
	if err == nil || strings.Contains(err.Error(), "123456789") {
		t.Fatalf("an error must never repeat a value (it may be a password): %v", err)
	}
}

func TestPortableSchemas(t *testing.T) {
	raw, m := portable(`{"type":"object","properties":{"q":{"type":["string","null"]},"n":{"type":["null","integer"]},"tags":{"type":"array","items":{"type":["number","string"]}}},"required":["q"]}`)
	if strings.Contains(string(raw), "[\"") && strings.Contains(string(raw), `"type":[`) {
		t.Fatalf("type arrays remain: %s", raw)
	}
	props := m["properties"].(map[string]any)
	if props["q"].(map[string]any)["type"] != "string" || props["n"].(map[string]any)["type"] != "integer" ||
		props["tags"].(map[string]any)["items"].(map[string]any)["type"] != "number" {
		t.Fatalf("portable = %s", raw)
	}
	for _, bad := range []string{`not json`, `[1,2]`, `{"type":"string"}`, ``} {
		raw, _ := portable(bad)
		if string(raw) != `{"properties":{},"type":"object"}` {
			t.Errorf("portable(%q) = %s", bad, raw)
		}
	}
	if err := validateForeign(m, map[string]any{"n": 1.0}); err == nil || !strings.Contains(err.Error(), `"q" is required`) {
		t.Fatalf("foreign required: %v", err)
	}
	if err := validateForeign(m, map[string]any{"q": true}); err == nil || !strings.Contains(err.Error(), `"q" must be a string`) {
		t.Fatalf("foreign type: %v", err)
	}
	if err := validateForeign(m, map[string]any{"q": "x", "other": 1.0}); err != nil {
		t.Fatalf("foreign: %v", err)
	}
}

func TestErrorListsTools(t *testing.T) {
	err := error(&Error{Kind: ErrUnknownTool, Msg: `the page x has no tool "a"`, Tools: []string{"b", "c"}})
	if !errors.Is(err, ErrUnknownTool) || err.Error() != `the page x has no tool "a"; the page's tools now: b, c` {
		t.Fatal(err)
	}
	err = &Error{Kind: ErrNavigatedAway, Msg: "gone", Tools: []string{}}
	if err.Error() != "gone; the page has no tools now" {
		t.Fatal(err)
	}
}
