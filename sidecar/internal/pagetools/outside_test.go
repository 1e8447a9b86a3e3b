package pagetools

// Tools outside forms against a real Chromium: a todo app with TodoMVC's
// markup (add by Enter, per-item toggle, delete and edit, filters) and a
// page with a look-up outside any form and pagination. Every outcome is
// read from the page, never from the tool's answer.

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// todoState is the app's items as the page shows them: "[x] title" or
// "[ ] title", and the hash.
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

func dumpTools(t *testing.T, tools []Tool) string {
	b, _ := json.MarshalIndent(tools, "", " ")
	return string(b)
}

func TestTodoAppWithoutForms(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/todos.html", Config{})
	tools := tb.waitTools("add_todo")
	t.Log(dumpTools(t, tools))
	for _, title := range []string{"Buy milk", "Walk the dog", "Pay rent"} {
		res := tb.call("add_todo", map[string]any{"text": title})
		t.Log(res.Text())
	}
	items, _ := todoState(tb)
	if want := []string{"[ ] Buy milk", "[ ] Walk the dog", "[ ] Pay rent"}; !reflect.DeepEqual(items, want) {
		t.Fatalf("after adding: %q, want %q", items, want)
	}
	tools = tb.waitTools("add_todo", "toggle_todo", "delete_todo", "edit_todo", "show_filter")
	t.Log(dumpTools(t, tools))
	res := tb.call("toggle_todo", map[string]any{"item": "Walk the dog"})
	t.Log(res.Text())
	res = tb.call("edit_todo", map[string]any{"item": "Buy milk", "text": "Buy oat milk"})
	t.Log(res.Text())
	res = tb.call("delete_todo", map[string]any{"item": "Pay rent"})
	t.Log(res.Text())
	items, _ = todoState(tb)
	if want := []string{"[ ] Buy oat milk", "[x] Walk the dog"}; !reflect.DeepEqual(items, want) {
		t.Fatalf("after toggle, edit, delete: %q, want %q", items, want)
	}
	tb.waitTools("show_filter")
	res = tb.call("show_filter", map[string]any{"filter": "Completed"})
	t.Log(res.Text())
	items, hash := todoState(tb)
	if want := []string{"[x] Walk the dog"}; !reflect.DeepEqual(items, want) || hash != "#/completed" {
		t.Fatalf("after the filter: %q %q", items, hash)
	}
	_ = errors.Is
	_ = strings.Contains
}
