package pagetools

import (
	"cmp"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// Session is a CDP session attached to one page target (flattened), owned
// by the caller. The engine sends its commands through it; the owner feeds
// the session's events to Engine.HandleEvent.
type Session interface {
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// Config tunes an engine. Every zero value means the default given.
type Config struct {
	// MaxTools caps a page's tools, the most prominent kept (default 16).
	MaxTools int
	// MaxButtons: standalone buttons become tools only when the page has
	// at most this many (default 6).
	MaxButtons int
	// MaxLists caps the lists that become open_<item> tools (default 3).
	MaxLists int
	// Debounce is how long the page must be free of DOM changes before it
	// is looked at again (default 100 ms), and MaxDebounce how long a page
	// that never stops changing waits at most (default 500 ms).
	Debounce, MaxDebounce time.Duration
	// After a call, a page that does not navigate has settled once it has
	// been free of DOM changes for SettleQuiet (default 250 ms); one that
	// shows no change at all within SettleFirst (default 1 s) has done
	// nothing visible; SettleMax bounds the wait (default 5 s).
	SettleQuiet, SettleFirst, SettleMax time.Duration
	// NavTimeout bounds the wait for a navigation to bring a new page and
	// its tools (default 15 s).
	NavTimeout time.Duration
	// TextLimit bounds the page text in a result, in characters
	// (default 1500).
	TextLimit int
	// Lease is how long the page's script keeps watching the page without
	// hearing from the engine (default 30 s; renewed every third of it): a
	// tab the engine loses without closing it (its debugger detached) is
	// left alone at its next change.
	Lease time.Duration
	// noRenew: no renewals (tests of a lapsed lease); renewed, in tests,
	// is called after each renewal.
	noRenew bool
	renewed func()
	// dialogWait is what a call's own deadline allows, beyond a
	// navigation and a settle, for a dialog it opened to be answered
	// (default 1 min; tests of that deadline shorten it).
	dialogWait time.Duration
	// networkOffMax bounds turning the Network domain off after a call
	// (default 5 s: far longer than it takes a renderer that answers at
	// all; tests of a renderer busy for good shorten it).
	networkOffMax time.Duration
	// Files says which local files a form's file field may attach (none
	// by default: file fields are then no parameters).
	Files Files
	// ContentTool adds get_page_content, which returns the page's text:
	// for surfaces with no other way to read the page (the seed's
	// progressive surface).
	ContentTool bool
	// Logger receives debug lines (tool names, never argument values);
	// nil is slog.Default().
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	defInt := func(i *int, v int) {
		if *i <= 0 {
			*i = v
		}
	}
	defInt(&c.MaxTools, 16)
	defInt(&c.MaxButtons, 6)
	defInt(&c.MaxLists, 3)
	defInt(&c.TextLimit, 1500)
	def(&c.Debounce, 100*time.Millisecond)
	def(&c.MaxDebounce, 500*time.Millisecond)
	def(&c.SettleQuiet, 250*time.Millisecond)
	def(&c.SettleFirst, time.Second)
	def(&c.SettleMax, 5*time.Second)
	def(&c.NavTimeout, 15*time.Second)
	def(&c.Lease, 30*time.Second)
	def(&c.dialogWait, time.Minute)
	def(&c.networkOffMax, 5*time.Second)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

//go:embed script.js
var scriptSource string

// scriptKey is the global under which the script keeps its functions in
// the isolated world (which only this engine's CDP session can reach).
const scriptKey = "__browserCoordinatorPageTools"

// Engine finds and calls the tools of one tab. It follows the tab's
// navigations and DOM changes through the events its owner feeds it, and
// signals on Changed when the set of tools really changed.
type Engine struct {
	sess    Session
	cfg     Config
	log     *slog.Logger
	world   string // the isolated world's name, unique to this engine
	binding string // the binding only that world has
	source  string // the script with its configuration

	ctx     context.Context // cancelled by Close
	cancel  context.CancelFunc
	wg      sync.WaitGroup // goroutines the engine started
	callSem chan struct{}  // capacity 1: one call at a time
	change  chan struct{}  // capacity 1: a pending "tools changed"

	mu        sync.Mutex
	wake      chan struct{} // closed and replaced at every state change
	tab       tabState      // what the session's events said of the tab (events.go)
	contexts  cdp.Contexts  // the session's execution contexts (this engine's world is ours)
	doc       *document     // the page as last discovered
	gone      map[string]goneTool
	goneSeq   int // changes that took tools away
	published []Tool
	pubSig    string
	scriptID  string
	ensuring  bool
	started   bool
	closed    bool
	pend      *pendingCall // a call a dialog interrupted, until it ends
}

// goneTool is a tool the page had and no longer has.
type goneTool struct {
	url       string // the page it belonged to
	navigated bool   // gone with a navigation (else the page changed)
	seq       int    // when it went (the oldest are forgotten first)
}

// maxGone bounds the gone tools remembered.
const maxGone = 256

// document is one discovered document of the main frame.
type document struct {
	id     string // DocumentID: the navigation that made it
	ctxID  int64
	commit int // e.tab.commits when this document was first discovered
	gen    int
	url    string
	title  string
	tools  []Tool
	refs   map[string]*toolRef
	status string // imperative API: "absent", "ok" or an error
}

// New makes an engine for the page behind sess. Feed it the session's
// events with HandleEvent from now on, then call Start.
func New(sess Session, cfg Config) *Engine {
	cfg = cfg.withDefaults()
	var r [6]byte
	_, _ = rand.Read(r[:])
	id := hex.EncodeToString(r[:])
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine{
		sess:    sess,
		cfg:     cfg,
		log:     cfg.Logger,
		world:   "browser-coordinator-pagetools-" + id,
		binding: "__bcPageToolsReport_" + id,
		ctx:     ctx,
		cancel:  cancel,
		change:  make(chan struct{}, 1),
		callSem: make(chan struct{}, 1),
		wake:    make(chan struct{}),
		gone:    map[string]goneTool{},
	}
	conf, _ := json.Marshal(map[string]any{
		"key": scriptKey, "binding": e.binding,
		"debounceMs": cfg.Debounce.Milliseconds(), "maxDebounceMs": cfg.MaxDebounce.Milliseconds(),
		"maxForms": 64, "maxFields": 60, "maxOptions": optionMax + 1, "maxLists": cfg.MaxLists,
		"maxButtons": cfg.MaxButtons, "maxImperative": 32, "minItems": 3,
		"textMax": 300, "valueMax": 200, "descMax": 1000, "schemaMax": 16384, "outputMax": 8 * cfg.TextLimit,
		"leaseMs": cfg.Lease.Milliseconds(), "files": cfg.Files.enabled(),
	})
	e.source = "(" + strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(scriptSource), ";")) + ")(" + string(conf) + ");"
	return e
}

// Start sets the page up (the Page and Runtime domains, the isolated world
// with its script for this and every later document, the binding it
// reports through) and discovers the page's tools once.
func (e *Engine) Start(ctx context.Context) error {
	if _, err := e.sess.Call(ctx, "Page.enable", nil); err != nil {
		return fmt.Errorf("page tools: enable the Page domain: %w", err)
	}
	res, err := e.sess.Call(ctx, "Page.getFrameTree", nil)
	if err != nil {
		return fmt.Errorf("page tools: read the frame tree: %w", err)
	}
	var tree struct {
		FrameTree struct {
			Frame frameInfo `json:"frame"`
		} `json:"frameTree"`
	}
	if err := json.Unmarshal(res, &tree); err != nil || tree.FrameTree.Frame.ID == "" {
		return fmt.Errorf("page tools: no main frame in Page.getFrameTree: the target must be a page or an iframe")
	}
	e.mu.Lock()
	e.tab.mainFrame, e.tab.url, e.tab.loader = tree.FrameTree.Frame.ID, tree.FrameTree.Frame.URL, tree.FrameTree.Frame.LoaderID
	e.tab.iframe = tree.FrameTree.Frame.ParentID != "" // an out-of-process iframe target (VS Code's Simple Browser)
	e.mu.Unlock()

	if _, err := e.sess.Call(ctx, "Runtime.addBinding", map[string]any{"name": e.binding, "executionContextName": e.world}); err != nil {
		return fmt.Errorf("page tools: add the report binding: %w", err)
	}
	e.mu.Lock()
	e.started = true // from here on Close has something to undo
	e.mu.Unlock()
	res, err = e.sess.Call(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": e.source, "worldName": e.world})
	if err != nil {
		return fmt.Errorf("page tools: install the discovery script: %w", err)
	}
	var added struct {
		Identifier string `json:"identifier"`
	}
	_ = json.Unmarshal(res, &added)
	e.mu.Lock()
	e.scriptID = added.Identifier
	e.mu.Unlock()
	if _, err := e.sess.Call(ctx, "Runtime.enable", nil); err != nil {
		return fmt.Errorf("page tools: enable the Runtime domain: %w", err)
	}
	if !e.cfg.noRenew {
		e.wg.Add(1)
		go e.renewals()
	}
	if err := e.install(ctx); err != nil && !errors.Is(err, ErrDialogOpen) {
		return err
	}
	// A dialog that cut the first look short: the page is looked at once
	// it is answered (onDialogClosed).
	return nil
}

// renewals renews the script's lease until Close.
func (e *Engine) renewals() {
	defer e.wg.Done()
	t := time.NewTicker(e.cfg.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-t.C:
			e.renew()
			if e.cfg.renewed != nil {
				e.cfg.renewed()
			}
		}
	}
}

// renew renews the lease of the script in the current document.
func (e *Engine) renew() {
	e.mu.Lock()
	var ctxID int64
	if e.doc != nil {
		ctxID = e.doc.ctxID
	}
	e.mu.Unlock()
	if ctxID == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(e.ctx, e.cfg.Lease/3)
	defer cancel()
	if _, err := e.callIn(ctx, ctxID, "renew"); err != nil && e.ctx.Err() == nil {
		e.log.Debug("page tools: could not renew the page script's lease", "error", err)
	}
}

// install puts the script into the document there now (new documents get
// it from Page.addScriptToEvaluateOnNewDocument) and discovers its tools.
func (e *Engine) install(ctx context.Context) error {
	e.mu.Lock()
	frame, commits := e.tab.mainFrame, e.tab.commits
	e.mu.Unlock()
	res, err := e.rpc(ctx, "Page.createIsolatedWorld", map[string]any{"frameId": frame, "worldName": e.world, "grantUniveralAccess": false})
	if err != nil {
		return fmt.Errorf("page tools: create the isolated world: %w", err)
	}
	var world struct {
		ExecutionContextID int64 `json:"executionContextId"`
	}
	if err := json.Unmarshal(res, &world); err != nil || world.ExecutionContextID == 0 {
		return fmt.Errorf("page tools: Page.createIsolatedWorld gave no execution context")
	}
	e.mu.Lock()
	if e.tab.commits == commits { // else the world is already gone with its document
		e.contexts.Add(world.ExecutionContextID, frame, e.world)
	}
	e.mu.Unlock()
	res, err = e.rpc(ctx, "Runtime.evaluate", map[string]any{"expression": e.source, "contextId": world.ExecutionContextID})
	if err != nil {
		return fmt.Errorf("page tools: run the discovery script: %w", err)
	}
	if msg := exception(res); msg != "" {
		return fmt.Errorf("page tools: the discovery script failed: %s", msg)
	}
	_, err = e.discoverIn(ctx, world.ExecutionContextID)
	return err
}

// Close stops the engine: it removes the script and binding from the page
// (best effort, within ctx) and waits for the engine's goroutines. The
// session stays open; it is the owner's.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	scriptID, started := e.scriptID, e.started
	ctxID := int64(0)
	if e.doc != nil {
		ctxID = e.doc.ctxID
	}
	e.broadcastLocked()
	e.mu.Unlock()
	e.cancel()
	e.wg.Wait()
	if !started {
		return nil
	}
	var errs []error
	if scriptID != "" {
		if _, err := e.sess.Call(ctx, "Page.removeScriptToEvaluateOnNewDocument", map[string]any{"identifier": scriptID}); err != nil {
			errs = append(errs, err)
		}
	}
	if ctxID != 0 {
		_, _ = e.callIn(ctx, ctxID, "stop")
	}
	if _, err := e.sess.Call(ctx, "Runtime.removeBinding", map[string]any{"name": e.binding}); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Changed receives a value when the page's set of tools changed (names,
// schemas, descriptions or annotations), the tab shows another document
// (View's Doc), or a JavaScript dialog opened or closed (Dialog); several
// changes before the owner reads it make one. Read
// Tools or View then.
func (e *Engine) Changed() <-chan struct{} { return e.change }

// Tools are the page's tools as last discovered.
func (e *Engine) Tools() []Tool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Tool(nil), e.published...)
}

