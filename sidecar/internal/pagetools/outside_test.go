package pagetools

// Tools outside forms against a real Chromium: a todo app with TodoMVC's
// markup and no form (scripts/fixtures/site/todos.html: add by Enter,
// per-item toggle, delete and edit, filters) and a page with a look-up
// outside any form and pagination (pages.html). Every outcome is read from
// the page, never from the tool's answer.

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// todoState is the app's items as the page shows them ("[x] title" or
// "[ ] title") and its hash.
func todoState(tb *tab) ([]string, string) {
	tb.t.Helper()
	raw := tb.eval(`JSON.stringify({items: [...document.querySelectorAll('.todo-list li')].map((li) => (li.classList.contains('completed') ? '[x] ' : '[ ] ') + li.querySelector('label').textContent), hash: location.hash})`)
	var st struct {
		Items []string `json:"items"`
		Hash  string   `json:"hash"`
	}
	if err := json.Unmarshal([]byte(raw.(string)), &st); err != nil {
		tb.t.Fatal(err)
	}
	return st.Items, st.Hash
}

func addTodos(tb *tab, titles ...string) {
	tb.t.Helper()
	for _, title := range titles {
		res := tb.call("add_todo", map[string]any{"text": title})
		if !strings.Contains(res.Text(), "The text appeared on the page.") {
			tb.t.Fatalf("add_todo %q: %s", title, res.Text())
		}
	}
}

func TestTodoAppWithoutForms(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/todos.html", Config{})
	tools := tb.waitTools("add_todo")
	// The lone field whose Enter adds: named from its id (new-todo), its
	// one parameter the text, its placeholder as page text; adding only adds.
	add := tool(t, tools, "add_todo")
	if p := prop(t, schemaOf(t, add), "text"); p["type"] != "string" || !strings.Contains(p["description"].(string), "What needs to be done?") {
		t.Fatalf("add_todo's text: %v", p)
	}
	if add.Annotations.DestructiveHint || add.Annotations.ReadOnlyHint {
		t.Fatalf("add_todo annotations: %+v", add.Annotations)
	}
	addTodos(tb, "Buy milk", "Walk the dog", "Pay rent")
	items, _ := todoState(tb)
	if want := []string{"[ ] Buy milk", "[ ] Walk the dog", "[ ] Pay rent"}; !reflect.DeepEqual(items, want) {
		t.Fatalf("after adding: %q, want %q", items, want)
	}

	tools = tb.waitTools("add_todo", "toggle_todo", "delete_todo", "edit_todo", "show_filter")
	labels := []any{"Buy milk", "Walk the dog", "Pay rent"}
	for _, name := range []string{"toggle_todo", "delete_todo", "edit_todo"} {
		if e := prop(t, schemaOf(t, tool(t, tools, name)), "item")["enum"]; !reflect.DeepEqual(e, labels) {
			t.Fatalf("%s's items: %v, want %v", name, e, labels)
		}
	}
	if a := tool(t, tools, "delete_todo").Annotations; !a.DestructiveHint {
		t.Fatalf("delete_todo annotations: %+v", a)
	}
	if a := tool(t, tools, "show_filter").Annotations; !a.ReadOnlyHint {
		t.Fatalf("show_filter annotations: %+v", a)
	}
	if e := prop(t, schemaOf(t, tool(t, tools, "show_filter")), "filter")["enum"]; !reflect.DeepEqual(e, []any{"All", "Active", "Completed"}) {
		t.Fatalf("show_filter's options: %v", e)
	}

	// The checkbox clicked, the label double-clicked and typed into, the
	// hover-only delete button clicked: each answer says what it saw.
	if res := tb.call("toggle_todo", map[string]any{"item": "Walk the dog"}); !strings.Contains(res.Text(), `"Walk the dog" is ticked now`) {
		t.Fatalf("toggle_todo: %s", res.Text())
	}
	if res := tb.call("edit_todo", map[string]any{"item": "Buy milk", "text": "Buy oat milk"}); !strings.Contains(res.Text(), `is now "Buy oat milk"`) {
		t.Fatalf("edit_todo: %s", res.Text())
	}
	if res := tb.call("delete_todo", map[string]any{"item": "Pay rent"}); !strings.Contains(res.Text(), `"Pay rent" is gone`) {
		t.Fatalf("delete_todo: %s", res.Text())
	}
	items, _ = todoState(tb)
	if want := []string{"[ ] Buy oat milk", "[x] Walk the dog"}; !reflect.DeepEqual(items, want) {
		t.Fatalf("after toggle, edit, delete: %q, want %q", items, want)
	}
	tb.call("show_filter", map[string]any{"filter": "Completed"})
	items, hash := todoState(tb)
	if want := []string{"[x] Walk the dog"}; !reflect.DeepEqual(items, want) || hash != "#/completed" {
		t.Fatalf("after the filter: %q %q", items, hash)
	}
	// The items now shown are the ones the tools name.
	tools = tb.waitTools("add_todo", "toggle_todo", "delete_todo", "edit_todo", "show_filter")
	if e := prop(t, schemaOf(t, tool(t, tools, "toggle_todo")), "item")["enum"]; !reflect.DeepEqual(e, []any{"Walk the dog"}) {
		t.Fatalf("toggle_todo's items after the filter: %v", e)
	}
}

