package everyday

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// CDP error codes, as Chrome uses them.
const (
	codeServerError     = -32000
	codeSessionNotFound = -32001
	codeInvalidParams   = -32602
	codeParseError      = -32700
)

type sessionKind int

const (
	kindBrowser sessionKind = iota
	kindTab                 // a tab target's session: its page is its only child
	kindPage                // a page's session: commands go to the tab through chrome.debugger
)

// target is one tab this coordinator sees: a "tab" target and its "page".
type target struct {
	tabID  int
	pageID string // the page target's id, from chrome.debugger
	tabTID string // the tab target's id, made up here (chrome.debugger has none)
	title  string
	url    string
	agent  bool
	opener string // the page target that opened it (a popup), or ""
	// ready is closed once the auto-attaches the tab's arrival caused are
	// done: Target.createTarget answers only after them, as Chrome does
	// (Playwright looks the new page up as soon as it has the answer).
	ready chan struct{}
}

func (t *target) info(kind string, attached bool, ctxID string) map[string]any {
	id, typ := t.pageID, "page"
	if kind == "tab" {
		id, typ = t.tabTID, "tab"
	}
	info := map[string]any{
		"targetId": id, "type": typ, "title": t.title, "url": t.url, "attached": attached,
		"canAccessOpener": false, "browserContextId": ctxID,
	}
	if t.opener != "" && kind != "tab" {
		info["openerId"] = t.opener
		info["canAccessOpener"] = true
	}
	return info
}

type session struct {
	id     string
	kind   sessionKind
	parent string  // where its attachedToTarget went ("" is the root session)
	tgt    *target // tab and page sessions
	// browser sessions: the browser target this session is attached to
	browserTID string
	// browser and tab sessions
	discover   bool
	discoverF  filter
	autoAttach bool
	autoF      filter
	auto       bool            // attached by its parent's auto-attach
	enabled    map[string]bool // page sessions: domains enabled through it
}

// browser is the virtual browser of a Conn.
type browser struct {
	c     *Conn
	ctxID string // the one browser context: the user's profile

	mu       sync.Mutex
	targets  map[int]*target     // by tab id
	sessions map[string]*session // by session id; "" is the root
	children map[string]int      // chrome.debugger child sessions (iframes, workers) → tab id
	attach   map[int]*attachment // tabs the extension is attached to for this Conn
	// attaching marks auto-attaches under way (parent/tab/kind), so a tab
	// that arrives during setAutoAttach is attached once.
	attaching map[string]bool
	// replay keeps, per attached tab, what a second page session on it
	// would otherwise never hear: its live execution contexts and children.
	replay map[int]*tabReplay
	// recent orders the tabs by activity, most recent last, as the
	// coordinator's tab follower orders targets (a tab that appears,
	// navigates or is brought to the front); it outlives a disconnection,
	// so that the tabs come back in the order they left and the tab that
	// was in front is in front again (see connected).
	recent []int
	// held are the tabs the agent opened in the background: like the
	// coordinator's tab follower, their first page does not make them
	// active, so they do not come back in front after a reconnection.
	held map[int]bool
	// active is the tab the browser last brought to the front among those
	// this coordinator sees (0: none): CDP has no event for that, so
	// Conn.Activations says it.
	active int
}

// tabReplay is the state of one tab's shared debugger session that the
// browser reports only once: the execution contexts of its main session
// and the child sessions (iframes, workers) auto-attach gave it.
type tabReplay struct {
	contexts []ctxEntry // in creation order
	children []childEntry
}

type ctxEntry struct {
	id     int64
	params json.RawMessage
}

type childEntry struct {
	sessionID string
	params    json.RawMessage
}

// note updates the replay state from one event of the tab's main session.
func (r *tabReplay) note(method string, params json.RawMessage) {
	switch method {
	case "Runtime.executionContextCreated":
		var p struct {
			Context struct {
				ID int64 `json:"id"`
			} `json:"context"`
		}
		if json.Unmarshal(params, &p) == nil {
			r.contexts = slices.DeleteFunc(r.contexts, func(e ctxEntry) bool { return e.id == p.Context.ID })
			r.contexts = append(r.contexts, ctxEntry{p.Context.ID, params})
		}
	case "Runtime.executionContextDestroyed":
		var p struct {
			ExecutionContextID int64 `json:"executionContextId"`
		}
		if json.Unmarshal(params, &p) == nil {
			r.contexts = slices.DeleteFunc(r.contexts, func(e ctxEntry) bool { return e.id == p.ExecutionContextID })
		}
	case "Runtime.executionContextsCleared":
		r.contexts = nil
	case "Target.attachedToTarget":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(params, &p) == nil {
			r.children = slices.DeleteFunc(r.children, func(e childEntry) bool { return e.sessionID == p.SessionID })
			r.children = append(r.children, childEntry{p.SessionID, params})
		}
	case "Target.detachedFromTarget":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(params, &p) == nil {
			r.children = slices.DeleteFunc(r.children, func(e childEntry) bool { return e.sessionID == p.SessionID })
		}
	}
}

