package pagefocus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
)

// Config configures a Tracker. Zero values mean the defaults given.
type Config struct {
	// Follow: the focused tab is the tab in front (see the package doc);
	// otherwise focus moves by Focus only.
	Follow bool
	// Engine configures every engine the tracker starts.
	Engine pagetools.Config
	// NewEngine makes an engine on a tab's session; nil is NewEngine (the
	// real one).
	NewEngine func(pagetools.Session, pagetools.Config) Engine
	// Skip names tabs focus never follows to (the progressive surface's
	// hidden blank tab); nil skips none.
	Skip func(tabID string) bool
	// StartTimeout bounds attaching to a tab and starting its engine
	// (default 10 s); SettleTimeout how long Focus waits for the tab's page
	// to load and its tools to be known (default 15 s).
	StartTimeout, SettleTimeout time.Duration
	// Peeks (the tools of unfocused tabs, found anew at every ask: a page
	// may have changed its forms since): at most PeekConcurrency at a time
	// (default 4), PeekMax tabs per call (default 24), each within
	// PeekTimeout (default 4 s).
	PeekConcurrency, PeekMax int
	PeekTimeout              time.Duration
	Logger                   *slog.Logger

	// peekQueued, in tests, is called when a peek waits for a free slot.
	peekQueued func()
}

func (c Config) withDefaults() Config {
	if c.NewEngine == nil {
		c.NewEngine = NewEngine
	}
	dur := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	num := func(i *int, v int) {
		if *i <= 0 {
			*i = v
		}
	}
	dur(&c.StartTimeout, 10*time.Second)
	dur(&c.SettleTimeout, 15*time.Second)
	dur(&c.PeekTimeout, 4*time.Second)
	num(&c.PeekConcurrency, 4)
	num(&c.PeekMax, 24)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Engine.Logger == nil {
		c.Engine.Logger = c.Logger
	}
	return c
}

// Focus is the focused tab and its tools, as a snapshot.
type Focus struct {
	TabID string // "" when no tab is focused
	URL   string
	Title string
	Tools []pagetools.Tool
	// Doc is the document the tools belong to (Shown binds a call to it).
	Doc pagetools.DocumentID
	// Gen changes every time focus moves (to a tab, or to none).
	Gen uint64
	// Dialog is the JavaScript dialog open on the page, if any: until it
	// is answered (HandleDialog) the page does nothing else.
	Dialog *pagetools.Dialog
}

// Shown is a tab's page as a caller was shown it (with its tools): a call
// made from it runs only while that tab is focused and shows that
// document (CallShown).
type Shown struct {
	TabID string
	Doc   pagetools.DocumentID
	URL   string
}

// Shown is what f shows.
func (f Focus) Shown() Shown { return Shown{TabID: f.TabID, Doc: f.Doc, URL: f.URL} }

// Errors callers branch on.
var (
	// ErrNoFocus: no tab is focused.
	ErrNoFocus = errors.New("no tab is focused")
	// ErrClosed: the tracker was closed.
	ErrClosed = errors.New("page tools are shutting down")
	// ErrMoved: focus moved to another tab while a page tool ran.
	ErrMoved = errors.New("focus moved to another tab during the call")
)

// Tracker keeps the focused tab and the engine on it.
//
// One goroutine, the loop, owns every piece of the tracker's state: it
// alone changes the focus, and callers ask it through requests, which it
// answers one at a time. What callers read without waiting (Snapshot, and
// the focused tab a call runs on) is a view the loop publishes whenever
// the focus changes: a value no one changes afterwards.
type Tracker struct {
	b   Browser
	cfg Config
	log *slog.Logger

	ctx     context.Context // ends with Close
	cancel  context.CancelFunc
	wg      sync.WaitGroup // the loop
	reqs    chan request
	changed chan struct{} // capacity 1: focus or the focused tools changed
	events  <-chan backend.Event
	unsub   func()
	view    atomic.Pointer[view] // the loop's latest

	// The loop's own.
	cur       *focused
	gen       uint64
	active    bool
	lastFront frontKey
	closing   int // closes under way through the coordinator (Closing)
	// resume is the tab an explicit focus lost because the browser was
	// disconnected (Unavailable), on the backend resumeOn: focused again
	// when it is back.
	resume, resumeOn string
}

