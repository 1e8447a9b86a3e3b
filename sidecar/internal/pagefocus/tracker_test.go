package pagefocus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

// The focus logic against a fake browser and fake engines: what focus does
// when tabs come, go, navigate and crash, and when the browser changes.

type fakeBrowser struct {
	mu      sync.Mutex
	tabs    []backend.Tab // open tabs
	front   string        // the tab in front ("" none)
	backend string
	subs    []chan backend.Event
	engines map[string][]*fakeEngine // by tab, in the order they were made
	failing map[string]int           // tab → engine starts that fail
	attachs atomic.Int32
	active  atomic.Int32 // sessions open now
	maxOpen atomic.Int32
	// gate, when set, holds each engine start until it is closed; entered
	// has a value for each start it holds.
	gate    chan struct{}
	entered chan string
	away    error // Disconnected's answer
}

func newFakeBrowser() *fakeBrowser {
	return &fakeBrowser{backend: "1", engines: map[string][]*fakeEngine{}, failing: map[string]int{}}
}

func (b *fakeBrowser) FrontTab() (backend.Tab, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.tabs {
		if t.ID == b.front {
			return t, true
		}
	}
	return backend.Tab{}, false
}

func (b *fakeBrowser) RunningTabs(context.Context) ([]backend.Tab, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.backend == "" {
		return nil, backend.ErrNotRunning
	}
	return append([]backend.Tab(nil), b.tabs...), nil
}

func (b *fakeBrowser) BackendKey() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.backend
}

func (b *fakeBrowser) Disconnected() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.away
}

func (b *fakeBrowser) Subscribe() (<-chan backend.Event, func()) {
	ch := make(chan backend.Event, 64)
	b.mu.Lock()
	b.subs = append(b.subs, ch)
	b.mu.Unlock()
	return ch, func() {}
}

func (b *fakeBrowser) AttachTab(_ context.Context, id string, onEvent func(string, json.RawMessage)) (Session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.backend == "" {
		return nil, backend.ErrNotRunning
	}
	for _, t := range b.tabs {
		if t.ID == id {
			b.attachs.Add(1)
			if n := b.active.Add(1); n > b.maxOpen.Load() {
				b.maxOpen.Store(n)
			}
			return &fakeSession{b: b, tab: id, onEvent: onEvent, done: make(chan struct{})}, nil
		}
	}
	return nil, fmt.Errorf("%w %q", backend.ErrNoTab, id)
}

// emit sends an event to the tracker, as the coordinator does.
func (b *fakeBrowser) emit(kind backend.EventKind) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ch := range b.subs {
		ch <- backend.Event{Kind: kind}
	}
}

func (b *fakeBrowser) open(id, url string, front bool) {
	b.mu.Lock()
	b.tabs = append(b.tabs, backend.Tab{ID: id, URL: url})
	if front {
		b.front = id
	}
	b.mu.Unlock()
	b.emit(backend.PagesChanged)
}

func (b *fakeBrowser) navigate(id, url string) {
	b.mu.Lock()
	for i := range b.tabs {
		if b.tabs[i].ID == id {
			b.tabs[i].URL = url
		}
	}
	b.front = id // a tab that navigates is where the work is
	for _, e := range b.engines[id] {
		e.setPage(url)
	}
	b.mu.Unlock()
	b.emit(backend.PagesChanged)
}

func (b *fakeBrowser) close(id string, newFront string) {
	b.mu.Lock()
	for i, t := range b.tabs {
		if t.ID == id {
			b.tabs = append(b.tabs[:i], b.tabs[i+1:]...)
			break
		}
	}
	b.front = newFront
	b.mu.Unlock()
	b.emit(backend.PagesChanged)
}

// engine is the live (last made, not closed) engine of a tab.
func (b *fakeBrowser) engine(id string) *fakeEngine {
	b.mu.Lock()
	defer b.mu.Unlock()
	es := b.engines[id]
	if len(es) == 0 {
		return nil
	}
	return es[len(es)-1]
}