// snapshot returns what to replay for Runtime.enable or Target.setAutoAttach.
func (r *tabReplay) snapshot(method string) []json.RawMessage {
	var out []json.RawMessage
	if method == "Runtime.enable" {
		for _, e := range r.contexts {
			out = append(out, e.params)
		}
		return out
	}
	for _, e := range r.children {
		out = append(out, e.params)
	}
	return out
}

// attachment is this Conn's use of the extension's debugger on one tab.
type attachment struct {
	users int           // page sessions on the tab
	done  chan struct{} // closed when the attach request has been answered
	err   error
}

func newBrowser(c *Conn) *browser {
	b := &browser{
		c: c, ctxID: randomID(),
		targets: map[int]*target{}, sessions: map[string]*session{}, held: map[int]bool{},
		children: map[string]int{}, attach: map[int]*attachment{}, attaching: map[string]bool{},
		replay: map[int]*tabReplay{},
	}
	b.sessions[""] = &session{id: "", kind: kindBrowser, browserTID: randomUUID(), discoverF: defaultFilter(), autoF: defaultFilter()}
	return b
}

// touch marks a tab as the most recently active one; b.mu held.
func (b *browser) touch(tabID int) {
	delete(b.held, tabID)
	b.recent = append(slices.DeleteFunc(b.recent, func(id int) bool { return id == tabID }), tabID)
}

// hold marks a tab the agent opened in the background as never active
// (yet); b.mu held.
func (b *browser) hold(tabID int) {
	b.held[tabID] = true
	b.recent = slices.DeleteFunc(b.recent, func(id int) bool { return id == tabID })
}

// navigated notes a tab's move from one URL to another: activity, but not
// for a tab held in the background loading its first page; b.mu held.
func (b *browser) navigated(tabID int, from, to string) {
	if b.held[tabID] && cdp.IsBlank(from) {
		if !cdp.IsBlank(to) {
			delete(b.held, tabID) // its first page: from now on it is as any other
		}
		return
	}
	b.touch(tabID)
}

func (b *browser) tabCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.targets)
}

// ---- messages out ----

type cdpOut struct {
	ID        *int64 `json:"id,omitempty"`
	Method    string `json:"method,omitempty"`
	Params    any    `json:"params,omitempty"`
	Result    any    `json:"result,omitempty"`
	Error     any    `json:"error,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

func (b *browser) event(sessionID, method string, params any) {
	msg, _ := json.Marshal(cdpOut{Method: method, Params: params, SessionID: sessionID})
	b.c.emit(msg)
}

func (b *browser) reply(id int64, sessionID string, result any) {
	if result == nil {
		result = struct{}{}
	}
	msg, _ := json.Marshal(cdpOut{ID: &id, Result: result, SessionID: sessionID})
	b.c.emit(msg)
}

func (b *browser) replyRaw(id int64, sessionID string, result json.RawMessage) {
	if len(result) == 0 {
		result = json.RawMessage("{}")
	}
	msg, _ := json.Marshal(cdpOut{ID: &id, Result: result, SessionID: sessionID})
	b.c.emit(msg)
}

func (b *browser) fail(id int64, sessionID string, code int, format string, a ...any) {
	msg, _ := json.Marshal(cdpOut{ID: &id, SessionID: sessionID, Error: map[string]any{"code": code, "message": fmt.Sprintf(format, a...)}})
	b.c.emit(msg)
}

// ---- helpers ----

func params(raw json.RawMessage) map[string]json.RawMessage {
	p := map[string]json.RawMessage{}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &p)
	}
	return p
}

func notConnected(s Status) string {
	if s.Reason != "" {
		return "the user's browser is not connected: " + s.Reason
	}
	return "the user's browser is not connected"
}

// randomID is a session or target id in Chrome's style (32 hex digits).
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return strings.ToUpper(hex.EncodeToString(b[:]))
}

func randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