// DocumentID names one document of a tab: the navigation that loaded it.
// A call made from the tools of one document fails once the tab shows
// another (CallOn).
type DocumentID string

// Document is a document as a caller was shown it: its id and URL.
type Document struct {
	ID  DocumentID
	URL string
}

// View is the page the tools belong to, as last discovered: its document,
// URL, title and tools, taken together.
type View struct {
	Doc   DocumentID
	URL   string
	Title string
	Tools []Tool
}

// View is the page as last discovered.
func (e *Engine) View() View {
	e.mu.Lock()
	defer e.mu.Unlock()
	v := View{URL: e.tab.url, Tools: append([]Tool{}, e.published...)}
	if e.doc != nil {
		v.Doc, v.URL, v.Title = DocumentID(e.doc.id), e.doc.url, e.doc.title
	}
	return v
}

// Page is the URL and title of the page the tools belong to.
func (e *Engine) Page() (url, title string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.doc != nil {
		return e.doc.url, e.doc.title
	}
	return e.tab.url, ""
}

// ImperativeStatus says whether the browser exposes WebMCP's imperative
// API to the page ("absent" where it does not, "ok", or the error listing
// its tools gave).
func (e *Engine) ImperativeStatus() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.doc == nil {
		return ""
	}
	return e.doc.status
}

