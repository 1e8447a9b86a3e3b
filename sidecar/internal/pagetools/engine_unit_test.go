package pagetools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// noSession answers nothing: for the engine's paths that must not reach
// the browser at all (the browser-backed paths are tested against Chromium).
type noSession struct{ calls int }

func (s *noSession) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	s.calls++
	return nil, errors.New("no browser here")
}

func TestBeforeStart(t *testing.T) {
	s := &noSession{}
	e := New(s, Config{})
	if _, err := e.Call(context.Background(), "anything", nil); !errors.Is(err, ErrNotReady) {
		t.Fatalf("a call before Start: %v", err)
	}
	if _, err := e.Discover(context.Background()); !errors.Is(err, ErrNotReady) {
		t.Fatalf("Discover before Start: %v", err)
	}
	if err := e.Start(context.Background()); err == nil || s.calls != 1 {
		t.Fatalf("Start on a dead session: %v after %d calls", err, s.calls)
	}
	if err := e.Close(context.Background()); err != nil || s.calls != 1 {
		t.Fatalf("Close after a failed Start: %v, %d calls (nothing to undo)", err, s.calls)
	}
}

func TestHandleEventIgnoresWhatItDoesNotKnow(t *testing.T) {
	e := New(&noSession{}, Config{})
	for _, ev := range []struct{ method, params string }{
		{"Runtime.bindingCalled", `{"name":"` + e.binding + `","payload":"not json","executionContextId":1}`},
		{"Runtime.bindingCalled", `{"name":"` + e.binding + `","payload":"{\"type\":\"tools\",\"page\":{\"forms\":[{}]}}","executionContextId":99}`},
		{"Runtime.executionContextCreated", `garbage`},
		{"Page.frameNavigated", `{"frame":null}`},
		{"Page.frameStoppedLoading", `[]`},
		{"Network.requestWillBeSent", `{}`},
	} {
		e.HandleEvent(ev.method, json.RawMessage(ev.params))
	}
	if e.tab.commits != 0 || e.tab.mainFrame != "" {
		t.Fatalf("a malformed navigation counted: %d commits, main frame %q", e.tab.commits, e.tab.mainFrame)
	}
	if len(e.Tools()) != 0 {
		t.Fatalf("a report from a context the engine does not know was applied: %v", Names(e.Tools()))
	}
	select {
	case <-e.Changed():
		t.Fatal("a change signal from malformed events")
	default:
	}
}

