package cdp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
)

// A Virtual is a browser made of tabs that have no browser endpoint
// behind them (chrome.debugger, one tab at a time): the CDP target model
// built once. It keeps the browser sessions (the root one and one per
// Target.attachToBrowserTarget) with their discovery and auto-attach
// settings, a tab and a page target for each tab, the tab and page
// sessions on them, the tabs' order of activity (Recency), and what a
// second page session on a tab must hear again of the one debugger
// session they share (its execution contexts, its iframes and workers).
// It answers the Target domain itself and sends the rest to the tabs
// through its TabHost, the adapter that carries them.
//
// Every command passes the policy hook first (VirtualOptions.Policy): it
// lets the command through, answers it (a refusal), answers it later, or
// rewrites the tab's answer. The everyday browser is a TabHost over the
// browser extension with its reach policy; Tier 2 is a TargetHost (VS
// Code's browser view, a target of a real browser) with its allowlist.
type Virtual struct {
	host   TabHost
	policy func(Place, *Message) Verdict
	words  VirtualWords
	out    func([]byte)
	spawn  func(func())
	front  func()
	log    *slog.Logger
	ctxID  string // the one browser context

	// ctx ends with Close: what a policy runs later (Verdict.Async) runs
	// under it.
	ctx    context.Context
	cancel context.CancelFunc
	// q is what the Virtual says, when it is its own Transport (no
	// VirtualOptions.Out); work, the calls it runs itself (no Go).
	q    queue
	work sync.WaitGroup

	mu       sync.Mutex
	targets  map[int]*vtarget     // by tab id
	sessions map[string]*vsession // by session id; "" is the root
	children map[string]int       // the tabs' child sessions (iframes, workers) → tab id
	attach   map[int]*attachment  // tabs the host's debugger is attached to for this browser
	// attaching marks auto-attaches under way (parent/tab/kind), so a tab
	// that arrives during setAutoAttach is attached once.
	attaching map[string]bool
	// replay keeps, per attached tab, what a second page session on it
	// would otherwise never hear: its live execution contexts and children.
	replay map[int]*tabReplay
	// recent orders the tabs by activity; it outlives a disconnection, so
	// that the tabs come back in the order they left and the tab that was
	// in front is in front again (see Connected). Held tabs are the ones
	// the agent opened in the background.
	recent Recency[int]
	// active is the tab the browser last brought to the front (0: none):
	// CDP has no event for that; Active says it.
	active int
}

// TabHost is what a Virtual needs of whatever carries its tabs. Its
// errors are phrased for the client (they become CDP error messages).
type TabHost interface {
	// Version is the browser's, or why it cannot be reached.
	Version() (product, userAgent string, err error)
	// Attach attaches the host's debugger to a tab (blocking); Detach lets
	// go of it (without waiting).
	Attach(tab int) error
	Detach(tab int)
	// Send sends a command to a tab (child: a child session of its
	// debugger session, "" for the tab's own) and calls done with the
	// tab's answer.
	Send(tab int, child, method string, params json.RawMessage, done func(json.RawMessage, error))
	// Open opens a tab for the agent (blocking): its TabCreated comes
	// before Open returns.
	Open(url string, focus bool) (tab int, err error)
	// Close closes a tab, Focus brings it to the front; done is called
	// with the outcome.
	Close(tab int, done func(error))
	Focus(tab int, done func(error))
}

// Place says where a command was sent and what the virtual browser shows
// at that moment: what a policy judges a command by.
type Place struct {
	// Page: the command came on a page's session, or a frame's or a
	// worker's below one; false: on a browser session.
	Page bool
	// Target is that page's target id ("" on a browser session).
	Target string
	// Child: the command came on a frame's or a worker's session below
	// the page, not on the page's own.
	Child bool
	// AgentTab: that page is a tab the agent opened (not the user's).
	AgentTab bool
	// Tabs are the URLs of the tabs the browser shows.
	Tabs []string
}

