package cdp

import (
	"encoding/json"
	"sort"
)

// The Browser and Target domains of a browser session, for the tabs of the
// virtual browser.

func (v *Virtual) getVersion(_ *vsession, m vcommand, _ map[string]json.RawMessage) {
	product, ua, err := v.host.Version()
	if err != nil {
		v.fail(m, ServerError, "%v", err)
		return
	}
	v.reply(m, map[string]any{"protocolVersion": "1.3", "product": product, "revision": "", "userAgent": ua, "jsVersion": ""})
}

func (v *Virtual) attachToBrowserTarget(s *vsession, m vcommand, _ map[string]json.RawMessage) {
	ns := newBrowserSession(randomID(), s.id)
	v.mu.Lock()
	v.sessions[ns.id] = ns
	v.mu.Unlock()
	v.event(s.id, "Target.attachedToTarget", map[string]any{"sessionId": ns.id, "waitingForDebugger": false, "targetInfo": ns.browserInfo()})
	v.reply(m, map[string]any{"sessionId": ns.id})
}

func (v *Virtual) getBrowserContexts(_ *vsession, m vcommand, _ map[string]json.RawMessage) {
	v.reply(m, map[string]any{"browserContextIds": []string{}, "defaultBrowserContextId": v.ctxID})
}

// infos lists the tab and page targets f allows, in the order of
// activity; v.mu held.
func (v *Virtual) infos(f TargetFilter) []map[string]any {
	infos := []map[string]any{}
	for _, t := range v.sortedTargets() {
		for _, kind := range []string{"tab", "page"} {
			if f.Allows(kind) {
				infos = append(infos, t.info(kind, v.hasSession(t, kindOf(kind)), v.ctxID))
			}
		}
	}
	return infos
}

func (v *Virtual) getTargets(_ *vsession, m vcommand, p map[string]json.RawMessage) {
	v.mu.Lock()
	infos := v.infos(ParseTargetFilter(p["filter"]))
	v.mu.Unlock()
	v.reply(m, map[string]any{"targetInfos": infos})
}

func (v *Virtual) getTargetInfo(s *vsession, m vcommand, p map[string]json.RawMessage) {
	tid := str(p, "targetId")
	if tid == "" || tid == s.browserTID {
		v.reply(m, map[string]any{"targetInfo": s.browserInfo()})
		return
	}
	v.mu.Lock()
	t, kind := v.findTarget(tid)
	var info map[string]any
	if t != nil {
		info = t.info(kind, v.hasSession(t, kindOf(kind)), v.ctxID)
	}
	v.mu.Unlock()
	if t == nil {
		v.fail(m, InvalidParams, "No target with given id found")
		return
	}
	v.reply(m, map[string]any{"targetInfo": info})
}

func (v *Virtual) attachToTarget(s *vsession, m vcommand, p map[string]json.RawMessage) {
	tid := str(p, "targetId")
	if !boolean(p, "flatten") {
		v.flatOnly(m)
		return
	}
	v.spawn(func() {
		v.mu.Lock()
		t, kind := v.findTarget(tid)
		v.mu.Unlock()
		if t == nil {
			v.fail(m, InvalidParams, "No target with given id found")
			return
		}
		id, err := v.attachTarget(s, t, kindOf(kind), false)
		if err != nil {
			v.fail(m, ServerError, "%v", err)
			return
		}
		v.reply(m, map[string]any{"sessionId": id})
	})
}

func (v *Virtual) detachFromTarget(s *vsession, m vcommand, p map[string]json.RawMessage) {
	sid, tid := str(p, "sessionId"), str(p, "targetId")
	v.mu.Lock()
	if sid == "" && tid != "" {
		for _, x := range v.sessions {
			if x.parent == s.id && x.tgt != nil && (x.tgt.pageID == tid || x.tgt.tabTID == tid) {
				sid = x.id
				break
			}
		}
	}
	x := v.sessions[sid]
	v.mu.Unlock()
	if x == nil || sid == "" {
		v.fail(m, ServerError, "No session with given id")
		return
	}
	v.detachSession(x)
	v.reply(m, nil)
}

func (v *Virtual) closeTarget(_ *vsession, m vcommand, p map[string]json.RawMessage) {
	v.tabRequest(m, p, v.host.Close, map[string]any{"success": true})
}