// view is the focus as the loop last published it.
type view struct {
	cur *focused // nil: no tab is focused
	gen uint64
}

// frontKey is the tab in front as the loop last acted on it: a tab that
// becomes front, navigates there, or is brought there (activated), is a new
// key.
type frontKey struct {
	id, url   string
	activated bool
}

// A request is a caller's ask of the loop; the loop answers on reply
// (capacity 1: the loop never waits for a caller that gave up).
type request struct {
	op    op
	ctx   context.Context // the caller's, for the work it asks for
	id    string          // the tab (focus, closing, closed)
	on    bool            // setActive: active; closed: whether the tab closed
	held  bool            // closed: its closing was counted
	reply chan error
}

type op int

const (
	opFocus     op = iota // focus tab id
	opSetActive           // turn focusing on or off
	opSync                // catch up with the browser
	opClosing             // a close of tab id through the coordinator begins
	opClosed              // and ends (on: it closed)
)

// New starts a tracker; active says whether it focuses tabs from the start
// (see SetActive). Close it.
func New(b Browser, cfg Config, active bool) *Tracker {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	t := &Tracker{
		b: b, cfg: cfg, log: cfg.Logger,
		ctx: ctx, cancel: cancel,
		reqs:    make(chan request),
		changed: make(chan struct{}, 1),
		active:  active,
	}
	t.view.Store(&view{})
	t.events, t.unsub = b.Subscribe()
	t.wg.Add(1)
	go t.loop()
	return t
}

// Close unfocuses, stops the engine and waits for the tracker's goroutine.
func (t *Tracker) Close() {
	t.cancel()
	t.wg.Wait()
	t.unsub()
}

// Changed receives a value when focus moved or the focused tab's tools
// changed (several changes make one); read Snapshot then.
func (t *Tracker) Changed() <-chan struct{} { return t.changed }