// VirtualWords name the browser in the errors the virtual browser writes.
type VirtualWords struct {
	Browser string // "the user's own browser"
	Backend string // "the everyday backend"
}

// VirtualOptions configure a Virtual.
type VirtualOptions struct {
	Host TabHost
	// Policy decides about each command first; nil lets all through. Its
	// Verdict answers the command now (Reply), later (Async, run on a
	// goroutine of the Virtual's: an answer of nil lets the command go on
	// once it has run), or rewrites the tab's answer, an error too (Then).
	Policy func(Place, *Message) Verdict
	Words  VirtualWords
	// Out takes each message for the client, in order; Go runs a call
	// that waits (attaching, opening a tab) on a goroutine its owner
	// waits for. Without Out the Virtual is a Transport of its own (a
	// Conn reads what it says, see ReadMessage); without Go it runs those
	// calls itself, and Close waits for them.
	Out func([]byte)
	Go  func(func())
	// Activated is told (without the browser's lock) that a tab came to
	// the front (TabFocused): CDP has no event for it.
	Activated func()
	Log       *slog.Logger
}

// NewVirtual makes a virtual browser with no tabs.
func NewVirtual(o VirtualOptions) *Virtual {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	v := &Virtual{
		host: o.Host, policy: o.Policy, words: o.Words, out: o.Out, spawn: o.Go, front: o.Activated, log: o.Log, ctxID: randomID(),
		targets: map[int]*vtarget{}, sessions: map[string]*vsession{},
		children: map[string]int{}, attach: map[int]*attachment{}, attaching: map[string]bool{},
		replay: map[int]*tabReplay{},
	}
	v.ctx, v.cancel = context.WithCancel(context.Background())
	if v.out == nil {
		v.q.init()
		v.out = v.q.put
	}
	if v.spawn == nil {
		v.spawn = v.run
	}
	v.sessions[""] = newBrowserSession("", "")
	if h, ok := o.Host.(interface{ bind(*Virtual) }); ok {
		h.bind(v) // a host that reports to the Virtual (TargetHost)
	}
	return v
}

// TabCount is how many tabs the browser shows.
func (v *Virtual) TabCount() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.targets)
}

// Active is the page target id of the tab brought to the front last; ""
// when none (or that tab is gone).
func (v *Virtual) Active() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if t := v.targets[v.active]; t != nil {
		return t.pageID
	}
	return ""
}

// AgentTabs lists the tabs the agent opened, in the order of activity.
func (v *Virtual) AgentTabs() []int {
	v.mu.Lock()
	defer v.mu.Unlock()
	var tabs []int
	for _, t := range v.sortedTargets() {
		if t.agent {
			tabs = append(tabs, t.tabID)
		}
	}
	return tabs
}

// vtarget is one tab: a "tab" target and its "page".
type vtarget struct {
	tabID  int
	pageID string // the page target's id, from the host
	tabTID string // the tab target's id, made up here
	title  string
	url    string
	agent  bool
	opener string // the page target that opened it (a popup), or ""
	// ready is closed once the auto-attaches the tab's arrival caused are
	// done: Target.createTarget answers only after them, as Chrome does
	// (Playwright looks the new page up as soon as it has the answer).
	ready chan struct{}
}