// A page that ignores the action gets an error, never "done"; an item
// that is gone is refused before anything is clicked.
func TestOutsideFormsNoEffectIsAnError(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/todos.html?inert", Config{})
	tb.waitTools("add_todo")
	addTodos(tb, "Buy milk", "Walk the dog")
	tb.waitTools("add_todo", "toggle_todo", "delete_todo", "edit_todo", "show_filter")
	_, err := tb.eng.Call(testCtx(t), "toggle_todo", map[string]any{"item": "Walk the dog"})
	if !errors.Is(err, ErrNoEffect) || !strings.Contains(err.Error(), `"Walk the dog" is still not ticked`) {
		t.Fatalf("toggle on a page that ignores it: %v", err)
	}
	_, err = tb.eng.Call(testCtx(t), "delete_todo", map[string]any{"item": "Gone already"})
	if !errors.Is(err, ErrInvalidArguments) {
		t.Fatalf("delete of an item the list lacks: %v", err)
	}
	if items, _ := todoState(tb); !reflect.DeepEqual(items, []string{"[ ] Buy milk", "[ ] Walk the dog"}) {
		t.Fatalf("the page changed: %q", items)
	}

	deaf := b.newTab(t, s.URL+"/todos.html?deaf", Config{})
	deaf.waitTools("add_todo")
	_, err = deaf.eng.Call(testCtx(t), "add_todo", map[string]any{"text": "Buy milk"})
	if !errors.Is(err, ErrNoEffect) || !strings.Contains(err.Error(), "the text did not appear") {
		t.Fatalf("Enter that adds nothing: %v", err)
	}
	if items, _ := todoState(deaf); len(items) != 0 {
		t.Fatalf("items: %q", items)
	}
}

// Pagination drawn anew at every page, and a look-up whose field and
// button are in a section with a heading, in no form.
func TestPagesAndALookUpOutsideForms(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/pages.html", Config{})
	tools := tb.waitTools("look_up", "go_to_page")
	pages := func() string {
		return tb.eval(`[...document.querySelectorAll('#pets li')].map((li) => li.textContent).join(',')`).(string)
	}
	if e := prop(t, schemaOf(t, tool(t, tools, "go_to_page")), "page")["enum"]; !reflect.DeepEqual(e, []any{"Previous", "1", "2", "3", "Next"}) {
		t.Fatalf("go_to_page's pages: %v", e)
	}
	tb.call("go_to_page", map[string]any{"page": "2"})
	if got := pages(); got != "Bella,Max,Luna" {
		t.Fatalf("page 2 shows %q", got)
	}
	tb.call("go_to_page", map[string]any{"page": "Next"})
	if got := pages(); got != "Coco,Milo,Nala" {
		t.Fatalf("the next page shows %q", got)
	}
	// Next on the last page changes nothing: an error, not "done".
	if _, err := tb.eng.Call(testCtx(t), "go_to_page", map[string]any{"page": "Next"}); !errors.Is(err, ErrNoEffect) {
		t.Fatalf("Next on the last page: %v", err)
	}
	if res := tb.call("go_to_page", map[string]any{"page": "3"}); !strings.Contains(res.Note, "already the current one") {
		t.Fatalf("the current page: %+v", res)
	}

	if p := prop(t, schemaOf(t, tool(t, tools, "look_up")), "pet_id"); p["type"] != "integer" {
		t.Fatalf("look_up's pet_id: %v", p)
	}
	tb.call("look_up", map[string]any{"pet_id": 2.0})
	if got := tb.eval(`document.getElementById('found').textContent`); got != "Pet 2: Tom" {
		t.Fatalf("the look-up shows %q", got)
	}
}