// Discover looks at the page now (rather than after the debounce) and
// answers its tools, signalling Changed as usual if they changed.
func (e *Engine) Discover(ctx context.Context) ([]Tool, error) {
	if err := e.waitReady(ctx); err != nil {
		return nil, err
	}
	e.mu.Lock()
	ctxID := e.doc.ctxID
	e.mu.Unlock()
	if ctxID == 0 {
		if err := e.install(ctx); err != nil {
			return nil, err
		}
		return e.Tools(), nil
	}
	return e.discoverIn(ctx, ctxID)
}

func (e *Engine) discoverIn(ctx context.Context, ctxID int64) ([]Tool, error) {
	raw, err := e.callIn(ctx, ctxID, "discover")
	if err != nil {
		return nil, fmt.Errorf("page tools: discover: %w", err)
	}
	var text string
	var p rawPage
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, fmt.Errorf("page tools: discover: unreadable answer: %w", err)
	}
	if err := json.Unmarshal([]byte(text), &p); err != nil {
		return nil, fmt.Errorf("page tools: discover: unreadable answer: %w", err)
	}
	e.apply(ctxID, p)
	return e.Tools(), nil
}

// callIn calls one of the script's functions in the isolated world, with
// arguments passed as values (never spliced into source), and answers its
// result by value.
func (e *Engine) callIn(ctx context.Context, ctxID int64, fn string, args ...any) (json.RawMessage, error) {
	argv := make([]map[string]any, len(args))
	for i, a := range args {
		argv[i] = map[string]any{"value": a}
	}
	res, err := e.rpc(ctx, "Runtime.callFunctionOn", map[string]any{
		"functionDeclaration": "function(...a) { return globalThis." + scriptKey + "." + fn + "(...a); }",
		"executionContextId":  ctxID,
		"arguments":           argv,
		"returnByValue":       true,
		"awaitPromise":        true,
		// As a person's click: what the page allows only on a user's
		// gesture (opening a tab, say) works for a call too.
		"userGesture": fn == "call",
	})
	if err != nil {
		return nil, err
	}
	if msg := exception(res); msg != "" {
		return nil, fmt.Errorf("in the page's isolated world: %s", msg)
	}
	var out struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return nil, err
	}
	return out.Result.Value, nil
}