func (v *Virtual) activateTarget(_ *vsession, m vcommand, p map[string]json.RawMessage) {
	v.tabRequest(m, p, v.host.Focus, struct{}{})
}

func (v *Virtual) sendMessageToTarget(_ *vsession, m vcommand, _ map[string]json.RawMessage) {
	v.fail(m, ServerError, "%s offers flat sessions only: send commands with a sessionId instead of Target.sendMessageToTarget", v.words.Backend)
}

// findTarget finds a target by a page or tab target id; v.mu held.
func (v *Virtual) findTarget(id string) (*vtarget, string) {
	for _, t := range v.targets {
		if t.pageID == id {
			return t, "page"
		}
		if t.tabTID == id {
			return t, "tab"
		}
	}
	return nil, ""
}

// hasSession reports whether some session is attached to t's target of kind; v.mu held.
func (v *Virtual) hasSession(t *vtarget, kind sessionKind) bool {
	for _, s := range v.sessions {
		if s.tgt == t && s.kind == kind {
			return true
		}
	}
	return false
}

// sortedTargets lists targets in the order of their activity, the most
// recent last (tabs never active first, by tab id): the order a client's
// tab follower learns them in is the order the tabs were used, so the tab
// in front is the last one it hears of. v.mu held.
func (v *Virtual) sortedTargets() []*vtarget {
	rank := v.recent.Rank()
	ts := make([]*vtarget, 0, len(v.targets))
	for _, t := range v.targets {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		if ri, rj := rank[ts[i].tabID], rank[ts[j].tabID]; ri != rj {
			return ri < rj
		}
		return ts[i].tabID < ts[j].tabID
	})
	return ts
}

func (v *Virtual) setDiscover(s *vsession, m vcommand, p map[string]json.RawMessage) {
	on := boolean(p, "discover")
	v.mu.Lock()
	was := s.discover
	s.discover = on
	s.discoverF = ParseTargetFilter(p["filter"])
	var created []map[string]any
	if on && !was {
		if s.discoverF.Allows("browser") {
			created = append(created, s.browserInfo())
		}
		created = append(created, v.infos(s.discoverF)...)
	}
	v.mu.Unlock()
	for _, info := range created {
		v.event(s.id, "Target.targetCreated", map[string]any{"targetInfo": info})
	}
	v.reply(m, nil)
}

// createTarget opens a tab for the agent (the host's Open) and answers
// once the sessions that auto-attach have it.
func (v *Virtual) createTarget(m vcommand, p map[string]json.RawMessage) {
	url, ctxID, background := str(p, "url"), str(p, "browserContextId"), boolean(p, "background")
	if ctxID != "" && ctxID != v.ctxID {
		v.fail(m, ServerError, "%s has one browser context (the user's profile): no context %s", v.words.Backend, ctxID)
		return
	}
	if url == "" {
		url = "about:blank"
	}
	v.spawn(func() {
		tab, err := v.host.Open(url, !background)
		if err != nil {
			v.fail(m, ServerError, "%v", err)
			return
		}
		// The host told of the tab before this answer: the target is
		// known, and its auto-attaches are under way.
		v.mu.Lock()
		t := v.targets[tab]
		if t != nil && background {
			v.recent.Hold(tab)
		}
		v.mu.Unlock()
		if t == nil {
			v.fail(m, ServerError, "tab %d closed as soon as it opened", tab)
			return
		}
		<-t.ready
		v.mu.Lock()
		pageID := t.pageID
		v.mu.Unlock()
		v.reply(m, map[string]any{"targetId": pageID})
	})
}

// tabRequest runs call (close, focus) for the target in params.targetId.
func (v *Virtual) tabRequest(m vcommand, p map[string]json.RawMessage, call func(int, func(error)), result any) {
	v.mu.Lock()
	t, _ := v.findTarget(str(p, "targetId"))
	v.mu.Unlock()
	if t == nil {
		v.fail(m, InvalidParams, "No target with given id found")
		return
	}
	call(t.tabID, func(err error) {
		if err != nil {
			v.fail(m, ServerError, "%v", err)
			return
		}
		v.reply(m, result)
	})
}