type fakeSession struct {
	b       *fakeBrowser
	tab     string
	onEvent func(string, json.RawMessage)
	done    chan struct{}
	once    sync.Once
}

// Call answers the fake engine's one question: which tab is this?
func (s *fakeSession) Call(context.Context, string, any) (json.RawMessage, error) {
	return json.Marshal(s.tab)
}
func (s *fakeSession) Done() <-chan struct{} { return s.done }
func (s *fakeSession) Close() {
	s.once.Do(func() { s.b.active.Add(-1) })
}

type fakeEngine struct {
	b      *fakeBrowser
	tab    string
	mu     sync.Mutex
	url    string
	tools  []pagetools.Tool
	change chan struct{}
	closed bool
	closes int
	sess   pagetools.Session
}

func (e *fakeEngine) HandleEvent(string, json.RawMessage) {}
func (e *fakeEngine) Start(ctx context.Context) error {
	raw, err := e.sess.Call(ctx, "whoami", nil)
	if err != nil {
		return err
	}
	_ = json.Unmarshal(raw, &e.tab)
	e.setPage(e.b.url(e.tab))
	<-e.change // not a change: the first look
	e.b.mu.Lock()
	e.b.engines[e.tab] = append(e.b.engines[e.tab], e)
	fail := e.b.failing[e.tab] > 0
	if fail {
		e.b.failing[e.tab]--
	}
	gate := e.b.gate
	e.b.mu.Unlock()
	if gate != nil {
		e.b.entered <- e.tab
		<-gate
	}
	if fail {
		return errors.New("the document went away under the start")
	}
	return nil
}
func (e *fakeEngine) Tools() []pagetools.Tool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]pagetools.Tool(nil), e.tools...)
}
func (e *fakeEngine) Changed() <-chan struct{} { return e.change }
func (e *fakeEngine) Page() (string, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.url, ""
}
func (e *fakeEngine) View() pagetools.View {
	e.mu.Lock()
	defer e.mu.Unlock()
	return pagetools.View{Doc: pagetools.DocumentID(e.tab + "@" + e.url), URL: e.url, Tools: append([]pagetools.Tool(nil), e.tools...)}
}
func (e *fakeEngine) Discover(context.Context) ([]pagetools.Tool, error) { return e.Tools(), nil }
func (e *fakeEngine) CallOn(_ context.Context, doc pagetools.Document, name string, _ map[string]any) (*pagetools.Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, pagetools.ErrClosed
	}
	if doc.ID != "" && string(doc.ID) != e.tab+"@"+e.url {
		return nil, &pagetools.Error{Kind: pagetools.ErrNavigatedAway, Msg: "navigated to " + e.url}
	}
	return &pagetools.Result{Tool: name, URL: e.url}, nil
}
func (e *fakeEngine) Dialog() (pagetools.Dialog, bool) { return pagetools.Dialog{}, false }
func (e *fakeEngine) HandleDialog(context.Context, bool, *string) (*pagetools.Result, error) {
	return nil, &pagetools.Error{Kind: pagetools.ErrNoDialog, Msg: "no dialog"}
}
func (e *fakeEngine) Close(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	e.closes++
	return nil
}

// setPage: the page became url, with one tool named after it.
func (e *fakeEngine) setPage(url string) {
	e.mu.Lock()
	e.url = url
	e.tools = []pagetools.Tool{{Name: "tool_of_" + url}}
	e.mu.Unlock()
	select {
	case e.change <- struct{}{}:
	default:
	}
}

func (e *fakeEngine) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// track starts a tracker on b whose engines are fakes.
func track(t *testing.T, b *fakeBrowser, cfg Config) *Tracker {
	t.Helper()
	cfg.NewEngine = func(sess pagetools.Session, _ pagetools.Config) Engine {
		return &fakeEngine{b: b, sess: sess, change: make(chan struct{}, 1)}
	}
	tr := New(b, cfg, true)
	t.Cleanup(tr.Close)
	return tr
}

func (b *fakeBrowser) url(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.tabs {
		if t.ID == id {
			return t.URL
		}
	}
	return ""
}

