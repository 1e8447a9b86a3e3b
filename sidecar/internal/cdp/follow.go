package cdp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// Target is what the Target domain says about one target.
type Target struct {
	ID       string `json:"targetId"`
	Type     string `json:"type"`
	Title    string `json:"title"`
	URL      string `json:"url"`
	Attached bool   `json:"attached"`
	OpenerID string `json:"openerId,omitempty"`
	// ParentID: a frame's target (an out-of-process iframe) names the
	// target whose document holds it.
	ParentID string `json:"parentId,omitempty"`
	// BrowserContextID is the browser context the target lives in (its
	// cookies and storage); see Contexts.
	BrowserContextID string `json:"browserContextId,omitempty"`
}

// Update is what one Target event changed.
type Update struct {
	Kind   string // "created", "changed", "destroyed"; "" for an event that is not about targets
	Target Target // as it is now (as it was, for destroyed)
	Prev   Target // as it was before a change
}

// Follower keeps a browser's targets from the Target domain's events, and
// which were active last: a target counts as active when it appears, when
// it navigates, and when someone brings it to the front (Touch). The
// coordinator's tabs and VS Code's browser view both follow targets this
// way; what counts as a tab is theirs to say.
type Follower struct {
	mu      sync.Mutex
	targets map[string]Target
	rec     Recency[string] // target ids by activity; held: opened in the background (Background)
	changed chan struct{}
	// pending counts background opens whose page has not appeared yet,
	// claimed the pages that appeared for them.
	claimed map[string]bool
	pending int
	// touched: the targets whose place in the order came from Touch (an
	// activation: someone brought the tab to the front), not from
	// appearing or navigating.
	touched map[string]bool
	// forgotten: targets dropped before the browser said they were gone
	// (Forget, at a close): their targetDestroyed is still a change.
	forgotten map[string]bool
}

// NewFollower makes an empty follower; feed it events with HandleEvent.
func NewFollower() *Follower {
	return &Follower{targets: map[string]Target{}, claimed: map[string]bool{}, touched: map[string]bool{}, forgotten: map[string]bool{}, changed: make(chan struct{})}
}

// Caller is what Follow needs of a connection or peer.
type Caller interface {
	Call(ctx context.Context, session, method string, params any) (json.RawMessage, error)
}

// Follow turns target discovery on for c, whose events must reach
// HandleEvent: the browser then announces every target there is.
func (f *Follower) Follow(ctx context.Context, c Caller) error {
	_, err := c.Call(ctx, "", "Target.setDiscoverTargets", map[string]any{"discover": true})
	return err
}

