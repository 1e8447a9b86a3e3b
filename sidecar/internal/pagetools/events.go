package pagetools

import (
	"encoding/json"
	"maps"
	"strings"
)

// The tab as the engine knows it from its session's events: tabState, a
// value that the pure reducer (each event's reduce) makes anew from the last
// one and one event. HandleEvent decodes an event once into its type,
// reduces under the lock and carries out what the reducer asks for
// (effects); the page's own reports (Runtime.bindingCalled) are the
// discovery's, applied by apply. The execution contexts are not in the
// state: the engine's cdp.Contexts notes them (HandleEvent), as every
// reader of a session's contexts does, and a reduction is told what it
// needs of them (reduceIn).

// tabState is what the session's events said of the tab.
type tabState struct {
	mainFrame string // the target's root frame
	iframe    bool   // the target is an out-of-process iframe
	url       string // the main frame's URL, from navigation events
	loader    string // the main frame's document (its loaderId)
	starts    int    // main-frame navigations requested or started
	commits   int    // main-frame documents committed
	stops     int    // main-frame loads stopped
	sameDocs  int    // main-frame navigations within the document (history API, fragments)
	pending   bool   // a navigation started and has neither committed nor stopped
	popups    int    // navigations this page sent to a new tab or window
	popupURL  string
	dialog    *Dialog         // the JavaScript dialog open on the page, if any
	requests  map[string]bool // the page's requests a call started (network.go); nil: not followed
}

// reduceIn is what a reduction needs beyond the state: whether the
// context of the document last discovered still lives.
type reduceIn struct {
	docAlive bool
}

// effects are what a reduction asks the engine to do.
type effects struct {
	changed bool   // wake the waiters
	signal  bool   // tell the owner (Changed): a dialog opened or closed
	ensure  bool   // look at the page again if it has not reported
	keepDoc bool   // the document discovered is this commit's (the back/forward cache)
	docURL  string // the document moved within itself, to this URL
	opened  bool   // a dialog opened (logged)
}

// tabEvent is a session event, decoded.
type tabEvent interface {
	reduce(s tabState, in reduceIn) (tabState, effects)
}

// The session's events the engine follows, as typed structs.

type bindingCalledEvent struct {
	Name    string `json:"name"`
	Payload string `json:"payload"`
	CtxID   int64  `json:"executionContextId"`
}

// scriptReport is what the page's script sends through its binding.
type scriptReport struct {
	Type    string  `json:"type"`
	Page    rawPage `json:"page"`
	Message string  `json:"message"`
}

// frameInfo is a frame as Page.frameNavigated and Page.getFrameTree give it.
type frameInfo struct {
	ID       string `json:"id"`
	ParentID string `json:"parentId"`
	URL      string `json:"url"`
	LoaderID string `json:"loaderId"`
}

type frameNavigatedEvent struct {
	Frame frameInfo `json:"frame"`
}

type sameDocumentEvent struct {
	FrameID string `json:"frameId"`
	URL     string `json:"url"`
}

// navigationEvent is Page.frameRequestedNavigation, frameStartedLoading or
// frameStartedNavigating.
type navigationEvent struct {
	FrameID        string `json:"frameId"`
	NavigationType string `json:"navigationType"`
	Disposition    string `json:"disposition"`
	URL            string `json:"url"`
}

type windowOpenEvent struct {
	URL string `json:"url"`
}

type frameStoppedEvent struct {
	FrameID string `json:"frameId"`
}

// dialogOpeningEvent is Page.javascriptDialogOpening.
type dialogOpeningEvent struct {
	URL           string `json:"url"`
	Message       string `json:"message"`
	Type          string `json:"type"`
	DefaultPrompt string `json:"defaultPrompt"`
}

type dialogClosedEvent struct{}

// requestEvent is Network.requestWillBeSent (Type set), responseReceived
// or loadingFailed (done).
type requestEvent struct {
	RequestID string `json:"requestId"`
	Type      string `json:"type"`
	done      bool
}