func sync_(t *testing.T, tr *Tracker) Focus {
	t.Helper()
	if err := tr.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tr.Snapshot()
}

func TestFollowMovesWithTheTabInFront(t *testing.T) {
	b := newFakeBrowser()
	tr := track(t, b, Config{Follow: true})
	if f := sync_(t, tr); f.TabID != "" {
		t.Fatalf("focused with no tabs: %+v", f)
	}
	b.open("A", "a.html", true)
	fa := waitFocus(t, tr, "A in front", func(f Focus) bool { return f.TabID == "A" })
	if len(fa.Tools) != 1 || fa.Tools[0].Name != "tool_of_a.html" || fa.URL != "a.html" {
		t.Fatalf("A's focus: %+v", fa)
	}
	engA := b.engine("A")

	// A navigates: the same engine follows; focus does not move.
	b.navigate("A", "a2.html")
	f := waitFocus(t, tr, "A's new page", func(f Focus) bool { return len(f.Tools) == 1 && f.Tools[0].Name == "tool_of_a2.html" })
	if f.Gen != fa.Gen || b.engine("A") != engA || engA.isClosed() {
		t.Fatalf("a navigation restarted the engine: gen %d → %d", fa.Gen, f.Gen)
	}

	// A tab opened behind does not move focus; one opened in front does.
	b.open("B", "b.html", false)
	if f := sync_(t, tr); f.TabID != "A" {
		t.Fatalf("a tab opened behind took the focus: %+v", f)
	}
	b.open("C", "c.html", true)
	waitFocus(t, tr, "C in front", func(f Focus) bool { return f.TabID == "C" })
	if !engA.isClosed() {
		t.Fatal("A's engine still runs after focus moved")
	}

	// C closes; A is in front again but was only behind it: nothing is
	// focused until a tab becomes front.
	b.close("C", "A")
	waitFocus(t, tr, "C closed", func(f Focus) bool { return f.TabID == "" })
	if f := sync_(t, tr); f.TabID != "" {
		t.Fatalf("the tab behind the closed one took the focus: %+v", f)
	}
	b.navigate("B", "b2.html")
	waitFocus(t, tr, "B navigated", func(f Focus) bool { return f.TabID == "B" && f.URL == "b2.html" })

	// The browser is switched: the new one's tab in front is focused.
	b.mu.Lock()
	b.backend, b.tabs, b.front = "2", []backend.Tab{{ID: "Z", URL: "z.html"}}, "Z"
	b.mu.Unlock()
	b.emit(backend.StateChanged)
	waitFocus(t, tr, "the new browser's tab", func(f Focus) bool { return f.TabID == "Z" })

	// The browser stops: nothing is focused.
	b.mu.Lock()
	b.backend, b.tabs, b.front = "", nil, ""
	b.mu.Unlock()
	b.emit(backend.StateChanged)
	waitFocus(t, tr, "stopped", func(f Focus) bool { return f.TabID == "" })
	if _, err := tr.CallShown(context.Background(), Shown{TabID: "Z", URL: "z.html"}, "tool_of_z.html", nil); !errors.Is(err, ErrNoFocus) || !errors.Is(err, ErrMoved) {
		t.Fatalf("a call with nothing focused: %v", err)
	}
}

func TestClosedThroughTheTabTools(t *testing.T) {
	b := newFakeBrowser()
	tr := track(t, b, Config{Follow: true})
	b.open("A", "a.html", true)
	b.open("B", "b.html", true)
	waitFocus(t, tr, "B", func(f Focus) bool { return f.TabID == "B" })
	// coordinator_close_tab closes B: the tab behind it comes to the front
	// (and its event may reach the tracker) before the close has answered.
	done := tr.Closing(context.Background(), "B")
	b.mu.Lock()
	b.tabs, b.front = b.tabs[:1], "A"
	b.mu.Unlock()
	b.emit(backend.PagesChanged)
	if f := sync_(t, tr); f.TabID != "B" {
		t.Fatalf("focus moved while B was closing: %+v", f)
	}
	done(true)
	if f := tr.Snapshot(); f.TabID != "" {
		t.Fatalf("focused after closing the focused tab: %+v", f)
	}
	b.emit(backend.PagesChanged)
	if f := sync_(t, tr); f.TabID != "" {
		t.Fatalf("A took the focus after B closed: %+v", f)
	}
	// A close that failed changes nothing.
	b.open("C", "c.html", true)
	waitFocus(t, tr, "C", func(f Focus) bool { return f.TabID == "C" })
	tr.Closing(context.Background(), "C")(false)
	if f := tr.Snapshot(); f.TabID != "C" {
		t.Fatalf("a failed close unfocused: %+v", f)
	}
}