func exception(res json.RawMessage) string {
	var r struct {
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if json.Unmarshal(res, &r) != nil || r.ExceptionDetails == nil {
		return ""
	}
	if r.ExceptionDetails.Exception != nil && r.ExceptionDetails.Exception.Description != "" {
		return cleanText(r.ExceptionDetails.Exception.Description, 300)
	}
	return cleanText(r.ExceptionDetails.Text, 300)
}

func (e *Engine) ensure() {
	defer e.wg.Done()
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	err := e.install(ctx)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ensuring = false
	if err != nil && !e.closed && !e.freshLocked() {
		// A page the script cannot reach: it has no tools (rather than
		// keeping the last page's).
		e.log.Debug("page tools: could not look at the new page", "url", logURL(e.tab.url), "error", err)
		e.doc = &document{id: e.documentIDLocked(), commit: e.tab.commits, url: e.tab.url, refs: map[string]*toolRef{}, tools: []Tool{}}
		if sig := signature(nil); sig != e.pubSig {
			e.published, e.pubSig = []Tool{}, sig
			e.signalLocked()
		}
	}
	e.broadcastLocked()
}

// apply takes a page description from the script in context ctxID: it
// becomes the current document (a new one after a navigation), and its
// tools are published, signalling Changed, if they differ.
func (e *Engine) apply(ctxID int64, p rawPage) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	if frame := e.ourContextLocked(ctxID); frame == "" || frame != e.tab.mainFrame {
		return // a frame's, or a document already gone
	}
	newDoc := e.doc == nil || e.doc.commit != e.tab.commits || e.doc.ctxID != ctxID
	if !newDoc && e.doc.ctxID == ctxID && p.Gen < e.doc.gen {
		return // older than what we have
	}
	tools, refs := build(p, e.cfg)
	d := &document{id: e.documentIDLocked(), ctxID: ctxID, commit: e.tab.commits, gen: p.Gen, url: p.URL, title: cleanText(p.Title, descMax), tools: tools, refs: refs, status: p.ImperativeStatus}
	// Names the page no longer has are remembered, so calling one says
	// why it is gone rather than that it never existed.
	if e.doc != nil {
		e.goneSeq++
		for name := range e.doc.refs {
			if refs[name] == nil {
				e.gone[name] = goneTool{url: e.doc.url, navigated: newDoc, seq: e.goneSeq}
			}
		}
	}
	for name := range refs {
		delete(e.gone, name)
	}
	e.forgetGoneLocked()
	e.doc = d
	if sig := signature(tools); sig != e.pubSig {
		e.published, e.pubSig = tools, sig
		e.log.Debug("page tools changed", "url", logURL(d.url), "tools", len(tools))
		e.signalLocked()
	} else if newDoc {
		e.signalLocked() // the same tools, of another document
	}
	e.broadcastLocked()
}