// decoders decode each event the engine follows, once, into its type.
var decoders = map[string]func(json.RawMessage) (tabEvent, bool){
	"Page.frameNavigated":           as[frameNavigatedEvent],
	"Page.navigatedWithinDocument":  as[sameDocumentEvent],
	"Page.frameRequestedNavigation": as[navigationEvent],
	"Page.frameStartedLoading":      as[navigationEvent],
	"Page.frameStartedNavigating":   as[navigationEvent],
	"Page.windowOpen":               as[windowOpenEvent],
	"Page.frameStoppedLoading":      as[frameStoppedEvent],
	"Page.javascriptDialogOpening":  as[dialogOpeningEvent],
	"Page.javascriptDialogClosed":   as[dialogClosedEvent],
	"Network.requestWillBeSent":     as[requestEvent],
	// (Answered once its status and headers are in: a page that never
	// reads the body of a fetch gets no loadingFinished for it.)
	"Network.responseReceived": asDone,
	"Network.loadingFailed":    asDone,
}

// as decodes params as a T.
func as[T tabEvent](params json.RawMessage) (tabEvent, bool) {
	var v T
	if len(params) > 0 && json.Unmarshal(params, &v) != nil {
		return nil, false
	}
	return v, true
}

func asDone(params json.RawMessage) (tabEvent, bool) {
	var v requestEvent
	if json.Unmarshal(params, &v) != nil {
		return nil, false
	}
	v.done = true
	return v, true
}

// decode unmarshals params into v, answering whether it could.
func decode[T any](params json.RawMessage) (T, bool) {
	var v T
	err := json.Unmarshal(params, &v)
	return v, err == nil
}

// HandleEvent takes one event of the session (the owner calls it for every
// event, on its reading goroutine: it does not block).
func (e *Engine) HandleEvent(method string, params json.RawMessage) {
	if strings.HasPrefix(method, "Runtime.executionContext") { // Created, Destroyed, sCleared
		e.locked(func() { e.contexts.Note(method, params) })
		return
	}
	if method == "Runtime.bindingCalled" {
		if ev, ok := decode[bindingCalledEvent](params); ok {
			e.onBinding(ev)
		}
		return
	}
	if dec := decoders[method]; dec != nil {
		if ev, ok := dec(params); ok {
			e.take(ev)
		}
	}
}

// take reduces the tab's state by ev and carries out its effects.
func (e *Engine) take(ev tabEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var in reduceIn
	if e.doc != nil && e.doc.ctxID != 0 {
		in.docAlive = e.ourContextLocked(e.doc.ctxID) != ""
	}
	var fx effects
	e.tab, fx = ev.reduce(e.tab, in)
	if fx.keepDoc && e.doc != nil {
		e.doc.commit = e.tab.commits
	}
	if fx.docURL != "" && e.doc != nil {
		e.doc.url = fx.docURL
	}
	if fx.signal {
		e.signalLocked()
	}
	if fx.opened {
		e.log.Debug("page tools: a JavaScript dialog opened", "type", e.tab.dialog.Type, "url", logURL(e.tab.dialog.URL))
	}
	if fx.changed {
		e.broadcastLocked()
	}
	if fx.ensure {
		e.ensureLocked()
	}
}

// locked runs fn with e.mu held and wakes the waiters.
func (e *Engine) locked(fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fn()
	e.broadcastLocked()
}

var changed = effects{changed: true}

func (ev frameNavigatedEvent) reduce(s tabState, in reduceIn) (tabState, effects) {
	// The target's root frame: a page's top frame (no parent), or an
	// iframe target's own frame (whose parent is in another process).
	if ev.Frame.ID == "" || ev.Frame.ID != s.mainFrame && !(ev.Frame.ParentID == "" && !s.iframe) {
		return s, effects{}
	}
	s.mainFrame, s.url, s.loader = ev.Frame.ID, ev.Frame.URL, ev.Frame.LoaderID
	s.commits++
	s.pending = false
	fx := changed
	// A new document's old contexts are gone before it commits; one still
	// alive is this document's: a page restored from the back/forward
	// cache, whose contexts (and script's report) come back before the
	// commit.
	fx.keepDoc = in.docAlive
	return s, fx
}

