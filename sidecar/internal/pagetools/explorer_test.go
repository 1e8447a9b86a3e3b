package pagetools

// An API explorer as Swagger UI draws one (scripts/fixtures/site/explorer.html):
// operations behind disclosure buttons, parameters that "Try it out" turns
// on, a debounced input, "Execute" that calls an API which answers after a
// while. Outcomes are read on the server and in the page, never from the
// tool's answer.

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestExpandFillExecute(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/explorer.html", Config{})
	tools := tb.waitTools("expand_section")
	// One option per operation: the arrow out of the tab order repeats its summary.
	want := []any{"GET /pets/{id} Find a pet by id", "GET /pets List the pets", "DELETE /pets/{id} Delete a pet"}
	if e := prop(t, schemaOf(t, tool(t, tools, "expand_section")), "section")["enum"]; !reflect.DeepEqual(e, want) {
		t.Fatalf("expand_section's sections: %v", e)
	}
	tb.call("expand_section", map[string]any{"section": "GET /pets/{id} Find a pet by id"})
	if got := tb.eval(`document.querySelector('.op-summary').getAttribute('aria-expanded')`); got != "true" {
		t.Fatalf("the first operation's summary says aria-expanded=%v", got)
	}
	// The opened operation is a tool named from its summary, its disabled
	// parameter named from its row, its last click not known: never read-only.
	tools = tb.waitTools("find_a_pet_by_id", "expand_section")
	find := tool(t, tools, "find_a_pet_by_id")
	if _, ok := schemaOf(t, find)["properties"].(map[string]any)["id"]; !ok || find.Annotations.ReadOnlyHint {
		t.Fatalf("find_a_pet_by_id: %s %+v", find.InputSchema, find.Annotations)
	}
	res := tb.call("find_a_pet_by_id", map[string]any{"id": "7"})
	if got := s.received(); !reflect.DeepEqual(got, []string{"GET /api/pets/7"}) {
		t.Fatalf("the API received %q", got)
	}
	// The answer waited for the API's response, which came after the page had been quiet.
	if !strings.Contains(res.PageText, "Rex") {
		t.Fatalf("the answer does not show the response: %s", res.Text())
	}
	if got := tb.eval(`document.querySelector('.response').textContent`).(string); !strings.Contains(got, "Rex") {
		t.Fatalf("the page shows %q", got)
	}

	// An operation without parameters: "Try it out", then "Execute".
	tb.call("expand_section", map[string]any{"section": "GET /pets List the pets"})
	tb.waitTools("list_the_pets", "find_a_pet_by_id", "expand_section", "cancel")
	tb.call("list_the_pets", nil)
	if got := s.received(); !slices.Contains(got, "GET /api/pets") {
		t.Fatalf("the API received %q", got)
	}

	// A required parameter left empty: the page marks it invalid and calls
	// nothing; the call says so, never "done".
	tb.call("expand_section", map[string]any{"section": "DELETE /pets/{id} Delete a pet"})
	tools = tb.waitTools("delete_a_pet", "list_the_pets", "find_a_pet_by_id", "cancel")
	if a := tool(t, tools, "delete_a_pet").Annotations; !a.DestructiveHint {
		t.Fatalf("delete_a_pet annotations: %+v", a)
	}
	n := len(s.received())
	_, err := tb.eng.Call(testCtx(t), "delete_a_pet", map[string]any{"id": ""})
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "Required field is not provided") {
		t.Fatalf("an empty required parameter: %v", err)
	}
	if got := s.received(); len(got) != n {
		t.Fatalf("the API received %q", got[n:])
	}
}
