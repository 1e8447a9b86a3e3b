package cdp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestContextsFollowTheRuntimeEvents(t *testing.T) {
	created := func(id, frame, name string) json.RawMessage {
		return json.RawMessage(`{"context":{"id":` + id + `,"name":"` + name + `","auxData":{"frameId":"` + frame + `","isDefault":` + map[bool]string{true: "true", false: "false"}[name == ""] + `}}}`)
	}
	var c Contexts
	if c.Note("Page.frameNavigated", json.RawMessage(`{}`)) {
		t.Fatal("a Page event was taken for a context event")
	}
	c.Note("Runtime.executionContextCreated", created("1", "F", ""))
	c.Add(2, "F", "tools") // the answer to createIsolatedWorld, before its event
	c.Note("Runtime.executionContextCreated", created("2", "F", "tools"))
	c.Note("Runtime.executionContextCreated", created("3", "G", ""))
	c.Add(3, "X", "other") // its event came first: it stays as the event said
	if frame, world, ok := c.Frame(2); !ok || frame != "F" || world != "tools" {
		t.Fatalf("context 2: %q %q %v", frame, world, ok)
	}
	if frame, _, _ := c.Frame(3); frame != "G" {
		t.Fatalf("context 3 is in %q; want G, as its event said", frame)
	}
	c.Note("Runtime.executionContextDestroyed", json.RawMessage(`{"executionContextId":1}`))
	if _, _, ok := c.Frame(1); ok {
		t.Fatal("a destroyed context is still there")
	}
	var ids []string
	for _, p := range c.Created() {
		var ev contextEvent
		json.Unmarshal(p, &ev)
		ids = append(ids, ev.Context.Name+"@"+ev.Context.AuxData.FrameID)
	}
	if got := strings.Join(ids, " "); got != "tools@F @G" {
		t.Fatalf("replayed %q; want the live ones in the order they were made", got)
	}
	c.Note("Runtime.executionContextsCleared", json.RawMessage(`{}`))
	if len(c.Created()) != 0 {
		t.Fatal("contexts outlived executionContextsCleared")
	}
}
