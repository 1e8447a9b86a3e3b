package pagetools

import (
	"context"
	"encoding/json"
	"errors"
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
	if e.commits != 0 || e.mainFrame != "" {
		t.Fatalf("a malformed navigation counted: %d commits, main frame %q", e.commits, e.mainFrame)
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