func TestExplicitFocusOnly(t *testing.T) {
	b := newFakeBrowser()
	tr := track(t, b, Config{})
	b.open("A", "a.html", true)
	b.open("B", "b.html", true)
	if f := sync_(t, tr); f.TabID != "" {
		t.Fatalf("explicit focus followed the tab in front: %+v", f)
	}
	ctx := context.Background()
	f, err := tr.Focus(ctx, "A", "")
	if err != nil || f.TabID != "A" || f.Tools[0].Name != "tool_of_a.html" {
		t.Fatalf("focus A: %+v %v", f, err)
	}
	gen := f.Gen
	if f, err := tr.Focus(ctx, "A", ""); err != nil || f.Gen != gen {
		t.Fatalf("focusing the focused tab again restarted it: %+v %v", f, err)
	}
	if _, err := tr.Focus(ctx, "nope", ""); !errors.Is(err, backend.ErrNoTab) {
		t.Fatalf("focus on an unknown tab: %v", err)
	}
	if f := tr.Snapshot(); f.TabID != "A" || f.Gen != gen || b.engine("A").isClosed() {
		t.Fatalf("a failed focus changed the focus: %+v", f)
	}
	b.navigate("B", "b2.html") // B is in front now: focus stays
	if f := sync_(t, tr); f.TabID != "A" {
		t.Fatalf("focus followed: %+v", f)
	}
	b.close("A", "B")
	waitFocus(t, tr, "A closed", func(f Focus) bool { return f.TabID == "" })
	if f := sync_(t, tr); f.TabID != "" {
		t.Fatalf("explicit focus adopted a tab: %+v", f)
	}
}

func TestAStartThatFailsIsTriedAgain(t *testing.T) {
	b := newFakeBrowser()
	tr := track(t, b, Config{})
	b.open("A", "a.html", true)
	b.failing["A"] = 1
	if f, err := tr.Focus(context.Background(), "A", ""); err != nil || f.TabID != "A" {
		t.Fatalf("one failed start: %+v %v", f, err)
	}
	b.open("B", "b.html", true)
	b.failing["B"] = 2
	if _, err := tr.Focus(context.Background(), "B", ""); err == nil {
		t.Fatal("two failed starts focused the tab")
	}
	if f := tr.Snapshot(); f.TabID != "A" {
		t.Fatalf("a focus that failed changed it: %+v", f)
	}
	if n := b.active.Load(); n != 1 {
		t.Fatalf("%d sessions open, want A's only", n)
	}
}

