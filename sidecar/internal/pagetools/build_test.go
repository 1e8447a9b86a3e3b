package pagetools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func searchForm(id, score int, submit string) rawForm {
	return rawForm{ID: id, Submit: submit, Method: "get", Score: score,
		Fields: []rawField{{Type: "search", Label: "Query", Empty: true, Required: true}}}
}

func TestBuildCapKeepsTheMostProminentAndNamesDoNotDependOnTheCap(t *testing.T) {
	p := rawPage{Gen: 1}
	for i := 0; i < 20; i++ {
		p.Forms = append(p.Forms, searchForm(i, i, "Search"))
	}
	tools, refs := build(p, Config{MaxTools: 5}.withDefaults())
	got := Names(tools)
	// The five highest scores are forms 15..19, named in page order
	// before the cap: search_16 … search_20.
	want := []string{"search_16", "search_17", "search_18", "search_19", "search_20"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	if refs["search_20"].id != 19 || refs["search_16"].id != 15 {
		t.Fatalf("refs point at the wrong forms: %+v", refs["search_20"])
	}
}

func TestBuildOrderAndPrecedence(t *testing.T) {
	p := rawPage{
		Gen: 3,
		Forms: []rawForm{
			searchForm(0, 50, "Book table"), // a found form that would take the declared name
			{ID: 1, Declared: true, ToolName: "book_table", ToolDescription: "Books a table.", AutoSubmit: true, Method: "post",
				Fields: []rawField{{Type: "text", Name: "name", Required: true, Empty: false, PDesc: "Guest's full name"}}},
			{ID: 2, Declared: true, ToolName: "waitlist", Method: "post", Fields: []rawField{{Type: "tel", Name: "phone"}, {Type: "text", Name: "first name"}, {Type: "text", Name: "x.y-z_1"}}},
		},
		Imperative: []rawImperative{
			{Name: "book_table", Description: "the declared form, listed again by Chrome", InputSchema: `{"type":"object"}`},
			{Name: "get-menu", Description: "Today's menu", InputSchema: `{"type":"object","properties":{"day":{"type":["string","null"]}}}`, Annotations: json.RawMessage(`{"readOnlyHint":true}`)},
		},
		Lists:   []rawList{{ID: 0, Label: "Dishes", Count: 7, Score: 10}},
		Buttons: []rawButton{{ID: 0, Label: "Call us", Score: 5}, {ID: 1, Label: "Show map", Score: 5}},
	}
	tools, refs := build(p, Config{ContentTool: true}.withDefaults())
	want := []string{"book_table", "waitlist", "get-menu", "book_table_2", "open_dish", "call_us", "show_map", ContentToolName}
	if got := Names(tools); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	byName := map[string]Tool{}
	for _, tl := range tools {
		byName[tl.Name] = tl
		if !tl.Annotations.OpenWorldHint {
			t.Errorf("%s: every page tool is open-world", tl.Name)
		}
	}
	check := func(name, origin string, readOnly, destructive bool) {
		t.Helper()
		tl := byName[name]
		if tl.Origin != origin || tl.Annotations.ReadOnlyHint != readOnly || tl.Annotations.DestructiveHint != destructive {
			t.Errorf("%s: origin %s, annotations %+v; want %s, readOnly %v, destructive %v", name, tl.Origin, tl.Annotations, origin, readOnly, destructive)
		}
	}
	check("book_table", OriginWebMCP, false, true)     // posts
	check("book_table_2", OriginForm, true, false)     // a GET form only navigates
	check("get-menu", OriginImperative, true, false)   // the page says read-only
	check("open_dish", OriginList, true, false)        // opening an item
	check("call_us", OriginButton, false, true)        // a button is destructive…
	check("show_map", OriginButton, false, false)      // …unless clearly harmless
	check(ContentToolName, OriginContent, true, false) // reads
	if !refs["book_table"].submit || refs["waitlist"].submit {
		t.Fatal("only a form with toolautosubmit is submitted")
	}
	if d := byName["book_table"].Description; d != `Declared by the page (WebMCP). Page text: "Books a table."` {
		t.Fatalf("declared description: %s", d)
	}
	if d := byName["waitlist"].Description; !strings.Contains(d, "a person submits it") {
		t.Fatalf("a form without toolautosubmit says who submits: %s", d)
	}
	var w map[string]any
	_ = json.Unmarshal(byName["waitlist"].InputSchema, &w)
	for _, p := range []string{"phone", "first_name", "x.y-z_1"} {
		if w["properties"].(map[string]any)[p] == nil {
			t.Fatalf("declared parameter names: %s", byName["waitlist"].InputSchema)
		}
	}
	var s map[string]any
	_ = json.Unmarshal(byName["book_table"].InputSchema, &s)
	name := s["properties"].(map[string]any)["name"].(map[string]any)
	if name["description"] != `Page text: "Guest's full name"` || fmt.Sprint(s["required"]) != "[name]" {
		t.Fatalf("declared parameters: %v", s)
	}
	if strings.Contains(string(byName["get-menu"].InputSchema), `"type":[`) {
		t.Fatalf("imperative schema kept a type array: %s", byName["get-menu"].InputSchema)
	}
}

func TestFieldSchemas(t *testing.T) {
	for _, c := range []struct {
		f    rawField
		want string
	}{
		{rawField{Type: "text", Label: "From", Pattern: "[A-Z]{3}"}, `{"type":"string","pattern":"^(?:[A-Z]{3})$"}`},
		{rawField{Type: "number", Min: "1", Max: "9", Value: "1"}, `{"type":"integer","default":1,"minimum":1,"maximum":9}`},
		{rawField{Type: "number", Step: "0.5"}, `{"type":"number"}`},
		{rawField{Type: "range", Step: "any", Min: "0", Max: "1"}, `{"type":"number","minimum":0,"maximum":1}`},
		{rawField{Type: "date", Min: "2024-01-01"}, `{"type":"string","format":"date","description":"Earliest 2024-01-01."}`},
		{rawField{Type: "checkbox", Label: "Direct"}, `{"type":"boolean"}`}, // the label is the name: no description
		{rawField{Type: "checkbox", Label: "Direct", Title: "Non-stop only"}, `{"type":"boolean","description":"Page text: \"Non-stop only\""}`},
		{rawField{Type: "email", Label: "Email", Name: "em", Placeholder: "you@example.com"}, `{"type":"string","format":"email","description":"Page text: \"e.g. you@example.com\""}`},
		{rawField{Type: "password", Label: "Password", MinLength: ptr(8)}, `{"type":"string","description":"Write-only: never shown back.","minLength":8,"writeOnly":true}`},
		{rawField{Type: "select", Options: []rawOption{{"e", "Economy"}, {"b", "b"}}, OptionCount: 2, Value: "e"}, `{"type":"string","description":"Options: \"e = Economy\".","enum":["e","b"],"default":"e"}`},
		{rawField{Type: "radio", Options: []rawOption{{"a", "A"}, {"b", "B"}}, OptionCount: 2}, `{"type":"string","enum":["a","b"]}`},
		{rawField{Type: "checkbox-group", Required: true, Options: []rawOption{{"x", "X"}}, OptionCount: 1}, `{"type":"array","minItems":1,"items":{"type":"string","enum":["x"]}}`},
		{rawField{Type: "select", Options: make([]rawOption, 41), OptionCount: 250}, `{"type":"string","description":"One of the page's 250 options."}`},
		{rawField{Type: "time"}, `{"type":"string","description":"Time, hh:mm.","pattern":"^\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?$"}`},
	} {
		s, ok := fieldSchema(c.f)
		if !ok {
			t.Errorf("%+v: no schema", c.f)
			continue
		}
		b, _ := json.Marshal(s)
		if string(b) != c.want {
			t.Errorf("fieldSchema(%s) =\n  %s\nwant\n  %s", c.f.Type, b, c.want)
		}
	}
	if _, ok := fieldSchema(rawField{Type: "select"}); ok {
		t.Error("a select without options is no property")
	}
}

func TestSignatureIgnoresOrder(t *testing.T) {
	a := []Tool{{Name: "a", InputSchema: json.RawMessage(`{}`)}, {Name: "b", InputSchema: json.RawMessage(`{}`)}}
	b := []Tool{a[1], a[0]}
	if signature(a) != signature(b) {
		t.Fatal("same tools in another order compare different")
	}
	c := []Tool{a[0], {Name: "b", InputSchema: json.RawMessage(`{"x":1}`)}}
	if signature(a) == signature(c) {
		t.Fatal("a changed schema compares equal")
	}
}