func (ev sameDocumentEvent) reduce(s tabState, _ reduceIn) (tabState, effects) {
	if ev.FrameID != s.mainFrame {
		return s, effects{}
	}
	s.url = ev.URL
	s.sameDocs++
	return s, effects{changed: true, docURL: ev.URL}
}

func (ev navigationEvent) reduce(s tabState, _ reduceIn) (tabState, effects) {
	if ev.NavigationType == "sameDocument" || ev.NavigationType == "historySameDocument" || ev.FrameID != s.mainFrame {
		return s, effects{}
	}
	switch ev.Disposition {
	case "newTab", "newWindow":
		// A link or form with a target: another tab loads it, not this one.
		s.popups++
		s.popupURL = ev.URL
	case "download":
		return s, effects{}
	default:
		s.starts++
		s.pending = true
	}
	return s, changed
}

func (ev windowOpenEvent) reduce(s tabState, _ reduceIn) (tabState, effects) {
	s.popups++
	s.popupURL = ev.URL
	return s, changed
}

func (ev frameStoppedEvent) reduce(s tabState, _ reduceIn) (tabState, effects) {
	if ev.FrameID != s.mainFrame {
		return s, effects{}
	}
	s.stops++
	s.pending = false
	return s, effects{changed: true, ensure: true}
}

func (ev dialogOpeningEvent) reduce(s tabState, _ reduceIn) (tabState, effects) {
	s.dialog = &Dialog{
		Type:          cleanText(ev.Type, 20),
		Message:       cleanText(ev.Message, dialogTextMax),
		DefaultPrompt: cleanText(ev.DefaultPrompt, dialogTextMax),
		URL:           cleanText(ev.URL, 2048),
	}
	return s, effects{changed: true, signal: true, opened: true}
}

func (dialogClosedEvent) reduce(s tabState, _ reduceIn) (tabState, effects) {
	fx := effects{changed: true, ensure: true}
	if s.dialog != nil {
		s.dialog = nil
		fx.signal = true // the owner hears the page is free again
	}
	return s, fx
}

func (ev requestEvent) reduce(s tabState, _ reduceIn) (tabState, effects) {
	if s.requests == nil || !ev.done && ev.Type != "Fetch" && ev.Type != "XHR" {
		return s, effects{}
	}
	s.requests = maps.Clone(s.requests)
	if ev.done {
		delete(s.requests, ev.RequestID)
	} else {
		s.requests[ev.RequestID] = true
	}
	return s, changed
}

func (e *Engine) onBinding(ev bindingCalledEvent) {
	if ev.Name != e.binding {
		return
	}
	msg, ok := decode[scriptReport](json.RawMessage(ev.Payload))
	if !ok {
		return
	}
	switch msg.Type {
	case "tools":
		e.apply(ev.CtxID, msg.Page)
	case "error":
		e.log.Debug("page tools: discovery failed in the page", "error", msg.Message)
	case "dormant":
		e.log.Debug("page tools: the page script's lease lapsed; it stops watching the page until a renewal")
	}
}

// ensureLocked looks at the page again when the current document has not
// reported: one the script did not reach (restored from the back/forward
// cache, or whose first look a dialog cut short).
func (e *Engine) ensureLocked() {
	if e.started && !e.freshLocked() && !e.ensuring && !e.closed && e.tab.dialog == nil {
		e.ensuring = true
		e.wg.Add(1)
		go e.ensure()
	}
}

// ourContextLocked is the frame of a live execution context of the
// engine's world; "" when the context is gone or another world's.
func (e *Engine) ourContextLocked(id int64) string {
	if frame, world, ok := e.contexts.Frame(id); ok && world == e.world {
		return frame
	}
	return ""
}