// The tab's state is reduced from its events by a pure function: each event
// makes a new state from the last one (the old one is left as it was) and
// says what the engine must do.
func TestTheTabIsReducedFromItsEvents(t *testing.T) {
	in := reduceIn{docAlive: true}
	ev := func(method, params string) tabEvent {
		t.Helper()
		e, ok := decoders[method](json.RawMessage(params))
		if !ok {
			t.Fatalf("%s %s: not decoded", method, params)
		}
		return e
	}
	s := tabState{mainFrame: "F"}
	steps := []struct {
		ev   tabEvent
		want func(tabState, effects) bool
		what string
	}{
		{ev("Page.frameStartedLoading", `{"frameId":"F"}`),
			func(s tabState, fx effects) bool { return s.starts == 1 && s.pending }, "a load starts"},
		{ev("Page.navigatedWithinDocument", `{"frameId":"F","url":"http://x/#a"}`),
			func(s tabState, fx effects) bool {
				return s.sameDocs == 1 && s.url == "http://x/#a" && fx.docURL == "http://x/#a"
			}, "within the document"},
		{ev("Page.frameStoppedLoading", `{"frameId":"F"}`),
			func(s tabState, fx effects) bool { return s.stops == 1 && !s.pending && fx.ensure }, "it stops: look again if need be"},
		{ev("Page.frameNavigated", `{"frame":{"id":"child","parentId":"F","url":"http://ad/","loaderId":"L0"}}`),
			func(s tabState, fx effects) bool { return s.commits == 0 && !fx.changed }, "a child frame's commit is not the tab's"},
		{ev("Page.frameNavigated", `{"frame":{"id":"F","url":"http://x/2","loaderId":"L1"}}`),
			func(s tabState, fx effects) bool { return s.commits == 1 && s.loader == "L1" && fx.keepDoc }, "a commit while the document's context lives: the back/forward cache"},
		{ev("Page.frameRequestedNavigation", `{"frameId":"F","disposition":"newTab","url":"http://pop/"}`),
			func(s tabState, fx effects) bool {
				return s.popups == 1 && s.popupURL == "http://pop/" && s.starts == 1
			}, "a popup is not this tab's navigation"},
		{ev("Page.javascriptDialogOpening", `{"type":"confirm","message":"Sure?","url":"http://x/2"}`),
			func(s tabState, fx effects) bool { return s.dialog != nil && s.dialog.Message == "Sure?" && fx.signal }, "a dialog opens"},
		{ev("Page.javascriptDialogClosed", `{"result":true}`),
			func(s tabState, fx effects) bool { return s.dialog == nil && fx.signal && fx.ensure }, "and closes"},
		{ev("Network.requestWillBeSent", `{"requestId":"r1","type":"Fetch"}`),
			func(s tabState, fx effects) bool { return s.requests == nil && !fx.changed }, "requests are not followed outside a call"},
	}
	for _, st := range steps {
		before := s
		was := fmt.Sprintf("%+v", s)
		var fx effects
		s, fx = st.ev.reduce(s, in)
		if !st.want(s, fx) {
			t.Fatalf("%s: %+v %+v", st.what, s, fx)
		}
		if now := fmt.Sprintf("%+v", before); now != was {
			t.Fatalf("%s: the old state changed: %s, was %s", st.what, now, was)
		}
	}
	s.requests = map[string]bool{}
	for _, step := range []struct {
		method, params string
		n              int
	}{
		{"Network.requestWillBeSent", `{"requestId":"r1","type":"Fetch"}`, 1},
		{"Network.requestWillBeSent", `{"requestId":"img","type":"Image"}`, 1},
		{"Network.requestWillBeSent", `{"requestId":"r2","type":"XHR"}`, 2},
		{"Network.responseReceived", `{"requestId":"r1","type":"Fetch"}`, 1},
		{"Network.loadingFailed", `{"requestId":"r2"}`, 0},
	} {
		s, _ = ev(step.method, step.params).reduce(s, in)
		if len(s.requests) != step.n {
			t.Fatalf("after %s %s: %v", step.method, step.params, s.requests)
		}
	}
}

// The engine's world's execution contexts are the ones it knows (its
// cdp.Contexts follows every world; a context of the page's own world, or
// one destroyed or cleared, is no document of the engine's).
func TestTheEngineKnowsItsWorldsContexts(t *testing.T) {
	e := New(nil, Config{})
	created := func(id int, world string) {
		e.HandleEvent("Runtime.executionContextCreated", json.RawMessage(fmt.Sprintf(`{"context":{"id":%d,"name":%q,"auxData":{"frameId":"F"}}}`, id, world)))
	}
	ours := func(id int64) string {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.ourContextLocked(id)
	}
	created(7, e.world)
	created(8, "")
	if ours(7) != "F" || ours(8) != "" {
		t.Fatalf("our world's context 7: %q (want F), the page's 8: %q (want none)", ours(7), ours(8))
	}
	e.HandleEvent("Runtime.executionContextDestroyed", json.RawMessage(`{"executionContextId":7}`))
	if ours(7) != "" {
		t.Fatal("context 7 destroyed, still known")
	}
	created(9, e.world)
	e.HandleEvent("Runtime.executionContextsCleared", json.RawMessage(`{}`))
	if ours(9) != "" {
		t.Fatal("contexts cleared, 9 still known")
	}
}