// forgetGoneLocked keeps at most maxGone gone tools: the oldest go first
// (down to three quarters), never those gone at the last change.
func (e *Engine) forgetGoneLocked() {
	if len(e.gone) <= maxGone {
		return
	}
	names := make([]string, 0, len(e.gone))
	for name, g := range e.gone {
		if g.seq < e.goneSeq {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(e.gone[a].seq, e.gone[b].seq) })
	for _, name := range names[:min(len(names), len(e.gone)-maxGone*3/4)] {
		delete(e.gone, name)
	}
}

// documentIDLocked names the main frame's document now: its loaderId,
// which every CDP session on the tab sees alike (so an engine started later
// on the same tab, the same document, names it the same); else one of this
// engine's own.
func (e *Engine) documentIDLocked() string {
	if e.tab.loader != "" {
		return e.tab.loader
	}
	return fmt.Sprintf("%s#%d", e.world, e.tab.commits)
}

// signalLocked tells the owner the tools changed (one pending signal).
func (e *Engine) signalLocked() {
	select {
	case e.change <- struct{}{}:
	default:
	}
}

// logURL is a URL for the log: without its query and fragment, where a
// form may have put what was typed into it (a password in a GET form).
func logURL(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i] + "?…"
	}
	return u
}

func (e *Engine) broadcastLocked() {
	close(e.wake)
	e.wake = make(chan struct{})
}

// freshLocked: the current document has been discovered since the last
// commit and its world is alive (or it is one the script cannot reach).
func (e *Engine) freshLocked() bool {
	if e.doc == nil || e.doc.commit != e.tab.commits {
		return false
	}
	return e.doc.ctxID == 0 || e.ourContextLocked(e.doc.ctxID) != ""
}

// waitFor waits until cond (called with e.mu held) holds, for at most
// timeout; it answers whether cond held.
func (e *Engine) waitFor(ctx context.Context, timeout time.Duration, cond func() bool) (bool, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			return false, ErrClosed
		}
		ok := cond()
		wake := e.wake
		e.mu.Unlock()
		if ok {
			return true, nil
		}
		select {
		case <-wake:
		case <-timer.C:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// waitReady waits until the tab's current document has been discovered
// and no navigation is under way.
func (e *Engine) waitReady(ctx context.Context) error {
	e.mu.Lock()
	started := e.started
	e.mu.Unlock()
	if !started {
		return &Error{Kind: ErrNotReady, Msg: "page tools: the engine has not been started (call Start)"}
	}
	// A dialog stops the page: say so at once (a call's own context waits
	// for its answer instead).
	stopped := func() bool { return e.tab.dialog != nil && !uncut(ctx) }
	ok, err := e.waitFor(ctx, e.cfg.NavTimeout, func() bool { return !e.tab.pending && e.freshLocked() || stopped() })
	if err != nil {
		return err
	}
	if derr := e.dialogErr(""); derr != nil && !uncut(ctx) {
		return derr
	}
	if !ok {
		e.mu.Lock()
		url := e.tab.url
		e.mu.Unlock()
		return &Error{Kind: ErrNotReady, Msg: fmt.Sprintf("the tab is still loading %s after %s; call again once it has loaded", url, e.cfg.NavTimeout)}
	}
	return nil
}
