package everyday

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/reach"
)

// The CDP commands of the clients: browser sessions, tab sessions and page
// sessions of the virtual browser.

type cdpIn struct {
	ID        int64           `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
	// then, set by the reach policy, rewrites the tab's answer.
	then func(*cdp.Message) *cdp.Message
}

func (b *browser) command(raw []byte) {
	var m cdpIn
	if err := json.Unmarshal(raw, &m); err != nil || m.Method == "" {
		b.c.log.Warn("a CDP message that is not a command", "message", truncate(raw))
		var idOnly struct {
			ID        int64  `json:"id"`
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(raw, &idOnly)
		b.fail(idOnly.ID, idOnly.SessionID, codeParseError, "not a CDP command (a JSON object with an id and a method): %s", truncate(raw))
		return
	}
	b.mu.Lock()
	s := b.sessions[m.SessionID]
	childTab, isChild := b.children[m.SessionID]
	b.mu.Unlock()
	if (s != nil || isChild) && !b.reach(&m, s, childTab) {
		return
	}
	switch {
	case m.Method == "Target.createTarget" && (isChild || s != nil && s.kind != kindBrowser):
		// A page (or a frame or worker in it) opening a tab: through the
		// extension, so that it is the agent's, closed when it lets go.
		b.createTarget(m, params(m.Params))
	case s != nil && s.kind == kindBrowser:
		b.browserCommand(s, m)
	case s != nil && s.kind == kindTab:
		b.tabCommand(s, m)
	case s != nil && s.kind == kindPage:
		b.pageCommand(s, m)
	case isChild:
		b.forward(m, childTab, m.SessionID)
	default:
		b.fail(m.ID, m.SessionID, codeSessionNotFound, "Session with given id not found.")
	}
}

func (b *browser) browserCommand(s *session, m cdpIn) {
	p := params(m.Params)
	switch m.Method {
	case "Browser.getVersion":
		st := b.c.Status()
		if !st.Connected {
			b.fail(m.ID, m.SessionID, codeServerError, "%s", notConnected(st))
			return
		}
		b.reply(m.ID, m.SessionID, map[string]any{
			"protocolVersion": "1.3", "product": "Chrome/" + st.Browser.Version,
			"revision": "", "userAgent": st.Browser.UserAgent, "jsVersion": "",
		})
	case "Browser.setDownloadBehavior", "Browser.setPermission", "Browser.grantPermissions", "Browser.resetPermissions":
		// As Playwright MCP's extension relay does: downloads and permissions
		// stay as the user set them in their own browser.
		b.reply(m.ID, m.SessionID, nil)
	case "Browser.close", "Browser.crash", "Browser.crashGpuProcess":
		b.fail(m.ID, m.SessionID, codeServerError, "%s refused: this is the user's own browser (the everyday backend); the coordinator never closes it", m.Method)
	case "Target.attachToBrowserTarget":
		id := randomID()
		ns := &session{id: id, kind: kindBrowser, parent: s.id, browserTID: randomUUID(), discoverF: defaultFilter(), autoF: defaultFilter()}
		b.mu.Lock()
		b.sessions[id] = ns
		b.mu.Unlock()
		b.event(s.id, "Target.attachedToTarget", map[string]any{
			"sessionId": id, "waitingForDebugger": false,
			"targetInfo": map[string]any{"targetId": ns.browserTID, "type": "browser", "title": "", "url": "", "attached": true, "canAccessOpener": false},
		})
		b.reply(m.ID, m.SessionID, map[string]any{"sessionId": id})
	case "Target.getBrowserContexts":
		b.reply(m.ID, m.SessionID, map[string]any{"browserContextIds": []string{}, "defaultBrowserContextId": b.ctxID})
	case "Target.createBrowserContext", "Target.disposeBrowserContext":
		b.fail(m.ID, m.SessionID, codeServerError, "%s is not available in the user's own browser (the everyday backend): it has one profile, the user's; use a launched browser for isolated contexts", m.Method)
	case "Target.setDiscoverTargets":
		b.setDiscover(s, m, p)
	case "Target.getTargets":
		f := parseFilter(p["filter"])
		var infos []map[string]any
		b.mu.Lock()
		for _, t := range b.sortedTargets() {
			if f.allows("tab") {
				infos = append(infos, t.info("tab", b.hasSession(t, kindTab), b.ctxID))
			}
			if f.allows("page") {
				infos = append(infos, t.info("page", b.hasSession(t, kindPage), b.ctxID))
			}
		}
		b.mu.Unlock()
		if infos == nil {
			infos = []map[string]any{}
		}
		b.reply(m.ID, m.SessionID, map[string]any{"targetInfos": infos})
	case "Target.getTargetInfo":
		var tid string
		_ = json.Unmarshal(p["targetId"], &tid)
		if tid == "" || tid == s.browserTID {
			b.reply(m.ID, m.SessionID, map[string]any{"targetInfo": map[string]any{"targetId": s.browserTID, "type": "browser", "title": "", "url": "", "attached": true, "canAccessOpener": false}})
			return
		}
		b.mu.Lock()
		t, kind := b.findTarget(tid)
		var info map[string]any
		if t != nil {
			info = t.info(kind, b.hasSession(t, kindOf(kind)), b.ctxID)
		}
		b.mu.Unlock()
		if t == nil {
			b.fail(m.ID, m.SessionID, codeInvalidParams, "No target with given id found")
			return
		}
		b.reply(m.ID, m.SessionID, map[string]any{"targetInfo": info})
	case "Target.attachToTarget":
		var tid string
		var flatten bool
		_ = json.Unmarshal(p["targetId"], &tid)
		_ = json.Unmarshal(p["flatten"], &flatten)
		if !flatten {
			b.fail(m.ID, m.SessionID, codeServerError, "only flat sessions are offered by the everyday backend: pass flatten: true")
			return
		}
		b.c.spawn(func() {
			b.mu.Lock()
			t, kind := b.findTarget(tid)
			b.mu.Unlock()
			if t == nil {
				b.fail(m.ID, m.SessionID, codeInvalidParams, "No target with given id found")
				return
			}
			id, err := b.attachTarget(s, t, kindOf(kind), false)
			if err != nil {
				b.fail(m.ID, m.SessionID, codeServerError, "%v", err)
				return
			}
			b.reply(m.ID, m.SessionID, map[string]any{"sessionId": id})
		})
	case "Target.detachFromTarget":
		var sid, tid string
		_ = json.Unmarshal(p["sessionId"], &sid)
		_ = json.Unmarshal(p["targetId"], &tid)
		b.mu.Lock()
		if sid == "" && tid != "" {
			for _, x := range b.sessions {
				if x.parent == s.id && x.tgt != nil && (x.tgt.pageID == tid || x.tgt.tabTID == tid) {
					sid = x.id
					break
				}
			}
		}
		x := b.sessions[sid]
		b.mu.Unlock()
		if x == nil || sid == "" {
			b.fail(m.ID, m.SessionID, codeServerError, "No session with given id")
			return
		}
		b.detachSession(x)
		b.reply(m.ID, m.SessionID, nil)
	case "Target.setAutoAttach":
		b.setAutoAttach(s, m, p)
	case "Target.createTarget":
		b.createTarget(m, p)
	case "Target.closeTarget":
		b.tabRequest(m, p, "closeTab", func() any { return map[string]any{"success": true} })
	case "Target.activateTarget":
		b.tabRequest(m, p, "focusTab", func() any { return struct{}{} })
	case "Target.sendMessageToTarget":
		b.fail(m.ID, m.SessionID, codeServerError, "the everyday backend offers flat sessions only: send commands with a sessionId instead of Target.sendMessageToTarget")
	case "Target.setRemoteLocations", "Target.exposeDevToolsProtocol", "Target.autoAttachRelated", "Target.openDevTools":
		b.fail(m.ID, m.SessionID, codeServerError, "%s is not available in the user's own browser (the everyday backend)", m.Method)
	default:
		if strings.HasPrefix(m.Method, "Browser.") || strings.HasPrefix(m.Method, "Target.") {
			// The virtual browser answers these domains itself: what it
			// does not answer reaches nothing.
			b.fail(m.ID, m.SessionID, codeServerError, "%s is not available in the user's own browser (the everyday backend)", m.Method)
			return
		}
		// A browser-level call the reach policy let through (the cookie
		// jar, as the tabs see it) that chrome.debugger has no browser
		// target for: run it through one of this coordinator's attached
		// tabs, as Playwright MCP's relay does.
		b.mu.Lock()
		tab := -1
		for id, a := range b.attach {
			if a.users > 0 && (tab < 0 || id < tab) {
				tab = id
			}
		}
		b.mu.Unlock()
		if tab < 0 {
			b.fail(m.ID, m.SessionID, codeServerError, "%s: the everyday backend runs browser-level calls through an attached tab, and none is attached; attach to a page first", m.Method)
			return
		}
		b.forward(m, tab, "")
	}
}

func kindOf(kind string) sessionKind {
	if kind == "tab" {
		return kindTab
	}
	return kindPage
}

// findTarget finds a target by a page or tab target id; b.mu held.
func (b *browser) findTarget(id string) (*target, string) {
	for _, t := range b.targets {
		if t.pageID == id {
			return t, "page"
		}
		if t.tabTID == id {
			return t, "tab"
		}
	}
	return nil, ""
}

// hasSession reports whether some session is attached to t's target of kind; b.mu held.
func (b *browser) hasSession(t *target, kind sessionKind) bool {
	for _, s := range b.sessions {
		if s.tgt == t && s.kind == kind {
			return true
		}
	}
	return false
}

// sortedTargets lists targets in the order of their activity, the most
// recent last (tabs never active first, by tab id): the order a client's
// tab follower learns them in is the order the tabs were used, so the tab
// in front is the last one it hears of. b.mu held.
func (b *browser) sortedTargets() []*target {
	rank := make(map[int]int, len(b.recent))
	for i, id := range b.recent {
		rank[id] = i + 1
	}
	ts := make([]*target, 0, len(b.targets))
	for _, t := range b.targets {
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

func (b *browser) setDiscover(s *session, m cdpIn, p map[string]json.RawMessage) {
	var on bool
	_ = json.Unmarshal(p["discover"], &on)
	b.mu.Lock()
	was := s.discover
	s.discover = on
	s.discoverF = parseFilter(p["filter"])
	var created []map[string]any
	if on && !was {
		if s.discoverF.allows("browser") {
			created = append(created, map[string]any{"targetId": s.browserTID, "type": "browser", "title": "", "url": "", "attached": true, "canAccessOpener": false})
		}
		for _, t := range b.sortedTargets() {
			if s.discoverF.allows("tab") {
				created = append(created, t.info("tab", b.hasSession(t, kindTab), b.ctxID))
			}
			if s.discoverF.allows("page") {
				created = append(created, t.info("page", b.hasSession(t, kindPage), b.ctxID))
			}
		}
	}
	b.mu.Unlock()
	for _, info := range created {
		b.event(s.id, "Target.targetCreated", map[string]any{"targetInfo": info})
	}
	b.reply(m.ID, m.SessionID, nil)
}

// autoAttachArgs reads Target.setAutoAttach's autoAttach; a request for
// sessions that are not flat is answered with an error (false).
func (b *browser) autoAttachArgs(m cdpIn, p map[string]json.RawMessage) (on, ok bool) {
	var flatten bool
	_ = json.Unmarshal(p["autoAttach"], &on)
	_ = json.Unmarshal(p["flatten"], &flatten)
	if on && !flatten {
		b.fail(m.ID, m.SessionID, codeServerError, "only flat sessions are offered by the everyday backend: pass flatten: true")
		return false, false
	}
	return on, true
}

// setAutoAttach on a browser session attaches to every matching target now
// and to each new one; off detaches what it auto-attached.
func (b *browser) setAutoAttach(s *session, m cdpIn, p map[string]json.RawMessage) {
	on, ok := b.autoAttachArgs(m, p)
	if !ok {
		return
	}
	b.mu.Lock()
	s.autoAttach = on
	s.autoF = parseFilter(p["filter"])
	var drop []*session
	if !on {
		for _, x := range b.sessions {
			if x.parent == s.id && x.auto {
				drop = append(drop, x)
			}
		}
	}
	targets := b.sortedTargets()
	b.mu.Unlock()
	for _, x := range drop {
		b.detachSession(x)
	}
	if !on {
		b.reply(m.ID, m.SessionID, nil)
		return
	}
	b.c.spawn(func() {
		for _, t := range targets {
			b.autoAttachOne(s, t)
		}
		b.reply(m.ID, m.SessionID, nil)
	})
}

// autoAttachOne attaches browser or tab session s to t's matching target,
// unless it already has it.
func (b *browser) autoAttachOne(s *session, t *target) {
	b.mu.Lock()
	if !s.autoAttach || b.sessions[s.id] != s || b.targets[t.tabID] != t {
		b.mu.Unlock()
		return
	}
	kind := kindPage
	switch {
	case s.kind == kindTab:
		// a tab session's only child is its page
	case s.autoF.allows("page"):
	case s.autoF.allows("tab"):
		kind = kindTab
	default:
		b.mu.Unlock()
		return
	}
	for _, x := range b.sessions {
		if x.parent == s.id && x.tgt == t && x.kind == kind {
			b.mu.Unlock()
			return
		}
	}
	key := fmt.Sprintf("%s/%d/%d", s.id, t.tabID, kind)
	if b.attaching[key] {
		b.mu.Unlock()
		return // a concurrent auto-attach (the tab arrived while setAutoAttach ran) is on it
	}
	b.attaching[key] = true
	b.mu.Unlock()
	_, err := b.attachTarget(s, t, kind, true)
	b.mu.Lock()
	delete(b.attaching, key)
	b.mu.Unlock()
	if err != nil {
		b.c.log.Warn("auto-attach to a tab", "tab", t.tabID, "err", err)
	}
}

// attachTarget makes a session for t's tab or page target under parent,
// attaching the extension's debugger to the tab for a page, then tells
// parent (Target.attachedToTarget) and returns the new session's id.
func (b *browser) attachTarget(parent *session, t *target, kind sessionKind, auto bool) (string, error) {
	if kind == kindPage {
		if err := b.acquire(t); err != nil {
			return "", err
		}
	}
	id := randomID()
	ns := &session{id: id, kind: kind, parent: parent.id, tgt: t, auto: auto, enabled: map[string]bool{}, autoF: defaultFilter(), discoverF: defaultFilter()}
	b.mu.Lock()
	if b.sessions[parent.id] != parent || b.targets[t.tabID] != t {
		url := t.url
		b.mu.Unlock()
		if kind == kindPage {
			b.release(t)
		}
		return "", fmt.Errorf("tab %d (%s) was closed while attaching", t.tabID, url)
	}
	b.sessions[id] = ns
	kindName := "page"
	if kind == kindTab {
		kindName = "tab"
	}
	info := t.info(kindName, true, b.ctxID)
	b.mu.Unlock()
	b.event(parent.id, "Target.attachedToTarget", map[string]any{"sessionId": id, "targetInfo": info, "waitingForDebugger": false})
	return id, nil
}

// acquire makes sure the extension's debugger is attached to t's tab for
// this Conn, counting the page sessions that use it.
func (b *browser) acquire(t *target) error {
	b.mu.Lock()
	a := b.attach[t.tabID]
	if a == nil {
		a = &attachment{done: make(chan struct{})}
		b.attach[t.tabID] = a
		b.mu.Unlock()
		l := b.c.currentLink()
		if l == nil {
			a.err = errors.New(notConnected(b.c.Status()))
		} else {
			_, a.err = l.call(map[string]any{"type": "attach", "tabId": t.tabID})
		}
		b.mu.Lock()
		close(a.done)
		if a.err != nil && b.attach[t.tabID] == a {
			delete(b.attach, t.tabID)
		}
	} else {
		b.mu.Unlock()
		<-a.done
		b.mu.Lock()
	}
	if a.err != nil {
		b.mu.Unlock()
		return a.err
	}
	a.users++
	b.mu.Unlock()
	return nil
}

// release undoes acquire; the last user detaches the extension's debugger.
func (b *browser) release(t *target) {
	b.mu.Lock()
	a := b.attach[t.tabID]
	if a == nil {
		b.mu.Unlock()
		return
	}
	a.users--
	last := a.users <= 0
	if last {
		b.forgetAttachment(t.tabID)
	}
	b.mu.Unlock()
	if last {
		if l := b.c.currentLink(); l != nil {
			l.request(map[string]any{"type": "detach", "tabId": t.tabID}, func(nativemsg.Envelope, error) {})
		}
	}
}

// detachSession ends a tab or page session (and the sessions below it) and
// tells its parent.
func (b *browser) detachSession(s *session) {
	b.mu.Lock()
	if b.sessions[s.id] != s {
		b.mu.Unlock()
		return
	}
	var below []*session
	for _, x := range b.sessions {
		if x.parent == s.id && x.id != "" {
			below = append(below, x)
		}
	}
	b.mu.Unlock()
	for _, x := range below {
		b.detachSession(x)
	}
	b.mu.Lock()
	delete(b.sessions, s.id)
	var tid string
	switch s.kind {
	case kindBrowser:
		tid = s.browserTID
	case kindTab:
		tid = s.tgt.tabTID
	default:
		tid = s.tgt.pageID
	}
	b.mu.Unlock()
	if s.kind == kindPage {
		b.release(s.tgt)
	}
	b.event(s.parent, "Target.detachedFromTarget", map[string]any{"sessionId": s.id, "targetId": tid})
}

// tabCommand answers a tab target's session: it offers auto-attach to its
// page and little else, as Chrome's tab targets do.
func (b *browser) tabCommand(s *session, m cdpIn) {
	p := params(m.Params)
	switch m.Method {
	case "Target.setAutoAttach":
		on, ok := b.autoAttachArgs(m, p)
		if !ok {
			return
		}
		b.mu.Lock()
		s.autoAttach = on
		s.autoF = parseFilter(p["filter"])
		t := s.tgt
		b.mu.Unlock()
		if !on {
			b.reply(m.ID, m.SessionID, nil)
			return
		}
		b.c.spawn(func() {
			b.autoAttachOne(s, t)
			b.reply(m.ID, m.SessionID, nil)
		})
	case "Runtime.runIfWaitingForDebugger":
		b.reply(m.ID, m.SessionID, nil)
	case "Target.getTargetInfo":
		b.mu.Lock()
		info := s.tgt.info("tab", true, b.ctxID)
		b.mu.Unlock()
		b.reply(m.ID, m.SessionID, map[string]any{"targetInfo": info})
	case "Target.detachFromTarget":
		var sid string
		_ = json.Unmarshal(p["sessionId"], &sid)
		b.mu.Lock()
		x := b.sessions[sid]
		b.mu.Unlock()
		if x == nil || x.parent != s.id {
			b.fail(m.ID, m.SessionID, codeServerError, "No session with given id")
			return
		}
		b.detachSession(x)
		b.reply(m.ID, m.SessionID, nil)
	default:
		b.fail(m.ID, m.SessionID, codeServerError, "'%s' wasn't found (a tab target offers Target.setAutoAttach to reach its page)", m.Method)
	}
}

// pageCommand sends a page session's command to the tab through the
// extension, keeping a few answers of its own.
func (b *browser) pageCommand(s *session, m cdpIn) {
	var replay func() // events the session missed, sent just before its answer
	switch {
	case m.Method == "Target.getTargetInfo":
		b.mu.Lock()
		info := s.tgt.info("page", true, b.ctxID)
		b.mu.Unlock()
		b.reply(m.ID, m.SessionID, map[string]any{"targetInfo": info})
		return
	case strings.HasSuffix(m.Method, ".disable"):
		domain := strings.TrimSuffix(m.Method, ".disable")
		b.mu.Lock()
		s.enabled[domain] = false
		shared := b.othersUse(s, domain)
		b.mu.Unlock()
		if shared {
			// Another session on this tab still uses the domain: the
			// debugger session is shared, so it stays on.
			b.reply(m.ID, m.SessionID, nil)
			return
		}
	case m.Method == "Runtime.enable" || m.Method == "Target.setAutoAttach":
		// On a debugger session where another page session already did
		// this, the browser reports nothing again: the execution contexts
		// (or the attached iframes and workers) that exist are replayed to
		// this session, as a session of its own would have heard them.
		key := strings.TrimSuffix(m.Method, ".enable")
		b.mu.Lock()
		again := b.othersUse(s, key)
		s.enabled[key] = true
		if on := params(m.Params)["autoAttach"]; m.Method == "Target.setAutoAttach" && string(on) != "true" {
			s.enabled[key], again = false, false
		}
		var events []json.RawMessage
		if r := b.replay[s.tgt.tabID]; r != nil {
			switch {
			case again:
				events = r.snapshot(m.Method)
			case m.Method == "Runtime.enable":
				r.contexts = nil // the browser reports every context afresh
			}
		}
		b.mu.Unlock()
		method := "Runtime.executionContextCreated"
		if m.Method == "Target.setAutoAttach" {
			method = "Target.attachedToTarget"
		}
		replay = func() {
			for _, p := range events {
				b.event(s.id, method, p)
			}
		}
	case strings.HasSuffix(m.Method, ".enable"):
		b.mu.Lock()
		s.enabled[strings.TrimSuffix(m.Method, ".enable")] = true
		b.mu.Unlock()
	}
	b.forwardThen(m, s.tgt.tabID, "", replay)
}

// othersUse reports whether another page session on s's tab has key
// (a domain, or Target.setAutoAttach) on; b.mu held.
func (b *browser) othersUse(s *session, key string) bool {
	for _, x := range b.sessions {
		if x != s && x.kind == kindPage && x.tgt == s.tgt && x.enabled[key] {
			return true
		}
	}
	return false
}

// forward sends a command to a tab (child: a chrome.debugger child
// session) and answers with the tab's answer, under the caller's session id.
func (b *browser) forward(m cdpIn, tabID int, child string) {
	b.forwardThen(m, tabID, child, nil)
}

// forwardThen is forward, running then (when not nil) after a successful
// answer comes and before it is passed on.
func (b *browser) forwardThen(m cdpIn, tabID int, child string, then func()) {
	l := b.c.currentLink()
	if l == nil {
		b.fail(m.ID, m.SessionID, codeServerError, "%s", notConnected(b.c.Status()))
		return
	}
	req := map[string]any{"type": "command", "tabId": tabID, "method": m.Method}
	if len(m.Params) > 0 {
		req["params"] = m.Params
	}
	if child != "" {
		req["sessionId"] = child
	}
	l.request(req, func(env nativemsg.Envelope, err error) {
		if err != nil {
			b.fail(m.ID, m.SessionID, codeServerError, "%v", err)
			return
		}
		if then != nil {
			then()
		}
		if m.then == nil {
			b.replyRaw(m.ID, m.SessionID, env.Result)
			return
		}
		msg, _ := json.Marshal(m.then(&cdp.Message{ID: cdpID(m.ID), SessionID: m.SessionID, Result: env.Result}))
		b.c.emit(msg)
	})
}

// reach asks the reach policy about m, sent on session s (nil: a child
// session of tab childTab): false when the policy answered it (refused it).
func (b *browser) reach(m *cdpIn, s *session, childTab int) bool {
	w := reach.Where{Page: s == nil || s.kind != kindBrowser}
	b.mu.Lock()
	for _, t := range b.targets {
		w.Tabs = append(w.Tabs, t.url)
	}
	if s != nil && s.tgt != nil {
		w.AgentTab = s.tgt.agent
	} else if t := b.targets[childTab]; s == nil && t != nil {
		w.AgentTab = t.agent
	}
	b.mu.Unlock()
	v := b.c.o.Reach.Command(w, &cdp.Message{ID: cdpID(m.ID), SessionID: m.SessionID, Method: m.Method, Params: m.Params})
	if v.Reply != nil {
		if v.Reply.Error != nil {
			b.c.log.Debug("the reach policy refused a command", "method", m.Method, "why", v.Reply.Error.Message)
		}
		msg, _ := json.Marshal(v.Reply)
		b.c.emit(msg)
		return false
	}
	m.then = v.Then
	return true
}

func cdpID(id int64) json.RawMessage { return strconv.AppendInt(nil, id, 10) }

// createTarget opens a tab for the agent (the extension's openTab) and
// answers once the sessions that auto-attach have it.
func (b *browser) createTarget(m cdpIn, p map[string]json.RawMessage) {
	var url, ctxID string
	var background, newWindow bool
	_ = json.Unmarshal(p["url"], &url)
	_ = json.Unmarshal(p["browserContextId"], &ctxID)
	_ = json.Unmarshal(p["background"], &background)
	_ = json.Unmarshal(p["newWindow"], &newWindow)
	if ctxID != "" && ctxID != b.ctxID {
		b.fail(m.ID, m.SessionID, codeServerError, "the everyday backend has one browser context (the user's profile): no context %s", ctxID)
		return
	}
	if url == "" {
		url = "about:blank"
	}
	l := b.c.currentLink()
	if l == nil {
		b.fail(m.ID, m.SessionID, codeServerError, "%s", notConnected(b.c.Status()))
		return
	}
	b.c.spawn(func() {
		env, err := l.call(map[string]any{"type": "openTab", "url": url, "focus": !background})
		if err != nil {
			b.fail(m.ID, m.SessionID, codeServerError, "open a tab at %s: %v", url, err)
			return
		}
		var tab nativemsg.Tab
		if json.Unmarshal(env.Result, &tab) != nil || tab.ID == 0 {
			b.fail(m.ID, m.SessionID, codeServerError, "the browser extension opened no tab for %s", url)
			return
		}
		// The extension sent tabCreated before this answer: the target is
		// known, and its auto-attaches are under way.
		b.mu.Lock()
		t := b.targets[tab.ID]
		if t != nil && background {
			b.hold(tab.ID)
		}
		b.mu.Unlock()
		if t == nil {
			b.fail(m.ID, m.SessionID, codeServerError, "tab %d closed as soon as it opened", tab.ID)
			return
		}
		<-t.ready
		b.mu.Lock()
		pageID := t.pageID
		b.mu.Unlock()
		b.reply(m.ID, m.SessionID, map[string]any{"targetId": pageID})
	})
}

// tabRequest runs closeTab or focusTab for the target in params.targetId.
func (b *browser) tabRequest(m cdpIn, p map[string]json.RawMessage, typ string, result func() any) {
	var tid string
	_ = json.Unmarshal(p["targetId"], &tid)
	b.mu.Lock()
	t, _ := b.findTarget(tid)
	b.mu.Unlock()
	if t == nil {
		b.fail(m.ID, m.SessionID, codeInvalidParams, "No target with given id found")
		return
	}
	l := b.c.currentLink()
	if l == nil {
		b.fail(m.ID, m.SessionID, codeServerError, "%s", notConnected(b.c.Status()))
		return
	}
	l.request(map[string]any{"type": typ, "tabId": t.tabID}, func(_ nativemsg.Envelope, err error) {
		if err != nil {
			b.fail(m.ID, m.SessionID, codeServerError, "%v", err)
			return
		}
		b.reply(m.ID, m.SessionID, result())
	})
}
