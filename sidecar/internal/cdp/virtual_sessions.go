package cdp

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Sessions of the virtual browser: attaching (on request and automatic),
// detaching, and the tab and page sessions' commands.

// setAuto takes Target.setAutoAttach's settings for session s; a request
// for sessions that are not flat is answered with an error (false).
func (v *Virtual) setAuto(s *vsession, m vcommand, p map[string]json.RawMessage) (on, ok bool) {
	on = boolean(p, "autoAttach")
	if on && !boolean(p, "flatten") {
		v.flatOnly(m)
		return false, false
	}
	v.mu.Lock()
	s.autoAttach = on
	s.autoF = ParseTargetFilter(p["filter"])
	v.mu.Unlock()
	return on, true
}

// setAutoAttach on a browser session attaches to every matching target now
// and to each new one; off detaches what it auto-attached.
func (v *Virtual) setAutoAttach(s *vsession, m vcommand, p map[string]json.RawMessage) {
	on, ok := v.setAuto(s, m, p)
	if !ok {
		return
	}
	v.mu.Lock()
	var drop []*vsession
	if !on {
		for _, x := range v.sessions {
			if x.parent == s.id && x.auto {
				drop = append(drop, x)
			}
		}
	}
	targets := v.sortedTargets()
	v.mu.Unlock()
	for _, x := range drop {
		v.detachSession(x)
	}
	if !on {
		v.reply(m, nil)
		return
	}
	v.spawn(func() {
		for _, t := range targets {
			v.autoAttachOne(s, t)
		}
		v.reply(m, nil)
	})
}

// autoAttachKind is the kind of t's target that s auto-attaches to, if
// any (and not already); v.mu held.
func (v *Virtual) autoAttachKind(s *vsession, t *vtarget) (sessionKind, bool) {
	if !s.autoAttach || v.sessions[s.id] != s || v.targets[t.tabID] != t {
		return 0, false
	}
	kind := kindPage
	switch {
	case s.kind == kindTab:
		// a tab session's only child is its page
	case s.autoF.Allows("page"):
	case s.autoF.Allows("tab"):
		kind = kindTab
	default:
		return 0, false
	}
	for _, x := range v.sessions {
		if x.parent == s.id && x.tgt == t && x.kind == kind {
			return 0, false
		}
	}
	return kind, true
}

// autoAttachOne attaches browser or tab session s to t's matching target,
// unless it already has it.
func (v *Virtual) autoAttachOne(s *vsession, t *vtarget) {
	v.mu.Lock()
	kind, ok := v.autoAttachKind(s, t)
	key := fmt.Sprintf("%s/%d/%d", s.id, t.tabID, kind)
	if !ok || v.attaching[key] {
		v.mu.Unlock()
		return // nothing to do, or a concurrent auto-attach (the tab arrived while setAutoAttach ran) is on it
	}
	v.attaching[key] = true
	v.mu.Unlock()
	_, err := v.attachTarget(s, t, kind, true)
	v.mu.Lock()
	delete(v.attaching, key)
	v.mu.Unlock()
	if err != nil {
		v.log.Warn("auto-attach to a tab", "tab", t.tabID, "err", err)
	}
}

// attachTarget makes a session for t's tab or page target under parent,
// attaching the host's debugger to the tab for a page, then tells parent
// (Target.attachedToTarget) and returns the new session's id.
func (v *Virtual) attachTarget(parent *vsession, t *vtarget, kind sessionKind, auto bool) (string, error) {
	if kind == kindPage {
		if err := v.acquire(t); err != nil {
			return "", err
		}
	}
	id := randomID()
	ns := &vsession{id: id, kind: kind, parent: parent.id, tgt: t, auto: auto, enabled: map[string]bool{}, autoF: DefaultTargetFilter(), discoverF: DefaultTargetFilter()}
	v.mu.Lock()
	if v.sessions[parent.id] != parent || v.targets[t.tabID] != t {
		url := t.url
		v.mu.Unlock()
		if kind == kindPage {
			v.release(t)
		}
		return "", fmt.Errorf("tab %d (%s) was closed while attaching", t.tabID, url)
	}
	v.sessions[id] = ns
	info := t.info(kindName(kind), true, v.ctxID)
	v.mu.Unlock()
	v.event(parent.id, "Target.attachedToTarget", map[string]any{"sessionId": id, "targetInfo": info, "waitingForDebugger": false})
	return id, nil
}

