package pagetools

import "encoding/json"

// The session's events the engine follows, as typed structs.

type contextCreatedEvent struct {
	Context struct {
		ID      int64  `json:"id"`
		Name    string `json:"name"`
		AuxData struct {
			FrameID string `json:"frameId"`
		} `json:"auxData"`
	} `json:"context"`
}

type contextDestroyedEvent struct {
	ID int64 `json:"executionContextId"`
}

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

// decode unmarshals params into v, answering whether it could.
func decode[T any](params json.RawMessage) (T, bool) {
	var v T
	err := json.Unmarshal(params, &v)
	return v, err == nil
}

// HandleEvent takes one event of the session (the owner calls it for every
// event, on its reading goroutine: it does not block).
func (e *Engine) HandleEvent(method string, params json.RawMessage) {
	switch method {
	case "Runtime.executionContextCreated":
		if ev, ok := decode[contextCreatedEvent](params); ok {
			e.onContextCreated(ev)
		}
	case "Runtime.executionContextDestroyed":
		if ev, ok := decode[contextDestroyedEvent](params); ok {
			e.locked(func() { delete(e.contexts, ev.ID) })
		}
	case "Runtime.executionContextsCleared":
		e.locked(func() { clear(e.contexts) })
	case "Runtime.bindingCalled":
		if ev, ok := decode[bindingCalledEvent](params); ok {
			e.onBinding(ev)
		}
	case "Page.frameNavigated":
		if ev, ok := decode[frameNavigatedEvent](params); ok && ev.Frame.ID != "" {
			e.onFrameNavigated(ev)
		}
	case "Page.navigatedWithinDocument":
		if ev, ok := decode[sameDocumentEvent](params); ok {
			e.onSameDocument(ev)
		}
	case "Page.frameRequestedNavigation", "Page.frameStartedLoading", "Page.frameStartedNavigating":
		if ev, ok := decode[navigationEvent](params); ok {
			e.onNavigation(ev)
		}
	case "Page.windowOpen":
		if ev, ok := decode[windowOpenEvent](params); ok {
			e.locked(func() { e.popups++; e.popupURL = ev.URL })
		}
	case "Page.frameStoppedLoading":
		if ev, ok := decode[frameStoppedEvent](params); ok {
			e.onFrameStopped(ev)
		}
	case "Page.javascriptDialogOpening":
		if ev, ok := decode[dialogOpeningEvent](params); ok {
			e.onDialogOpening(ev)
		}
	case "Page.javascriptDialogClosed":
		e.onDialogClosed()
	case "Network.requestWillBeSent":
		if ev, ok := decode[requestEvent](params); ok {
			e.onRequest(ev)
		}
	case "Network.loadingFinished", "Network.loadingFailed":
		if ev, ok := decode[requestEvent](params); ok {
			e.onRequestDone(ev)
		}
	}
}

// locked runs fn with e.mu held and wakes the waiters.
func (e *Engine) locked(fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fn()
	e.broadcastLocked()
}

func (e *Engine) onContextCreated(ev contextCreatedEvent) {
	if ev.Context.Name != e.world {
		return
	}
	e.locked(func() { e.contexts[ev.Context.ID] = ev.Context.AuxData.FrameID })
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
	}
}

func (e *Engine) onFrameNavigated(ev frameNavigatedEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	// The target's root frame: a page's top frame (no parent), or an
	// iframe target's own frame (whose parent is in another process).
	if ev.Frame.ID != e.mainFrame && !(ev.Frame.ParentID == "" && !e.iframe) {
		return
	}
	e.mainFrame, e.url, e.loader = ev.Frame.ID, ev.Frame.URL, ev.Frame.LoaderID
	e.commits++
	e.pending = false
	if e.doc != nil {
		if _, alive := e.contexts[e.doc.ctxID]; alive {
			// A new document's old contexts are gone before it commits;
			// one still alive is this document's: a page restored from
			// the back/forward cache, whose contexts (and script's
			// report) come back before the commit.
			e.doc.commit = e.commits
		}
	}
	e.broadcastLocked()
}

func (e *Engine) onSameDocument(ev sameDocumentEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ev.FrameID != e.mainFrame {
		return
	}
	e.url = ev.URL
	e.sameDocs++
	if e.doc != nil {
		e.doc.url = ev.URL
	}
	e.broadcastLocked()
}

func (e *Engine) onNavigation(ev navigationEvent) {
	if ev.NavigationType == "sameDocument" || ev.NavigationType == "historySameDocument" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case ev.FrameID != e.mainFrame:
		return
	case ev.Disposition == "newTab" || ev.Disposition == "newWindow":
		// A link or form with a target: another tab loads it, not this one.
		e.popups++
		e.popupURL = ev.URL
	case ev.Disposition != "download":
		e.starts++
		e.pending = true
	default:
		return
	}
	e.broadcastLocked()
}

func (e *Engine) onFrameStopped(ev frameStoppedEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ev.FrameID != e.mainFrame {
		return
	}
	e.stops++
	e.pending = false
	e.broadcastLocked()
	e.ensureLocked()
}

// ensureLocked looks at the page again when the current document has not
// reported: one the script did not reach (restored from the back/forward
// cache, or whose first look a dialog cut short).
func (e *Engine) ensureLocked() {
	if e.started && !e.freshLocked() && !e.ensuring && !e.closed && e.dialog == nil {
		e.ensuring = true
		e.wg.Add(1)
		go e.ensure()
	}
}

func (e *Engine) onDialogOpening(ev dialogOpeningEvent) {
	d := &Dialog{
		Type:          cleanText(ev.Type, 20),
		Message:       cleanText(ev.Message, dialogTextMax),
		DefaultPrompt: cleanText(ev.DefaultPrompt, dialogTextMax),
		URL:           cleanText(ev.URL, 2048),
	}
	e.locked(func() { e.dialog = d; e.signalLocked() })
	e.log.Debug("page tools: a JavaScript dialog opened", "type", d.Type, "url", logURL(d.URL))
}

func (e *Engine) onDialogClosed() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dialog != nil {
		e.dialog = nil
		e.signalLocked() // the owner hears the page is free again
	}
	e.broadcastLocked()
	e.ensureLocked()
}