func TestCrashAndInactive(t *testing.T) {
	b := newFakeBrowser()
	tr := track(t, b, Config{Follow: true})
	b.open("A", "a.html", true)
	waitFocus(t, tr, "A", func(f Focus) bool { return f.TabID == "A" })
	// The page crashes: the tab stays in front, but is not focused again.
	f := tr.current()
	f.onEvent("Inspector.targetCrashed", nil)
	waitFocus(t, tr, "crashed", func(f Focus) bool { return f.TabID == "" })
	b.emit(backend.PagesChanged)
	if f := sync_(t, tr); f.TabID != "" {
		t.Fatalf("the crashed tab was focused again: %+v", f)
	}

	b.open("B", "b.html", true)
	waitFocus(t, tr, "B", func(f Focus) bool { return f.TabID == "B" })
	if err := tr.SetActive(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if f := tr.Snapshot(); f.TabID != "" {
		t.Fatalf("inactive but focused: %+v", f)
	}
	b.open("C", "c.html", true)
	if f := sync_(t, tr); f.TabID != "" {
		t.Fatalf("inactive but followed: %+v", f)
	}
	if _, err := tr.Focus(context.Background(), "C", ""); !errors.Is(err, ErrNoFocus) {
		t.Fatalf("focus while inactive: %v", err)
	}
	if err := tr.SetActive(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if f := tr.Snapshot(); f.TabID != "C" {
		t.Fatalf("active again: %+v", f)
	}
}

func TestSkippedTabs(t *testing.T) {
	b := newFakeBrowser()
	tr := track(t, b, Config{Follow: true, Skip: func(id string) bool { return id == "blank" }})
	b.open("blank", "about:blank", true)
	if f := sync_(t, tr); f.TabID != "" {
		t.Fatalf("a skipped tab was focused: %+v", f)
	}
	b.open("A", "a.html", true)
	waitFocus(t, tr, "A", func(f Focus) bool { return f.TabID == "A" })
}

func TestPeekIsBounded(t *testing.T) {
	b := newFakeBrowser()
	queued := make(chan struct{}, 8)
	tr := track(t, b, Config{Follow: true, PeekConcurrency: 2, PeekMax: 5, peekQueued: func() { queued <- struct{}{} }})
	var tabs []backend.Tab
	for i := range 8 {
		id := fmt.Sprintf("T%d", i)
		b.open(id, id+".html", i == 0)
		tabs = append(tabs, backend.Tab{ID: id, URL: id + ".html"})
	}
	waitFocus(t, tr, "T0", func(f Focus) bool { return f.TabID == "T0" })
	before := b.attachs.Load()
	// Every peek's engine start holds until the other three peeks wait
	// for a slot: then two look at once, and no more.
	b.mu.Lock()
	b.gate, b.entered = make(chan struct{}), make(chan string, 8)
	b.mu.Unlock()
	peeked := make(chan map[string][]pagetools.Tool, 1)
	go func() { peeked <- tr.Peek(context.Background(), tabs) }()
	guard := time.After(testutil.Guard)
	for range 3 {
		select {
		case <-queued:
		case <-guard:
			t.Fatalf("peeks did not wait for a slot; %d sessions open", b.active.Load())
		}
	}
	for range 2 {
		select {
		case <-b.entered:
		case <-guard:
			t.Fatal("no peek started its engine")
		}
	}
	if n := b.active.Load(); n != 3 { // the focused tab's session and 2 peeks
		t.Fatalf("%d sessions open while 2 peeks look and 3 wait", n)
	}
	b.mu.Lock()
	close(b.gate)
	b.gate = nil
	b.mu.Unlock()
	got := <-peeked
	if len(got) != 6 { // the focused tab, and PeekMax others
		t.Fatalf("peeked %d tabs, want 6: %v", len(got), got)
	}
	if got["T3"][0].Name != "tool_of_T3.html" {
		t.Fatalf("T3's tools: %v", got["T3"])
	}
	if n := b.attachs.Load() - before; n != 5 {
		t.Fatalf("%d attaches for 5 unfocused tabs", n)
	}
	if m := b.maxOpen.Load(); m > 3 { // the focused tab's session and 2 peeks
		t.Fatalf("%d sessions open at once", m)
	}
	if n := b.active.Load(); n != 1 {
		t.Fatalf("%d sessions left open after peeking, want the focused tab's", n)
	}
	// Every look is a new one: a tab whose page changed says so.
	tabs[2].URL = "elsewhere.html"
	b.navigate("T2", "elsewhere.html")
	waitFocus(t, tr, "T2 navigated", func(f Focus) bool { return f.TabID == "T2" })
	tabs[3].URL = "moved.html"
	b.mu.Lock()
	b.tabs[3].URL = "moved.html"
	b.mu.Unlock()
	got = tr.Peek(context.Background(), tabs[:4])
	if got["T3"][0].Name != "tool_of_moved.html" || got["T2"][0].Name != "tool_of_elsewhere.html" {
		t.Fatalf("after navigations: %v", got)
	}
}

// The user's own browser loses its extension and gets it back: its tabs
// vanish (the focused tab's session ends first), calls say why, and when
// the tabs come back (the same ids and pages) the tab in front is focused
// again by itself.
func TestDisconnectedAndBack(t *testing.T) {
	b := newFakeBrowser()
	tr := track(t, b, Config{Follow: true})
	b.open("A", "a.html", true)
	waitFocus(t, tr, "A", func(f Focus) bool { return f.TabID == "A" })
	if err := tr.Unavailable(); err != nil {
		t.Fatalf("unavailable while connected: %v", err)
	}

	// A call under way when the extension goes: it says why, not that
	// focus moved.
	eng := b.engine("A")
	b.mu.Lock()
	b.away = fmt.Errorf("%w: the browser extension disconnected; work resumes by itself when it reconnects", backend.ErrDisconnected)
	b.mu.Unlock()
	_ = eng.Close(context.Background())
	shownA := tr.Snapshot().Shown()
	if _, err := tr.CallShown(context.Background(), shownA, "tool_of_a.html", nil); !errors.Is(err, backend.ErrDisconnected) || errors.Is(err, ErrMoved) {
		t.Fatalf("a call cut short by the disconnection: %v", err)
	}

	// The session ends while the tab is still in front, then the tabs go.
	sess := tr.current().sess.(*fakeSession)
	close(sess.done)
	waitFocus(t, tr, "no focus once the session ended", func(f Focus) bool { return f.TabID == "" })
	b.close("A", "")
	if f := sync_(t, tr); f.TabID != "" {
		t.Fatalf("focused while disconnected: %+v", f)
	}
	_, err := tr.CallShown(context.Background(), shownA, "tool_of_a.html", nil)
	if !errors.Is(err, backend.ErrDisconnected) || errors.Is(err, ErrNoFocus) {
		t.Fatalf("a call while disconnected: %v", err)
	}

	// Back: the same tab, the same page, in front again.
	b.mu.Lock()
	b.away = nil
	b.mu.Unlock()
	b.open("A", "a.html", true)
	f := waitFocus(t, tr, "A again", func(f Focus) bool { return f.TabID == "A" && len(f.Tools) == 1 })
	if b.engine("A") == eng || b.engine("A").isClosed() {
		t.Fatal("the tab came back without an engine of its own")
	}
	if res, err := tr.CallShown(context.Background(), f.Shown(), f.Tools[0].Name, nil); err != nil || res.URL != "a.html" {
		t.Fatalf("a call after the extension came back: %+v %v", res, err)
	}
}

// An explicit focus (the progressive surface) lost to a disconnection comes
// back with the browser; one lost to a tab that closed does not.
func TestExplicitFocusResumes(t *testing.T) {
	b := newFakeBrowser()
	tr := track(t, b, Config{})
	ctx := context.Background()
	b.open("A", "a.html", true)
	b.open("B", "b.html", false)
	if _, err := tr.Focus(ctx, "B", ""); err != nil {
		t.Fatal(err)
	}
	away := func(on bool) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.away = nil
		if on {
			b.away = fmt.Errorf("%w: the browser extension disconnected", backend.ErrDisconnected)
		}
	}

	away(true)
	close(tr.current().sess.(*fakeSession).done)
	b.close("A", "")
	b.close("B", "")
	waitFocus(t, tr, "no focus while disconnected", func(f Focus) bool { return f.TabID == "" })
	away(false)
	b.open("A", "a.html", true) // the tab in front is not the one focused
	b.open("B", "b.html", false)
	waitFocus(t, tr, "B again", func(f Focus) bool { return f.TabID == "B" })

	// Closed, not disconnected: it stays unfocused, whatever comes back.
	b.close("B", "A")
	waitFocus(t, tr, "B closed", func(f Focus) bool { return f.TabID == "" })
	b.open("B", "b.html", false)
	if f := sync_(t, tr); f.TabID != "" {
		t.Fatalf("a closed tab was focused again: %+v", f)
	}
}