func (t *Tracker) signal() {
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// Snapshot is the focused tab and its tools now.
func (t *Tracker) Snapshot() Focus {
	v := t.view.Load()
	if v.cur == nil {
		return Focus{Gen: v.gen}
	}
	return v.cur.snapshot(v.gen)
}

// current is the focused tab as the loop last published it.
func (t *Tracker) current() *focused { return t.view.Load().cur }

// ask has the loop answer r and waits for its answer.
func (t *Tracker) ask(ctx context.Context, r request) error {
	r.ctx, r.reply = ctx, make(chan error, 1)
	select {
	case t.reqs <- r:
	case <-ctx.Done():
		return ctx.Err()
	case <-t.ctx.Done():
		return ErrClosed
	}
	select {
	case err := <-r.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *Tracker) loop() {
	defer t.wg.Done()
	defer t.setFocus(nil, "shutting down")
	if t.active && t.cfg.Follow {
		t.follow()
	}
	events := t.events
	for {
		var changed, crashed, done <-chan struct{}
		f := t.cur
		if f != nil {
			changed, crashed, done = f.eng.Changed(), f.crashed, f.sess.Done()
		}
		select {
		case <-t.ctx.Done():
			return
		case r := <-t.reqs:
			r.reply <- t.answer(r)
		case ev, ok := <-events:
			if !ok {
				events = nil // the coordinator closed; requests are still answered
				t.setFocus(nil, "the coordinator closed")
				continue
			}
			t.onEvent(ev)
		case <-changed:
			t.log.Debug("page tools: the focused tab's tools changed", "tab", f.tab.ID)
			t.signal()
		case <-crashed:
			t.lost(f, "the tab crashed")
		case <-done:
			t.lost(f, "its session ended")
		}
	}
}

// answer does what r asks, on the loop.
func (t *Tracker) answer(r request) error {
	switch r.op {
	case opFocus:
		return t.focus(r.ctx, r.id)
	case opSetActive:
		t.setActive(r.on)
	case opSync:
		t.catchUp(true)
	case opClosing:
		t.closing++
	case opClosed:
		t.closed(r)
	}
	return nil
}

// SetActive turns focusing on or off: off unfocuses and keeps no tab
// focused (the progressive surface before connect_browser).
func (t *Tracker) SetActive(ctx context.Context, active bool) error {
	return t.ask(ctx, request{op: opSetActive, on: active})
}

func (t *Tracker) setActive(active bool) {
	was := t.active
	t.active = active
	switch {
	case !active:
		t.resume = ""
		t.setFocus(nil, "page tools are off")
	case !was && t.cfg.Follow:
		t.lastFront = frontKey{}
		t.follow()
	}
}

// onEvent handles one coordinator event: the browser went or changed, or
// its tabs did.
func (t *Tracker) onEvent(ev backend.Event) {
	t.catchUp(ev.Kind == backend.PagesChanged)
}

// catchUp brings focus up to date with the browser: a browser that changed
// leaves no tab focused, a followed focus follows, and an explicitly
// focused tab that is gone (when tabsChanged) is let go, kept to be
// focused again if it went with a disconnection.
func (t *Tracker) catchUp(tabsChanged bool) {
	if !t.active {
		return
	}
	if f := t.cur; f != nil && f.backend != t.b.BackendKey() {
		// The browser behind the focused tab stopped, restarted or was
		// switched: the new one's tab in front is taken as it comes.
		t.setFocus(nil, "the browser changed")
		t.lastFront = frontKey{}
	}
	if t.cfg.Follow {
		t.follow()
		return
	}
	if f := t.cur; f != nil && tabsChanged && !t.exists(f.tab.ID) {
		t.keepForResume(f)
		t.setFocus(nil, "the tab closed")
	}
	t.resumeFocus()
}

// keepForResume remembers an explicitly focused tab that goes because the
// browser was disconnected (its tabs vanish with it), to focus it again
// when it is back. Following focus needs none of it: the tab in front
// comes back in front.
func (t *Tracker) keepForResume(f *focused) {
	if !t.cfg.Follow && t.b.Disconnected() != nil {
		t.resume, t.resumeOn = f.tab.ID, f.backend
	}
}

// resumeFocus focuses the tab kept by keepForResume once the browser is
// back and the tab with it.
func (t *Tracker) resumeFocus() {
	if t.resume != "" && t.b.BackendKey() != t.resumeOn {
		t.resume = "" // the browser is gone (stopped, switched), not only disconnected
	}
	if t.resume == "" || t.cur != nil || t.b.Disconnected() != nil || !t.exists(t.resume) {
		return
	}
	id := t.resume
	t.resume = ""
	nf, err := t.open(t.ctx, id)
	if err != nil {
		t.log.Debug("page tools: cannot focus again the tab focused before the disconnection", "tab", id, "err", err)
		return
	}
	t.setFocus(nf, "the browser is connected again")
}

// follow moves focus to the tab in front when a tab has become front since
// the last look.
func (t *Tracker) follow() {
	if t.closing > 0 {
		// A tab is being closed: what comes to the front meanwhile was
		// only behind it (Closing).
		return
	}
	key, front, ok := t.front()
	if key == t.lastFront {
		return
	}
	t.lastFront = key
	f := t.cur
	switch {
	case f != nil && ok && f.tab.ID == front.ID:
		return // the focused tab navigated: its engine follows
	case f != nil && !t.exists(f.tab.ID):
		// The focused tab closed: no tab is focused until one becomes
		// front (another tab in front now only was behind it).
		t.setFocus(nil, "the tab closed")
		return
	case !ok:
		return
	case front.OpenerID != "" && !front.Activated:
		// A tab a page opened (a popup, a link with a target) is in front
		// because it appeared or navigated: the page's doing, not the
		// agent's or the user's. It is focused once someone brings it to
		// the front (Focus; the user's click in their own browser).
		t.log.Debug("page tools: a tab a page opened does not take the focus by itself", "tab", front.ID, "opener", front.OpenerID)
		return
	}
	nf, err := t.open(t.ctx, front.ID)
	if err != nil {
		t.log.Debug("page tools: cannot look at the tab in front", "tab", front.ID, "err", err)
		t.setFocus(nil, "the tab in front cannot be attached")
		return
	}
	t.setFocus(nf, "the tab came to the front")
}

// front is the tab in front, unless it is one focus never goes to.
func (t *Tracker) front() (frontKey, backend.Tab, bool) {
	tab, ok := t.b.FrontTab()
	if !ok || t.cfg.Skip != nil && t.cfg.Skip(tab.ID) {
		return frontKey{}, backend.Tab{}, false
	}
	return frontKey{tab.ID, tab.URL, tab.Activated}, tab, true
}

// exists asks the browser whether a tab is still open.
func (t *Tracker) exists(id string) bool {
	ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
	defer cancel()
	tabs, err := t.b.RunningTabs(ctx)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(tabs, func(tab backend.Tab) bool { return tab.ID == id })
}

// lost: the focused tab's session ended or the tab crashed.
func (t *Tracker) lost(f *focused, why string) {
	if t.cur != f {
		return
	}
	t.keepForResume(f)
	t.setFocus(nil, why)
	if t.cfg.Follow {
		// A crashed tab stays in front: do not go straight back to it.
		t.lastFront, _, _ = t.front()
	}
}

// setFocus makes f the focused tab (nil: none), closing the engine that was
// there, and publishes it. Only the loop calls it.
func (t *Tracker) setFocus(f *focused, why string) {
	old := t.cur
	if old == nil && f == nil {
		return
	}
	t.cur = f
	t.gen++
	t.view.Store(&view{cur: f, gen: t.gen})
	if f != nil {
		t.log.Debug("page tools: focus", "tab", f.tab.ID, "why", why)
	} else {
		t.log.Debug("page tools: no tab focused", "why", why)
	}
	if old != nil {
		old.close()
	}
	t.signal()
}

// open attaches to a tab and starts an engine on it. A start that fails
// (the page replaced its document under it) is tried once more.
func (t *Tracker) open(ctx context.Context, id string) (*focused, error) {
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var f *focused
		if f, err = t.attach(ctx, id); err == nil {
			return f, nil
		}
		if errors.Is(err, backend.ErrNoTab) || errors.Is(err, backend.ErrNotRunning) || ctx.Err() != nil {
			break
		}
	}
	return nil, err
}

func (t *Tracker) attach(ctx context.Context, id string) (*focused, error) {
	ctx, cancel := context.WithTimeout(ctx, t.cfg.StartTimeout)
	defer cancel()
	late := &lateSession{}
	f := &focused{
		tab:     backend.Tab{ID: id},
		backend: t.b.BackendKey(),
		wake:    make(chan struct{}),
		crashed: make(chan struct{}),
	}
	f.eng = t.cfg.NewEngine(late, t.cfg.Engine)
	sess, err := t.b.AttachTab(ctx, id, f.onEvent)
	if err != nil {
		return nil, err
	}
	late.set(sess)
	f.sess = sess
	// Inspector.targetCrashed comes with the Inspector domain.
	_, _ = sess.Call(ctx, "Inspector.enable", nil)
	if err := f.eng.Start(ctx); err != nil {
		f.close()
		return nil, fmt.Errorf("page tools: start on tab %s: %w", id, err)
	}
	return f, nil
}

// Focus focuses the tab with this id (its engine started before the old
// one stops: a tab that cannot be attached changes nothing), then waits,
// bounded, until its page has loaded and its tools are known. wantURL,
// when not blank, is the page the tab is loading (a tab just opened): the
// wait lasts until the tab has left its blank first document.
func (t *Tracker) Focus(ctx context.Context, id, wantURL string) (Focus, error) {
	if err := t.ask(ctx, request{op: opFocus, id: id}); err != nil {
		return Focus{}, err
	}
	return t.settle(ctx, id, wantURL), nil
}

// focus focuses tab id, unless it is focused already.
func (t *Tracker) focus(ctx context.Context, id string) error {
	if !t.active {
		return ErrNoFocus
	}
	if t.cur != nil && t.cur.tab.ID == id {
		return nil
	}
	nf, err := t.open(ctx, id)
	if err != nil {
		return err
	}
	t.resume = "" // asked for another
	t.setFocus(nf, "asked for")
	if t.cfg.Follow {
		t.lastFront, _, _ = t.front()
	}
	return nil
}

// settle waits until the focused tab id has left a blank first document
// (when wantURL is not blank) and its tools are current, and answers the
// focus then.
func (t *Tracker) settle(ctx context.Context, id, wantURL string) Focus {
	f := t.current()
	if f == nil || f.tab.ID != id {
		return t.Snapshot() // focus has moved on
	}
	ctx, cancel := context.WithTimeout(ctx, t.cfg.SettleTimeout)
	defer cancel()
	f.load(ctx, wantURL)
	return t.Snapshot()
}

// Sync brings focus up to date with the browser now (rather than at the
// next event): an answer that says which tab is focused is then true.
func (t *Tracker) Sync(ctx context.Context) error {
	return t.ask(ctx, request{op: opSync})
}

// Closing is called before a tab is closed through the coordinator, and
// the function it returns after, with whether the tab closed. A focused tab
// that closed leaves no tab focused, even where another is in front now:
// that one was only behind it, so focus does not go there by itself.
func (t *Tracker) Closing(ctx context.Context, id string) (done func(closed bool)) {
	held := t.ask(ctx, request{op: opClosing, id: id}) == nil
	return func(closed bool) {
		_ = t.ask(t.ctx, request{op: opClosed, id: id, on: closed, held: held})
	}
}

// closed: a close through the coordinator ended (Closing).
func (t *Tracker) closed(r request) {
	if r.held {
		t.closing--
	}
	if f := t.cur; r.on && f != nil && f.tab.ID == r.id {
		t.setFocus(nil, "the tab was closed")
	}
	if t.cfg.Follow {
		t.lastFront, _, _ = t.front()
	}
}

// CallShown runs a page tool of the page shown: only while its tab is the
// focused tab (else a *MovedError) and shows the same document (else the
// engine's ErrNavigatedAway); nothing is ever sent to another tab or page.
// While the browser cannot be worked in (Unavailable), a call says so, also
// one that it cut short.
func (t *Tracker) CallShown(ctx context.Context, shown Shown, name string, args map[string]any) (*pagetools.Result, error) {
	f := t.current()
	if f == nil {
		if err := t.Unavailable(); err != nil {
			if shown.URL != "" {
				name += " (shown for the tab at " + shown.URL + ")"
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if shown.TabID == "" {
			return nil, ErrNoFocus
		}
	}
	if f == nil || f.tab.ID != shown.TabID {
		// Focus may not have caught up with the browser yet (the tab shown
		// just came to the front): bring it up to date, then look again.
		if err := t.Sync(ctx); err != nil {
			return nil, err
		}
		f = t.current()
	}
	if f == nil || f.tab.ID != shown.TabID {
		return nil, t.moved(ctx, name, shown, f)
	}
	res, err := f.eng.CallOn(ctx, pagetools.Document{ID: shown.Doc, URL: shown.URL}, name, args)
	var pe *pagetools.Error
	if err != nil && !errors.As(err, &pe) {
		if u := t.Unavailable(); u != nil {
			return nil, fmt.Errorf("%s: %w (the call was cut short: %v)", name, u, err)
		}
	}
	if errors.Is(err, pagetools.ErrClosed) {
		return nil, fmt.Errorf("%s: %w; nothing more was done", name, ErrMoved)
	}
	return res, err
}

// HandleDialog answers the JavaScript dialog open in the focused tab
// (accept or dismiss; promptText, when not nil, for a prompt): a page-tool
// call it interrupted goes on, and its outcome is the answer.
func (t *Tracker) HandleDialog(ctx context.Context, accept bool, promptText *string) (*pagetools.Result, error) {
	f := t.current()
	if f == nil {
		if err := t.Unavailable(); err != nil {
			return nil, err
		}
		return nil, ErrNoFocus
	}
	return f.eng.HandleDialog(ctx, accept, promptText)
}

// Navigate loads url in the focused tab id through its engine's session,
// which follows the page from before its first byte: a dialog the page
// opens as it loads is seen (a session attached after it opened could
// neither see nor answer it). The caller checks url first (CheckOpen).
func (t *Tracker) Navigate(ctx context.Context, id, url string) error {
	f := t.current()
	if f == nil || f.tab.ID != id {
		return fmt.Errorf("tab %s is not focused: %w", id, ErrMoved)
	}
	_, err := f.sess.Call(ctx, "Page.navigate", map[string]any{"url": url})
	return err
}

// MovedError: a call was made from the tools shown for a tab that is not
// the focused tab now. Nothing was done.
type MovedError struct {
	Tool      string
	Shown     Shown
	ShownOpen bool        // the tab shown is still open
	Now       backend.Tab // the focused tab now (with its opener); ID "" when none
}

func (e *MovedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "page tool %q was shown for tab %s at %s, which is not the focused tab now", e.Tool, e.Shown.TabID, e.Shown.URL)
	if !e.ShownOpen {
		b.WriteString(" (it is closed)")
	}
	if e.Now.ID == "" {
		b.WriteString("; no tab is focused")
	} else {
		fmt.Fprintf(&b, "; tab %s is, at %s", e.Now.ID, e.Now.URL)
		if e.Now.OpenerID != "" {
			fmt.Fprintf(&b, " (a tab the page in tab %s opened)", e.Now.OpenerID)
		}
	}
	b.WriteString("; nothing was done")
	return b.String()
}

// Unwrap: ErrMoved, and ErrNoFocus when no tab is focused.
func (e *MovedError) Unwrap() []error {
	if e.Now.ID == "" {
		return []error{ErrMoved, ErrNoFocus}
	}
	return []error{ErrMoved}
}

// moved describes a call made for shown while f (nil: none) is focused.
func (t *Tracker) moved(ctx context.Context, name string, shown Shown, f *focused) *MovedError {
	e := &MovedError{Tool: name, Shown: shown}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tabs, _ := t.b.RunningTabs(ctx)
	for _, tab := range tabs {
		if tab.ID == shown.TabID {
			e.ShownOpen = true
		}
		if f != nil && tab.ID == f.tab.ID {
			e.Now = tab
		}
	}
	if f != nil {
		e.Now.ID = f.tab.ID
		if url, _ := f.eng.Page(); url != "" {
			e.Now.URL = url
		}
	}
	return e
}

// Unavailable says why the browser that runs cannot be worked in now (the
// user's own browser while its extension is away: no tab is focused until
// it is back), or nil.
func (t *Tracker) Unavailable() error { return t.b.Disconnected() }

// Peek answers the tools of these tabs, by id: the focused tab's from its
// engine, the others' found on demand (a short-lived engine each, a few at
// a time, within PeekTimeout). A tab whose tools could not be found in
// time, or past PeekMax, is missing from the answer.
func (t *Tracker) Peek(ctx context.Context, tabs []backend.Tab) map[string][]pagetools.Tool {
	out := map[string][]pagetools.Tool{}
	snap := t.Snapshot()
	var todo []backend.Tab
	for _, tab := range tabs {
		if tab.ID == snap.TabID {
			out[tab.ID] = snap.Tools
			continue
		}
		if len(todo) < t.cfg.PeekMax {
			todo = append(todo, tab)
		}
	}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, t.cfg.PeekConcurrency)
	)
	for _, tab := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			default:
				if t.cfg.peekQueued != nil {
					t.cfg.peekQueued()
				}
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
			}
			defer func() { <-sem }()
			peeked, err := t.PeekTab(ctx, tab.ID, "")
			if err != nil {
				t.log.Debug("page tools: could not look at an unfocused tab", "tab", tab.ID, "err", err)
				return
			}
			mu.Lock()
			out[tab.ID] = peeked.Tools
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// PeekTab finds the page and tools of one tab that need not be focused
// (attach, discover, detach), waiting like Focus for a tab just opened at
// wantURL: as long as Focus would (SettleTimeout), since the agent that
// opened it waits for this one tab; other tabs within PeekTimeout.
func (t *Tracker) PeekTab(ctx context.Context, id, wantURL string) (Focus, error) {
	bound := t.cfg.PeekTimeout
	if wantURL != "" {
		bound = t.cfg.SettleTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	f, err := t.attach(ctx, id)
	if err != nil {
		return Focus{}, err
	}
	defer f.close()
	f.load(ctx, wantURL)
	if ctx.Err() != nil {
		return Focus{}, fmt.Errorf("the tab's page did not load within %s", bound)
	}
	return f.snapshot(0), nil
}

// focused is a tab with an engine on a session of its own.
type focused struct {
	tab     backend.Tab // the id; URL and title come from the engine
	sess    Session
	eng     Engine
	backend string // the backend it lives on

	mu        sync.Mutex
	wake      chan struct{} // closed and replaced at every event of the session
	crashed   chan struct{}
	crashOnce sync.Once
	closeOnce sync.Once
}

// onEvent takes the session's events, on the connection's reading
// goroutine: it never blocks.
func (f *focused) onEvent(method string, params json.RawMessage) {
	f.eng.HandleEvent(method, params)
	if method == "Inspector.targetCrashed" {
		f.crashOnce.Do(func() { close(f.crashed) })
	}
	f.mu.Lock()
	close(f.wake)
	f.wake = make(chan struct{})
	f.mu.Unlock()
}

func (f *focused) woken() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.wake
}

// load waits until the tab has left its blank first document (when wantURL
// is not blank: a tab just opened at it) and its tools are current.
func (f *focused) load(ctx context.Context, wantURL string) {
	if !cdp.IsBlank(wantURL) {
		for {
			wake := f.woken()
			if url, _ := f.eng.Page(); !cdp.IsBlank(url) {
				break
			}
			if _, open := f.eng.Dialog(); open {
				return // the page stopped as it loads: the focus says so (Dialog)
			}
			select {
			case <-wake:
			case <-ctx.Done():
				return
			}
		}
	}
	_, _ = f.eng.Discover(ctx)
}

func (f *focused) snapshot(gen uint64) Focus {
	v := f.eng.View()
	if v.Tools == nil {
		v.Tools = []pagetools.Tool{}
	}
	out := Focus{TabID: f.tab.ID, URL: v.URL, Title: v.Title, Tools: v.Tools, Doc: v.Doc, Gen: gen}
	if d, ok := f.eng.Dialog(); ok {
		out.Dialog = &d
	}
	return out
}

func (f *focused) close() {
	f.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = f.eng.Close(ctx)
		if f.sess != nil {
			f.sess.Close()
		}
	})
}