// A switch whose only visible effect is that the option clicked becomes the
// current one (aria-selected, which the settle does not watch): the check
// in the page saw it, so the call is done, not "nothing happened".
func TestSwitchSeenCurrentIsDone(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	u := s.page("tabs.html", `<!doctype html><title>Tabs</title><h1>Report</h1>
<div role="tablist" aria-label="Views">
  <button role="tab" aria-selected="true">Daily</button>
  <button role="tab" aria-selected="false">Weekly</button>
</div>
<script>
for (const b of document.querySelectorAll('[role=tab]')) b.addEventListener('click', () => {
  for (const o of document.querySelectorAll('[role=tab]')) o.setAttribute('aria-selected', String(o === b));
});
</script>`)
	tb := b.newTab(t, u, Config{})
	tb.waitTools("show_tab")
	if _, err := tb.eng.Call(testCtx(t), "show_tab", map[string]any{"tab": "Weekly"}); err != nil {
		t.Fatalf("show_tab Weekly: %v", err)
	}
	if got := tb.eval(`document.querySelector('[aria-selected=true]').textContent`); got != "Weekly" {
		t.Fatalf("the selected tab is %q", got)
	}
}

// A filter that becomes the current one and empties a list that held items
// of the kind it names has not done its work: an error, never "done" (TodoMVC
// flight's "Completed" after an edit). A filter that empties a list with no
// item of its kind has: the list is rightly empty.
func TestFilterThatEmptiesTheListIsNoEffect(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/todos.html?blind", Config{})
	tb.waitTools("add_todo")
	addTodos(tb, "Buy milk", "Walk the dog")
	tb.waitTools("add_todo", "toggle_todo", "delete_todo", "edit_todo", "show_filter")
	tb.call("toggle_todo", map[string]any{"item": "Walk the dog"})
	_, err := tb.eng.Call(testCtx(t), "show_filter", map[string]any{"filter": "Completed"})
	if !errors.Is(err, ErrNoEffect) || !strings.Contains(err.Error(), "showed 2 item(s), 1 of them of the kind it names, shows none now") {
		t.Fatalf("a filter that shows nothing of what it names: %v", err)
	}
	if items, hash := todoState(tb); len(items) != 0 || hash != "#/completed" {
		t.Fatalf("the page shows %q at %q", items, hash)
	}

	ok := b.newTab(t, s.URL+"/todos.html", Config{})
	ok.waitTools("add_todo")
	addTodos(ok, "Buy milk", "Walk the dog")
	ok.waitTools("add_todo", "toggle_todo", "delete_todo", "edit_todo", "show_filter")
	if _, err := ok.eng.Call(testCtx(t), "show_filter", map[string]any{"filter": "Completed"}); err != nil {
		t.Fatalf("a filter that rightly shows no item: %v", err)
	}
	if items, hash := todoState(ok); len(items) != 0 || hash != "#/completed" {
		t.Fatalf("the page shows %q at %q", items, hash)
	}
	if _, err := ok.eng.Call(testCtx(t), "show_filter", map[string]any{"filter": "Active"}); err != nil {
		t.Fatalf("a filter that shows the items again: %v", err)
	}
	if items, _ := todoState(ok); !reflect.DeepEqual(items, []string{"[ ] Buy milk", "[ ] Walk the dog"}) {
		t.Fatalf("after Active: %q", items)
	}
}