func (t *vtarget) info(kind string, attached bool, ctxID string) map[string]any {
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

type sessionKind int

const (
	kindBrowser sessionKind = iota
	kindTab                 // a tab target's session: its page is its only child
	kindPage                // a page's session: commands go to the tab through the host
)

func kindOf(kind string) sessionKind {
	if kind == "tab" {
		return kindTab
	}
	return kindPage
}

func kindName(k sessionKind) string {
	if k == kindTab {
		return "tab"
	}
	return "page"
}

type vsession struct {
	id     string
	kind   sessionKind
	parent string   // where its attachedToTarget went ("" is the root session)
	tgt    *vtarget // tab and page sessions
	// browser sessions: the browser target this session is attached to
	browserTID string
	// browser and tab sessions
	discover   bool
	discoverF  TargetFilter
	autoAttach bool
	autoF      TargetFilter
	auto       bool            // attached by its parent's auto-attach
	enabled    map[string]bool // page sessions: domains enabled through it
}

func newBrowserSession(id, parent string) *vsession {
	return &vsession{id: id, kind: kindBrowser, parent: parent, browserTID: randomUUID(), discoverF: DefaultTargetFilter(), autoF: DefaultTargetFilter()}
}

func (s *vsession) browserInfo() map[string]any {
	return map[string]any{"targetId": s.browserTID, "type": "browser", "title": "", "url": "", "attached": true, "canAccessOpener": false}
}

// attachment is this browser's use of the host's debugger on one tab.
type attachment struct {
	users int           // page sessions on the tab
	done  chan struct{} // closed when the attach request has been answered
	err   error
}

// ---- messages out ----

// vcommand is a client's command as the virtual browser reads it.
type vcommand struct {
	ID        int64           `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
	// then, set by the policy, rewrites the tab's answer.
	then func(*Message) *Message
}

type vout struct {
	ID        *int64 `json:"id,omitempty"`
	Method    string `json:"method,omitempty"`
	Params    any    `json:"params,omitempty"`
	Result    any    `json:"result,omitempty"`
	Error     any    `json:"error,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

func (v *Virtual) event(sessionID, method string, params any) {
	if raw, ok := params.(json.RawMessage); ok {
		v.out(rawMessage(nil, method, raw, sessionID))
		return
	}
	msg, _ := json.Marshal(vout{Method: method, Params: params, SessionID: sessionID})
	v.out(msg)
}

func (v *Virtual) reply(m vcommand, result any) {
	if result == nil {
		result = struct{}{}
	}
	msg, _ := json.Marshal(vout{ID: &m.ID, Result: result, SessionID: m.SessionID})
	v.out(msg)
}

// replyRaw answers m with a result the host gave whole.
func (v *Virtual) replyRaw(m vcommand, result json.RawMessage) {
	if len(result) == 0 {
		result = json.RawMessage("{}")
	}
	v.out(rawMessage(&m.ID, "", result, m.SessionID))
}

// rawMessage writes an answer (id set: {"id":…,"result":raw}) or an event
// ({"method":…,"params":raw}) as Chromium does, the session last, without
// reading raw again: it is the host's, whole and well-formed (a browser's
// JSON, or the extension's, decoded once), and may be megabytes.
func rawMessage(id *int64, method string, raw json.RawMessage, session string) []byte {
	b := make([]byte, 0, len(raw)+len(method)+len(session)+48)
	if id != nil {
		b = strconv.AppendInt(append(b, `{"id":`...), *id, 10)
		b = append(b, `,"result":`...)
	} else {
		b = appendString(append(b, `{"method":`...), []byte(method))
		b = append(b, `,"params":`...)
	}
	b = append(b, raw...)
	if session != "" {
		b = appendString(append(b, `,"sessionId":`...), []byte(session))
	}
	return append(b, '}')
}

func (v *Virtual) fail(m vcommand, code int, format string, a ...any) {
	msg, _ := json.Marshal(vout{ID: &m.ID, SessionID: m.SessionID, Error: map[string]any{"code": code, "message": fmt.Sprintf(format, a...)}})
	v.out(msg)
}

// notHere refuses a method the virtual browser does not offer.
func (v *Virtual) notHere(m vcommand) {
	v.fail(m, ServerError, "%s is not available in %s (%s)", m.Method, v.words.Browser, v.words.Backend)
}

// ---- helpers ----

func params(raw json.RawMessage) map[string]json.RawMessage {
	p := map[string]json.RawMessage{}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &p)
	}
	return p
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

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