// acquire makes sure the host's debugger is attached to t's tab for this
// browser, counting the page sessions that use it.
func (v *Virtual) acquire(t *vtarget) error {
	v.mu.Lock()
	a := v.attach[t.tabID]
	if a == nil {
		a = &attachment{done: make(chan struct{})}
		v.attach[t.tabID] = a
		v.mu.Unlock()
		a.err = v.host.Attach(t.tabID)
		v.mu.Lock()
		close(a.done)
		if a.err != nil && v.attach[t.tabID] == a {
			delete(v.attach, t.tabID)
		}
	} else {
		v.mu.Unlock()
		<-a.done
		v.mu.Lock()
	}
	defer v.mu.Unlock()
	if a.err != nil {
		return a.err
	}
	a.users++
	return nil
}

// release undoes acquire; the last user detaches the host's debugger.
func (v *Virtual) release(t *vtarget) {
	v.mu.Lock()
	a := v.attach[t.tabID]
	if a == nil {
		v.mu.Unlock()
		return
	}
	a.users--
	last := a.users <= 0
	if last {
		v.forgetAttachment(t.tabID)
	}
	v.mu.Unlock()
	if last {
		v.host.Detach(t.tabID)
	}
}

// detachSession ends a tab or page session (and the sessions below it) and
// tells its parent.
func (v *Virtual) detachSession(s *vsession) {
	v.mu.Lock()
	if v.sessions[s.id] != s {
		v.mu.Unlock()
		return
	}
	var below []*vsession
	for _, x := range v.sessions {
		if x.parent == s.id && x.id != "" {
			below = append(below, x)
		}
	}
	v.mu.Unlock()
	for _, x := range below {
		v.detachSession(x)
	}
	v.mu.Lock()
	delete(v.sessions, s.id)
	var tid string
	switch s.kind {
	case kindBrowser:
		tid = s.browserTID
	case kindTab:
		tid = s.tgt.tabTID
	default:
		tid = s.tgt.pageID
	}
	v.mu.Unlock()
	if s.kind == kindPage {
		v.release(s.tgt)
	}
	v.event(s.parent, "Target.detachedFromTarget", map[string]any{"sessionId": s.id, "targetId": tid})
}

// tabCommand answers a tab target's session: it offers auto-attach to its
// page and little else, as Chrome's tab targets do.
func (v *Virtual) tabCommand(s *vsession, m vcommand) {
	p := params(m.Params)
	switch m.Method {
	case "Target.setAutoAttach":
		on, ok := v.setAuto(s, m, p)
		if !ok {
			return
		}
		if !on {
			v.reply(m, nil)
			return
		}
		v.spawn(func() {
			v.autoAttachOne(s, s.tgt)
			v.reply(m, nil)
		})
	case "Runtime.runIfWaitingForDebugger":
		v.reply(m, nil)
	case "Target.getTargetInfo":
		v.targetInfo(s, m)
	case "Target.detachFromTarget":
		v.mu.Lock()
		x := v.sessions[str(p, "sessionId")]
		v.mu.Unlock()
		if x == nil || x.parent != s.id {
			v.fail(m, ServerError, "No session with given id")
			return
		}
		v.detachSession(x)
		v.reply(m, nil)
	default:
		v.fail(m, ServerError, "'%s' wasn't found (a tab target offers Target.setAutoAttach to reach its page)", m.Method)
	}
}

// targetInfo answers Target.getTargetInfo on a tab or page session.
func (v *Virtual) targetInfo(s *vsession, m vcommand) {
	v.mu.Lock()
	info := s.tgt.info(kindName(s.kind), true, v.ctxID)
	v.mu.Unlock()
	v.reply(m, map[string]any{"targetInfo": info})
}

