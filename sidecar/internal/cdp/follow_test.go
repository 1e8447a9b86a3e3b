package cdp

import (
	"encoding/json"
	"testing"
)

func targetEvent(method, id, url string) Message {
	raw, _ := json.Marshal(map[string]any{"targetInfo": map[string]string{"targetId": id, "type": "page", "url": url}})
	return Message{Method: method, Params: raw}
}

func latest(f *Follower) string {
	t, _ := f.Latest(IsPage)
	return t.ID
}

func TestABackgroundTabStaysBehindWhileItLoads(t *testing.T) {
	for _, tc := range []struct {
		name    string
		events  func(f *Follower, done func(string))
		wantEnd string
	}{
		{"announced before the answer, at its URL", func(f *Follower, done func(string)) {
			f.HandleEvent(targetEvent("Target.targetCreated", "B", "http://b/"))
			done("B")
			f.HandleEvent(targetEvent("Target.targetInfoChanged", "B", "http://b/"))
		}, "A"},
		{"announced blank, then loads", func(f *Follower, done func(string)) {
			f.HandleEvent(targetEvent("Target.targetCreated", "B", "about:blank"))
			done("B")
			f.HandleEvent(targetEvent("Target.targetInfoChanged", "B", "http://b/"))
		}, "A"},
		{"announced after the answer", func(f *Follower, done func(string)) {
			done("B")
			f.HandleEvent(targetEvent("Target.targetCreated", "B", ""))
			f.HandleEvent(targetEvent("Target.targetInfoChanged", "B", "http://b/"))
		}, "A"},
		{"navigates after its first page", func(f *Follower, done func(string)) {
			f.HandleEvent(targetEvent("Target.targetCreated", "B", "about:blank"))
			done("B")
			f.HandleEvent(targetEvent("Target.targetInfoChanged", "B", "http://b/"))
			f.HandleEvent(targetEvent("Target.targetInfoChanged", "B", "http://b/next"))
		}, "B"},
		{"the open failed", func(f *Follower, done func(string)) {
			done("")
			f.HandleEvent(targetEvent("Target.targetCreated", "C", "http://c/"))
		}, "C"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFollower()
			f.HandleEvent(targetEvent("Target.targetCreated", "A", "http://a/"))
			tc.events(f, f.Background())
			if got := latest(f); got != tc.wantEnd {
				t.Fatalf("in front: %s, want %s", got, tc.wantEnd)
			}
		})
	}
	f := NewFollower()
	f.HandleEvent(targetEvent("Target.targetCreated", "A", "http://a/"))
	done := f.Background()
	f.HandleEvent(targetEvent("Target.targetCreated", "B", "http://b/"))
	done("B")
	f.Touch("B")
	if latest(f) != "B" {
		t.Fatal("a touched background tab is not in front")
	}
	f.Forget("B")
	if _, ok := f.Get("B"); ok || latest(f) != "A" {
		t.Fatalf("a forgotten tab is still known (front %s)", latest(f))
	}
}

// Activated tells a tab brought to the front (Touch) from one that is in
// front because it appeared or navigated.
func TestActivatedIsTouchedSinceTheLastNavigation(t *testing.T) {
	f := NewFollower()
	f.HandleEvent(targetEvent("Target.targetCreated", "A", "http://a/"))
	if latest(f) != "A" || f.Activated("A") {
		t.Fatalf("a new tab: latest %q, activated %v", latest(f), f.Activated("A"))
	}
	f.Touch("A")
	if !f.Activated("A") {
		t.Fatal("a touched tab is not activated")
	}
	f.HandleEvent(targetEvent("Target.targetInfoChanged", "A", "http://a/next"))
	if f.Activated("A") {
		t.Fatal("a tab that navigated since it was touched is still activated")
	}
	f.Touch("A")
	f.HandleEvent(Message{Method: "Target.targetDestroyed", Params: json.RawMessage(`{"targetId":"A"}`)})
	if f.Activated("A") {
		t.Fatal("a closed tab is still activated")
	}
}

// A tab closed through the caller is forgotten at once, while the browser
// may still list it (Target.closeTarget answers before the target is
// gone): its targetDestroyed must tell the listeners again, or a listener
// that looked too early keeps the closed tab (the progressive surface
// kept focus_tab after the last tab closed).
func TestTheDestructionOfAForgottenTabIsAChange(t *testing.T) {
	f := NewFollower()
	f.HandleEvent(targetEvent("Target.targetCreated", "A", "http://a/"))
	f.Forget("A")
	changed := f.Changed()
	f.HandleEvent(Message{Method: "Target.targetDestroyed", Params: json.RawMessage(`{"targetId":"A"}`)})
	select {
	case <-changed:
	default:
		t.Fatal("the browser's word that a forgotten tab is gone changed nothing for the listeners")
	}
	// Once: a second word about it, or one about a target never known, is no change.
	changed = f.Changed()
	f.HandleEvent(Message{Method: "Target.targetDestroyed", Params: json.RawMessage(`{"targetId":"A"}`)})
	f.HandleEvent(Message{Method: "Target.targetDestroyed", Params: json.RawMessage(`{"targetId":"Z"}`)})
	select {
	case <-changed:
		t.Fatal("a target destroyed twice, or never known, was told as a change")
	default:
	}
}