// HandleEvent takes one event; others than Target's are ignored.
func (f *Follower) HandleEvent(m Message) Update {
	var ev struct {
		TargetInfo Target `json:"targetInfo"`
		TargetID   string `json:"targetId"`
	}
	switch m.Method {
	case "Target.targetCreated", "Target.targetInfoChanged", "Target.targetDestroyed":
	default:
		return Update{}
	}
	if json.Unmarshal(m.Params, &ev) != nil {
		return Update{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if m.Method == "Target.targetDestroyed" {
		t, known := f.removeLocked(ev.TargetID)
		if !known {
			if f.forgotten[ev.TargetID] {
				// A closed tab the browser still listed when Forget told
				// the listeners (a close answers before the target is
				// gone): they look again now that it is.
				delete(f.forgotten, ev.TargetID)
				f.notifyLocked()
			}
			return Update{}
		}
		return Update{Kind: "destroyed", Target: t, Prev: t}
	}
	t := ev.TargetInfo
	if t.ID == "" {
		return Update{}
	}
	prev, known := f.targets[t.ID]
	f.targets[t.ID] = t
	if !known && f.pending > 0 && IsPage(t) {
		// The page a background open waits for (the browser announces it
		// before it answers the open).
		f.pending--
		f.rec.Hold(t.ID)
		f.claimed[t.ID] = true
	}
	// A new target, or one that navigated, is where the work is; one held
	// (opened in the background) loads its first page without becoming so.
	switch {
	case !known && f.rec.Held(t.ID):
	case !known:
		f.rec.Touch(t.ID)
		delete(f.touched, t.ID)
	case prev.URL != t.URL:
		if f.rec.Navigated(t.ID, prev.URL, t.URL) {
			delete(f.touched, t.ID)
		}
	}
	if !known || prev != t {
		f.notifyLocked()
	}
	kind := "changed"
	if !known {
		kind = "created"
	}
	return Update{Kind: kind, Target: t, Prev: prev}
}

// Touch marks a target as the most recently active one.
func (f *Follower) Touch(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.targets[id]; !ok {
		return
	}
	f.rec.Touch(id)
	f.touched[id] = true
	f.notifyLocked()
}

// Activated says whether target id is where it is in the order of activity
// because it was brought to the front (Touch), rather than because it
// appeared or navigated since.
func (f *Follower) Activated(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.touched[id]
}

// Background is called before opening a target in the background: the
// page that appears for it is held out of the order of activity while it
// loads its first page (it becomes active when touched, or when it
// navigates after that). Call done with the id the browser gave ("" when
// the open failed). A page another client opens at the same moment may be
// held instead: it becomes active at its next navigation.
func (f *Follower) Background() (done func(id string)) {
	f.mu.Lock()
	f.pending++
	f.mu.Unlock()
	var once sync.Once
	return func(id string) {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.claimed[id] {
				delete(f.claimed, id)
				return
			}
			if f.pending > 0 {
				f.pending--
			}
			if id == "" {
				return
			}
			if t, ok := f.targets[id]; !ok || IsBlank(t.URL) {
				f.rec.Hold(id)
			}
			f.rec.Demote(id)
			f.notifyLocked()
		})
	}
}

// Forget drops a target known to be gone (closed through the caller)
// before the browser's event says so.
func (f *Follower) Forget(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, known := f.removeLocked(id); known {
		f.forgotten[id] = true
	}
}

// removeLocked drops target id, if known; f.mu held.
func (f *Follower) removeLocked(id string) (Target, bool) {
	t, known := f.targets[id]
	if !known {
		return Target{}, false
	}
	delete(f.targets, id)
	f.rec.Forget(id)
	delete(f.claimed, id)
	delete(f.touched, id)
	f.notifyLocked()
	return t, true
}

// Demote takes a target out of the order of activity (it stays known): it
// is no candidate until it is active again.
func (f *Follower) Demote(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rec.Demote(id)
	f.notifyLocked()
}

func (f *Follower) notifyLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// Changed is closed at the next change of the targets or their order.
func (f *Follower) Changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

// Get returns one target.
func (f *Follower) Get(id string) (Target, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.targets[id]
	return t, ok
}

// Latest is the most recently active target that match accepts.
func (f *Follower) Latest(match func(Target) bool) (Target, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	order := f.rec.Order()
	for i := len(order) - 1; i >= 0; i-- {
		if t, ok := f.targets[order[i]]; ok && match(t) {
			return t, true
		}
	}
	return Target{}, false
}

// Targets lists the known targets that match accepts, most recently active
// first, then the others.
func (f *Follower) Targets(match func(Target) bool) []Target {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []Target{}
	seen := map[string]bool{}
	order := f.rec.Order()
	for i := len(order) - 1; i >= 0; i-- {
		if t, ok := f.targets[order[i]]; ok && match(t) {
			out = append(out, t)
			seen[t.ID] = true
		}
	}
	var rest []Target
	for id, t := range f.targets {
		if !seen[id] && match(t) {
			rest = append(rest, t)
		}
	}
	slices.SortFunc(rest, func(a, b Target) int { return strings.Compare(a.ID, b.ID) })
	return append(out, rest...)
}

// IsPage: a top-level page (a tab).
func IsPage(t Target) bool { return t.Type == "page" }
