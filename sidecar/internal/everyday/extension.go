package everyday

import (
	"cmp"
	"encoding/json"
	"slices"
	"sort"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
)

// What the extension reports: tabs appearing, changing and going, its
// debugger leaving a tab, and the tabs' CDP events.

// connected takes the tabs the extension reported on connect. They are
// announced in the order of their activity before a disconnection (the
// tab that was in front comes last, so it is in front again); tabs not
// seen before come first, the one the browser shows (active) last among
// them: on a first connection that is the tab in front.
func (b *browser) connected(tabs []nativemsg.Tab) {
	b.mu.Lock()
	rank := map[int]int{}
	for i, id := range b.recent {
		rank[id] = i + 1
	}
	b.recent = nil // rebuilt as the tabs appear, in this order
	b.mu.Unlock()
	tabs = slices.Clone(tabs)
	slices.SortStableFunc(tabs, func(x, y nativemsg.Tab) int {
		if c := cmp.Compare(rank[x.ID], rank[y.ID]); c != 0 || rank[x.ID] > 0 {
			return c
		}
		return cmp.Compare(b2i(x.Active), b2i(y.Active))
	})
	for _, t := range tabs {
		b.tabAppeared(t)
	}
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// extEvent takes one event from the extension.
func (b *browser) extEvent(env nativemsg.Envelope) {
	switch env.Type {
	case "tabCreated", "tabUpdated":
		if env.Tab != nil {
			b.tabAppeared(*env.Tab)
		}
	case "tabClosed":
		b.tabGone(env.TabID, "closed")
	case "tabFocused":
		// The user or focusTab brought a tab to the front; CDP has no
		// event for it: Conn.Activations says it.
		b.tabFocused(env.TabID)
	case "detached":
		b.debuggerDetached(env.TabID, env.Reason)
	case "cdpEvent":
		b.cdpEvent(env)
	default:
		b.c.log.Debug("an event this version does not know", "type", env.Type)
	}
}

// tabAppeared adds or updates a target and tells the sessions that watch.
func (b *browser) tabAppeared(tab nativemsg.Tab) {
	b.mu.Lock()
	t := b.targets[tab.ID]
	if t != nil {
		changed := t.title != tab.Title || t.url != tab.URL || (tab.TargetID != "" && t.pageID != tab.TargetID) || t.opener != tab.OpenerID
		if t.url != tab.URL {
			b.navigated(tab.ID, t.url, tab.URL)
		}
		t.title, t.url, t.agent, t.opener = tab.Title, tab.URL, tab.Agent, tab.OpenerID
		if tab.TargetID != "" {
			t.pageID = tab.TargetID
		}
		var events []func()
		if changed {
			for _, s := range b.sessions {
				if s.kind != kindBrowser || !s.discover {
					continue
				}
				for _, kind := range []string{"tab", "page"} {
					if s.discoverF.allows(kind) {
						info := t.info(kind, b.hasSession(t, kindOf(kind)), b.ctxID)
						sid := s.id
						events = append(events, func() { b.event(sid, "Target.targetInfoChanged", map[string]any{"targetInfo": info}) })
					}
				}
			}
		}
		b.mu.Unlock()
		for _, e := range events {
			e()
		}
		return
	}
	if tab.TargetID == "" {
		b.mu.Unlock()
		b.c.log.Debug("a tab without a target id yet", "tab", tab.ID)
		return
	}
	t = &target{tabID: tab.ID, pageID: tab.TargetID, tabTID: randomID(), title: tab.Title, url: tab.URL, agent: tab.Agent, opener: tab.OpenerID, ready: make(chan struct{})}
	b.targets[tab.ID] = t
	b.touch(tab.ID)
	type note struct {
		sid  string
		info map[string]any
	}
	var notes []note
	var autos []*session
	for _, s := range b.sessions {
		if s.kind != kindBrowser {
			continue
		}
		if s.discover {
			for _, kind := range []string{"tab", "page"} {
				if s.discoverF.allows(kind) {
					notes = append(notes, note{s.id, t.info(kind, false, b.ctxID)})
				}
			}
		}
		if s.autoAttach {
			autos = append(autos, s)
		}
	}
	b.mu.Unlock()
	for _, n := range notes {
		b.event(n.sid, "Target.targetCreated", map[string]any{"targetInfo": n.info})
	}
	b.c.spawn(func() {
		defer close(t.ready)
		for _, s := range autos {
			b.autoAttachOne(s, t)
		}
	})
}

// tabGone removes a tab: its sessions detach, its targets are destroyed.
func (b *browser) tabGone(tabID int, why string) {
	b.mu.Lock()
	t := b.targets[tabID]
	if t == nil {
		b.mu.Unlock()
		return
	}
	delete(b.targets, tabID)
	if why != whyDisconnected {
		// Closed: gone for good. A disconnected tab keeps its place for
		// when it comes back.
		b.recent = slices.DeleteFunc(b.recent, func(id int) bool { return id == tabID })
		delete(b.held, tabID)
	}
	if b.active == tabID {
		b.active = 0
	}
	pageID, tabTID := t.pageID, t.tabTID
	var sess []*session
	for _, s := range b.sessions {
		// The sessions on t that are not below another session on t:
		// detaching them detaches the ones below.
		if p := b.sessions[s.parent]; s.tgt == t && (p == nil || p.tgt != t) {
			sess = append(sess, s)
		}
	}
	var watchers []*session
	for _, s := range b.sessions {
		if s.kind == kindBrowser && s.discover {
			watchers = append(watchers, s)
		}
	}
	b.mu.Unlock()
	for _, s := range sess {
		b.detachSession(s)
	}
	for _, s := range watchers {
		if s.discoverF.allows("page") {
			b.event(s.id, "Target.targetDestroyed", map[string]any{"targetId": pageID})
		}
		if s.discoverF.allows("tab") {
			b.event(s.id, "Target.targetDestroyed", map[string]any{"targetId": tabTID})
		}
	}
	b.c.log.Debug("tab gone", "tab", tabID, "why", why)
}

// forgetAttachment drops what the extension's debugger on a tab carried:
// the attachment, what a second session would replay, the child sessions;
// b.mu held.
func (b *browser) forgetAttachment(tabID int) {
	delete(b.attach, tabID)
	delete(b.replay, tabID)
	for child, tab := range b.children {
		if tab == tabID {
			delete(b.children, child)
		}
	}
}

// debuggerDetached: the extension's debugger left the tab (the user
// cancelled it in the browser's bar, the tab crashed): its page sessions end.
func (b *browser) debuggerDetached(tabID int, reason string) {
	b.mu.Lock()
	b.forgetAttachment(tabID)
	var sess []*session
	for _, s := range b.sessions {
		if s.kind == kindPage && s.tgt != nil && s.tgt.tabID == tabID {
			sess = append(sess, s)
		}
	}
	b.mu.Unlock()
	b.c.log.Info("the browser detached from a tab", "tab", tabID, "reason", reason)
	for _, s := range sess {
		b.mu.Lock()
		delete(b.sessions, s.id) // no release: the attachment is already gone
		pageID := s.tgt.pageID
		b.mu.Unlock()
		b.event(s.parent, "Target.detachedFromTarget", map[string]any{"sessionId": s.id, "targetId": pageID})
	}
}

// cdpEvent delivers a tab's event to its page sessions (or to the child
// session it came from).
func (b *browser) cdpEvent(env nativemsg.Envelope) {
	var params json.RawMessage = env.Params
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	if env.SessionID != "" {
		b.mu.Lock()
		_, ok := b.children[env.SessionID]
		b.mu.Unlock()
		if ok {
			b.trackChild(env.TabID, env.Method, params)
			b.event(env.SessionID, env.Method, params)
		}
		return
	}
	b.trackChild(env.TabID, env.Method, params)
	b.mu.Lock()
	if b.attach[env.TabID] != nil {
		r := b.replay[env.TabID]
		if r == nil {
			r = &tabReplay{}
			b.replay[env.TabID] = r
		}
		r.note(env.Method, params)
	}
	var sids []string
	for _, s := range b.sessions {
		if s.kind == kindPage && s.tgt.tabID == env.TabID {
			sids = append(sids, s.id)
		}
	}
	b.mu.Unlock()
	sort.Strings(sids)
	for _, sid := range sids {
		b.event(sid, env.Method, params)
	}
}

// trackChild learns the child sessions (iframes, workers) chrome.debugger
// attaches, so commands on them reach the right tab.
func (b *browser) trackChild(tabID int, method string, params json.RawMessage) {
	if method != "Target.attachedToTarget" && method != "Target.detachedFromTarget" {
		return
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(params, &p) != nil || p.SessionID == "" {
		return
	}
	b.mu.Lock()
	if method == "Target.attachedToTarget" {
		b.children[p.SessionID] = tabID
	} else {
		delete(b.children, p.SessionID)
	}
	b.mu.Unlock()
}

// disconnected forgets every tab: the extension is gone.
func (b *browser) disconnected() {
	b.mu.Lock()
	ids := make([]int, 0, len(b.targets))
	for id := range b.targets {
		ids = append(ids, id)
	}
	b.attach = map[int]*attachment{}
	b.children = map[string]int{}
	b.replay = map[int]*tabReplay{}
	b.mu.Unlock()
	sort.Ints(ids)
	for _, id := range ids {
		b.tabGone(id, whyDisconnected)
	}
}

// whyDisconnected is tabGone's reason when the extension went away.
const whyDisconnected = "disconnected"

// tabFocused: the browser brought a tab this coordinator sees to the front.
func (b *browser) tabFocused(tabID int) {
	b.mu.Lock()
	if b.targets[tabID] == nil {
		b.mu.Unlock()
		return
	}
	b.c.log.Debug("a tab came to the front", "tab", tabID)
	b.touch(tabID)
	b.active = tabID
	b.mu.Unlock()
	b.c.activated()
}

// activeTarget is the page target of the tab the browser brought to the
// front last, if this coordinator sees it.
func (b *browser) activeTarget() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.targets[b.active]; t != nil {
		return t.pageID
	}
	return ""
}
