package cdp

import (
	"cmp"
	"encoding/json"
	"slices"
	"sort"
)

// What the host reports: tabs appearing, changing and going, its debugger
// leaving a tab, and the tabs' CDP events.

// VirtualTab is one tab as the host reports it.
type VirtualTab struct {
	ID       int
	TargetID string // its page target's id ("": not known yet)
	Title    string
	URL      string
	Active   bool   // shown in its window
	Agent    bool   // opened by the agent, not the user's
	OpenerID string // the page target whose page opened it, or ""
}

// Connected takes the tabs the host reported on connect. They are
// announced in the order of their activity before a disconnection (the tab
// that was in front comes last, so it is in front again); tabs not seen
// before come first, the one the browser shows (active) last among them:
// on a first connection that is the tab in front.
func (v *Virtual) Connected(tabs []VirtualTab) {
	v.mu.Lock()
	rank := v.recent.Rank()
	v.recent.Reset() // rebuilt as the tabs appear, in this order
	v.mu.Unlock()
	tabs = slices.Clone(tabs)
	slices.SortStableFunc(tabs, func(x, y VirtualTab) int {
		if c := cmp.Compare(rank[x.ID], rank[y.ID]); c != 0 || rank[x.ID] > 0 {
			return c
		}
		return cmp.Compare(b2i(x.Active), b2i(y.Active))
	})
	for _, t := range tabs {
		v.TabChanged(t)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TabChanged adds or updates a target and tells the sessions that watch.
func (v *Virtual) TabChanged(tab VirtualTab) {
	v.mu.Lock()
	if t := v.targets[tab.ID]; t != nil {
		events := v.updateTarget(t, tab)
		v.mu.Unlock()
		for _, e := range events {
			e()
		}
		return
	}
	if tab.TargetID == "" {
		v.mu.Unlock()
		v.log.Debug("a tab without a target id yet", "tab", tab.ID)
		return
	}
	t := &vtarget{tabID: tab.ID, pageID: tab.TargetID, tabTID: randomID(), title: tab.Title, url: tab.URL, agent: tab.Agent, opener: tab.OpenerID, ready: make(chan struct{})}
	v.targets[tab.ID] = t
	v.recent.Touch(tab.ID)
	type note struct {
		sid  string
		info map[string]any
	}
	var notes []note
	var autos []*vsession
	for _, s := range v.sessions {
		if s.kind != kindBrowser {
			continue
		}
		for _, kind := range []string{"tab", "page"} {
			if s.discover && s.discoverF.Allows(kind) {
				notes = append(notes, note{s.id, t.info(kind, false, v.ctxID)})
			}
		}
		if s.autoAttach {
			autos = append(autos, s)
		}
	}
	v.mu.Unlock()
	for _, n := range notes {
		v.event(n.sid, "Target.targetCreated", map[string]any{"targetInfo": n.info})
	}
	v.spawn(func() {
		defer close(t.ready)
		for _, s := range autos {
			v.autoAttachOne(s, t)
		}
	})
}

// updateTarget takes a known tab's news and returns the events that tell
// the watching sessions (Target.targetInfoChanged); v.mu held.
func (v *Virtual) updateTarget(t *vtarget, tab VirtualTab) []func() {
	changed := t.title != tab.Title || t.url != tab.URL || (tab.TargetID != "" && t.pageID != tab.TargetID) || t.opener != tab.OpenerID
	if t.url != tab.URL {
		v.recent.Navigated(tab.ID, t.url, tab.URL)
	}
	t.title, t.url, t.agent, t.opener = tab.Title, tab.URL, tab.Agent, tab.OpenerID
	if tab.TargetID != "" {
		t.pageID = tab.TargetID
	}
	if !changed {
		return nil
	}
	var events []func()
	for _, s := range v.sessions {
		if s.kind != kindBrowser || !s.discover {
			continue
		}
		for _, kind := range []string{"tab", "page"} {
			if s.discoverF.Allows(kind) {
				info := t.info(kind, v.hasSession(t, kindOf(kind)), v.ctxID)
				sid := s.id
				events = append(events, func() { v.event(sid, "Target.targetInfoChanged", map[string]any{"targetInfo": info}) })
			}
		}
	}
	return events
}

// TabClosed removes a tab for good: its sessions detach, its targets are
// destroyed.
func (v *Virtual) TabClosed(tabID int) { v.tabGone(tabID, true) }

// tabGone removes a tab (closed: for good; else it keeps its place in the
// order for when it comes back).
func (v *Virtual) tabGone(tabID int, closed bool) {
	v.mu.Lock()
	t := v.targets[tabID]
	if t == nil {
		v.mu.Unlock()
		return
	}
	delete(v.targets, tabID)
	if closed {
		v.recent.Forget(tabID)
	}
	if v.active == tabID {
		v.active = 0
	}
	pageID, tabTID := t.pageID, t.tabTID
	var sess, watchers []*vsession
	for _, s := range v.sessions {
		// The sessions on t that are not below another session on t:
		// detaching them detaches the ones below.
		if p := v.sessions[s.parent]; s.tgt == t && (p == nil || p.tgt != t) {
			sess = append(sess, s)
		}
		if s.kind == kindBrowser && s.discover {
			watchers = append(watchers, s)
		}
	}
	v.mu.Unlock()
	for _, s := range sess {
		v.detachSession(s)
	}
	for _, s := range watchers {
		if s.discoverF.Allows("page") {
			v.event(s.id, "Target.targetDestroyed", map[string]any{"targetId": pageID})
		}
		if s.discoverF.Allows("tab") {
			v.event(s.id, "Target.targetDestroyed", map[string]any{"targetId": tabTID})
		}
	}
	v.log.Debug("tab gone", "tab", tabID, "closed", closed)
}

// forgetAttachment drops what the host's debugger on a tab carried: the
// attachment, what a second session would replay, the child sessions;
// v.mu held.
func (v *Virtual) forgetAttachment(tabID int) {
	delete(v.attach, tabID)
	delete(v.replay, tabID)
	for child, c := range v.children {
		if c.tab == tabID {
			delete(v.children, child)
		}
	}
}

// DebuggerDetached: the host's debugger left the tab (the user cancelled
// it in the browser's bar, the tab crashed): its page sessions end.
func (v *Virtual) DebuggerDetached(tabID int, reason string) {
	v.mu.Lock()
	v.forgetAttachment(tabID)
	var sess []*vsession
	for _, s := range v.sessions {
		if s.kind == kindPage && s.tgt != nil && s.tgt.tabID == tabID {
			sess = append(sess, s)
		}
	}
	v.mu.Unlock()
	v.log.Info("the browser detached from a tab", "tab", tabID, "reason", reason)
	for _, s := range sess {
		v.mu.Lock()
		delete(v.sessions, s.id) // no release: the attachment is already gone
		pageID := s.tgt.pageID
		v.mu.Unlock()
		v.event(s.parent, "Target.detachedFromTarget", map[string]any{"sessionId": s.id, "targetId": pageID})
	}
}

// TabEvent delivers a tab's event (session: a child session of its
// debugger session, "" for the tab's own) to its page sessions, or to the
// child session it came from.
func (v *Virtual) TabEvent(tabID int, session, method string, params json.RawMessage) {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	if session != "" {
		v.mu.Lock()
		_, ok := v.children[session]
		v.mu.Unlock()
		if ok {
			v.trackChild(tabID, method, params)
			v.event(session, method, params)
		}
		return
	}
	v.trackChild(tabID, method, params)
	v.mu.Lock()
	if v.attach[tabID] != nil {
		r := v.replay[tabID]
		if r == nil {
			r = &tabReplay{}
			v.replay[tabID] = r
		}
		r.note(method, params)
	}
	sids := v.pageSessions(tabID)
	v.mu.Unlock()
	for _, sid := range sids {
		v.event(sid, method, params)
	}
}

// trackChild learns the child sessions (iframes, workers) the host's
// debugger attaches, so commands on them reach the right tab.
func (v *Virtual) trackChild(tabID int, method string, params json.RawMessage) {
	if method != "Target.attachedToTarget" && method != "Target.detachedFromTarget" {
		return
	}
	var p struct {
		SessionID  string `json:"sessionId"`
		TargetInfo struct {
			TargetID string `json:"targetId"`
		} `json:"targetInfo"`
	}
	if json.Unmarshal(params, &p) != nil || p.SessionID == "" {
		return
	}
	v.mu.Lock()
	if method == "Target.attachedToTarget" {
		v.children[p.SessionID] = childOf{tab: tabID, target: p.TargetInfo.TargetID}
	} else {
		delete(v.children, p.SessionID)
	}
	v.mu.Unlock()
}

// childOf is a child session's tab and target.
type childOf struct {
	tab    int
	target string
}

// ofTab: is target id the tab's page, or a frame or worker attached below
// it? A child session is told of these only: the browser would answer it
// about any target (another tab's, the browser's own).
func (v *Virtual) ofTab(tabID int, id string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if t := v.targets[tabID]; t != nil && t.pageID == id {
		return true
	}
	for _, c := range v.children {
		if c.tab == tabID && c.target == id {
			return true
		}
	}
	return false
}

// Disconnected forgets every tab: the host is gone. The tabs keep their
// places in the order of activity for when they come back.
func (v *Virtual) Disconnected() {
	v.mu.Lock()
	ids := make([]int, 0, len(v.targets))
	for id := range v.targets {
		ids = append(ids, id)
	}
	v.attach = map[int]*attachment{}
	v.children = map[string]childOf{}
	v.replay = map[int]*tabReplay{}
	v.mu.Unlock()
	sort.Ints(ids)
	for _, id := range ids {
		v.tabGone(id, false)
	}
}

// TabFocused: the browser brought a tab to the front.
func (v *Virtual) TabFocused(tabID int) {
	v.mu.Lock()
	if v.targets[tabID] == nil {
		v.mu.Unlock()
		return
	}
	v.log.Debug("a tab came to the front", "tab", tabID)
	v.recent.Touch(tabID)
	v.active = tabID
	v.mu.Unlock()
	if v.front != nil {
		v.front()
	}
}