// pageCommand sends a page session's command to the tab through the
// host, keeping a few answers of its own.
func (v *Virtual) pageCommand(s *vsession, m vcommand) {
	var replay func() // events the session missed, sent just before its answer
	switch {
	case m.Method == "Target.getTargetInfo":
		v.targetInfo(s, m)
		return
	case strings.HasSuffix(m.Method, ".disable"):
		domain := strings.TrimSuffix(m.Method, ".disable")
		v.mu.Lock()
		s.enabled[domain] = false
		shared := v.othersUse(s, domain)
		v.mu.Unlock()
		if shared {
			// Another session on this tab still uses the domain: the
			// debugger session is shared, so it stays on.
			v.reply(m, nil)
			return
		}
	case m.Method == "Runtime.enable" || m.Method == "Target.setAutoAttach":
		replay = v.enableShared(s, m)
	case strings.HasSuffix(m.Method, ".enable"):
		v.mu.Lock()
		s.enabled[strings.TrimSuffix(m.Method, ".enable")] = true
		v.mu.Unlock()
	}
	v.forward(m, s.tgt.tabID, "", replay)
}

// enableShared notes Runtime.enable or a page's Target.setAutoAttach: on
// a debugger session where another page session already did this, the
// browser reports nothing again, so the execution contexts (or the
// attached iframes and workers) that exist are replayed to this session,
// as a session of its own would have heard them. It returns the replay.
func (v *Virtual) enableShared(s *vsession, m vcommand) func() {
	key := strings.TrimSuffix(m.Method, ".enable")
	v.mu.Lock()
	again := v.othersUse(s, key)
	s.enabled[key] = true
	if on := params(m.Params)["autoAttach"]; m.Method == "Target.setAutoAttach" && string(on) != "true" {
		s.enabled[key], again = false, false
	}
	var events []json.RawMessage
	if r := v.replay[s.tgt.tabID]; r != nil {
		switch {
		case again:
			events = r.snapshot(m.Method)
		case m.Method == "Runtime.enable":
			r.contexts.Clear() // the browser reports every context afresh
		}
	}
	v.mu.Unlock()
	method := "Runtime.executionContextCreated"
	if m.Method == "Target.setAutoAttach" {
		method = "Target.attachedToTarget"
	}
	return func() {
		for _, p := range events {
			v.event(s.id, method, p)
		}
	}
}

// othersUse reports whether another page session on s's tab has key
// (a domain, or Target.setAutoAttach) on; v.mu held.
func (v *Virtual) othersUse(s *vsession, key string) bool {
	for _, x := range v.sessions {
		if x != s && x.kind == kindPage && x.tgt == s.tgt && x.enabled[key] {
			return true
		}
	}
	return false
}

// forward sends a command to a tab (child: a child session of its
// debugger session) and answers with the tab's answer, under the caller's
// session id, running then (when not nil) after a successful answer comes
// and before it is passed on. The policy's rewrite (m.then) sees the
// answer, an error too; a host's *Error is the browser's, passed on as it
// is.
func (v *Virtual) forward(m vcommand, tabID int, child string, then func()) {
	v.host.Send(tabID, child, m.Method, m.Params, func(result json.RawMessage, err error) {
		if err == nil && then != nil {
			then()
		}
		if m.then == nil && err == nil {
			v.replyRaw(m, result)
			return
		}
		a := &Message{ID: strconv.AppendInt(nil, m.ID, 10), SessionID: m.SessionID, Result: result}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				e = &Error{Code: ServerError, Message: err.Error()}
			}
			a.Result, a.Error = nil, e
		}
		if m.then != nil {
			a = m.then(a)
		}
		msg, _ := json.Marshal(a)
		v.out(msg)
	})
}

// pageSessions lists the page sessions on a tab, by id; v.mu held.
func (v *Virtual) pageSessions(tabID int) []string {
	var sids []string
	for _, s := range v.sessions {
		if s.kind == kindPage && s.tgt.tabID == tabID {
			sids = append(sids, s.id)
		}
	}
	sort.Strings(sids)
	return sids
}
