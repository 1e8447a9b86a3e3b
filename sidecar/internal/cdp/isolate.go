package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Many agents on one browser (--isolated): each agent works in browser
// contexts of its own (Target.createBrowserContext: tabs, cookies and
// storage apart), and an Isolation shows each of its clients a browser
// made of those contexts only. It rewrites the Target domain and the few
// browser-level commands that name a context, nothing else:
//
//   - targets and their events (created, changed, destroyed, attached,
//     detached) of other contexts are not shown; Target.getTargets and
//     Target.getBrowserContexts list the agent's; a target of another
//     context cannot be attached to, activated, closed or looked at;
//   - what names no context goes to the agent's own (AgentContexts.Base): a new
//     target, the cookies of Storage.*, the permissions and downloads of
//     Browser.*; naming a context that is not the agent's is refused;
//   - a context a client creates is the agent's (its other clients see
//     it) until it is disposed;
//   - the browser's own auto-attach reaches every context, and a target
//     that waits for its debuggers waits for this client too: a session
//     of another context it attaches the client to is let go at once,
//     unseen.
//
// Its events hook (EventDomain) sees the Target domain's events only: the
// others pass undecoded, as for any client, so that isolation costs a
// client nothing on the paths that carry pages (answers, page events).

// AgentContexts are the browser contexts one agent works in: its own (Base,
// where what names no context goes) and those its clients created. Every
// connection of the agent shares them.
type AgentContexts struct {
	mu   sync.Mutex
	base string
	made map[string]bool
}

// NewAgentContexts makes an agent's AgentContexts around its own context.
func NewAgentContexts(base string) *AgentContexts {
	return &AgentContexts{base: base, made: map[string]bool{}}
}

// Base is the agent's own browser context.
func (s *AgentContexts) Base() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.base
}

// Has: id is one of the agent's contexts.
func (s *AgentContexts) Has(id string) bool {
	if id == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return id == s.base || s.made[id]
}

// Replace makes base the agent's own context, for every client of the
// agent at once, and returns the contexts it had (the owner disposes them):
// the agent starts afresh (a stop of its browser).
func (s *AgentContexts) Replace(base string) (old []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old = append(old, s.base)
	for id := range s.made {
		old = append(old, id)
	}
	s.base, s.made = base, map[string]bool{}
	return old
}

// Made lists the contexts the agent's clients created (and did not
// dispose): what goes with the agent besides Base.
func (s *AgentContexts) Made() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.made))
	for id := range s.made {
		out = append(out, id)
	}
	return out
}

func (s *AgentContexts) add(id string) {
	if id == "" {
		return
	}
	s.mu.Lock()
	s.made[id] = true
	s.mu.Unlock()
}

func (s *AgentContexts) remove(id string) {
	s.mu.Lock()
	delete(s.made, id)
	s.mu.Unlock()
}

// Isolation is the Policy of one client of an agent (see AgentContexts). Close
// it once its relay has served.
type Isolation struct {
	ctxs *AgentContexts

	mu       sync.Mutex
	targets  map[string]bool // what the client was shown of targets: in its contexts (true) or not
	hidden   map[string]bool // sessions of other contexts it was attached to, let go
	browsers map[string]bool // browser sessions it attached (Target.attachToBrowserTarget)
	closed   bool
	work     sync.WaitGroup // sessions being let go
}

// NewIsolation makes the policy of one client of the agent with ctxs.
func NewIsolation(ctxs *AgentContexts) *Isolation {
	return &Isolation{ctxs: ctxs, targets: map[string]bool{}, hidden: map[string]bool{}, browsers: map[string]bool{}}
}

// Close waits for the sessions being let go; call it once Serve returned.
func (p *Isolation) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.work.Wait()
}

// EventDomain: only the Target domain's events are the policy's to see.
func (p *Isolation) EventDomain() string { return "Target." }

// namesContext are the commands that take a browserContextId and, without
// one, act on the browser's default context.
var namesContext = map[string]bool{
	"Target.createTarget":         true,
	"Storage.getCookies":          true,
	"Storage.setCookies":          true,
	"Storage.clearCookies":        true,
	"Browser.setDownloadBehavior": true,
	"Browser.grantPermissions":    true,
	"Browser.resetPermissions":    true,
	"Browser.setPermission":       true,
	"Browser.cancelDownload":      true,
}

// namesTarget are the commands whose targetId must be one of the client's.
var namesTarget = map[string]bool{
	"Target.attachToTarget":         true,
	"Target.activateTarget":         true,
	"Target.closeTarget":            true,
	"Target.getTargetInfo":          true,
	"Target.exposeDevToolsProtocol": true,
	"Target.autoAttachRelated":      true,
	"Target.openDevTools":           true,
	"Target.detachFromTarget":       true,
	"Target.sendMessageToTarget":    true,
	"Browser.getWindowForTarget":    true,
}

// Command implements Policy.
func (p *Isolation) Command(r *Relay, m *Message) Verdict {
	if !strings.HasPrefix(m.Method, "Target.") && !strings.HasPrefix(m.Method, "Browser.") && !strings.HasPrefix(m.Method, "Storage.") {
		return Verdict{} // a page's command: the path that must cost nothing
	}
	if namesContext[m.Method] {
		if v, done := p.context(r, m); done {
			return v
		}
	}
	if namesTarget[m.Method] {
		return p.target(r, m)
	}
	switch m.Method {
	case "Target.getTargets":
		return Verdict{Then: p.onlyOwn}
	case "Target.getBrowserContexts":
		return Verdict{Then: p.ownContexts}
	case "Target.createBrowserContext":
		return Verdict{Then: func(a *Message) *Message {
			if a.Error == nil {
				p.ctxs.add(gjson.GetBytes(a.Result, "browserContextId").String())
			}
			return a
		}}
	case "Target.disposeBrowserContext":
		id := gjson.GetBytes(m.Params, "browserContextId").String()
		switch {
		case id == p.ctxs.Base():
			return Verdict{Reply: Fail(m, "browser-coordinator: this is the agent's own browser context (its default): it is disposed when the agent leaves; close its pages instead")}
		case !p.ctxs.Has(id):
			return Verdict{Reply: Fail(m, "Failed to find context with id %s", id)}
		}
		return Verdict{Then: func(a *Message) *Message {
			if a.Error == nil {
				p.ctxs.remove(id)
			}
			return a
		}}
	case "Target.attachToBrowserTarget":
		return Verdict{Then: func(a *Message) *Message {
			if s := gjson.GetBytes(a.Result, "sessionId").String(); a.Error == nil && s != "" {
				p.mu.Lock()
				p.browsers[s] = true
				p.mu.Unlock()
			}
			return a
		}}
	case "Browser.close":
		// The browser is every agent's: for this client, closing it is
		// leaving it (its own context goes with it, as a browser's pages go
		// with the browser, if the connection was its agent's only life).
		return Verdict{Async: func(context.Context) *Message {
			_ = r.Send(Reply(m, struct{}{}))
			r.CloseWith(websocket.CloseNormalClosure, "browser-coordinator: Browser.close ended this client; the browser is shared by isolated agents and runs on")
			return nil
		}}
	case "Browser.crash", "Browser.crashGpuProcess":
		return Verdict{Reply: Fail(m, "browser-coordinator: %s is refused: the browser is shared by isolated agents, and would crash for all of them", m.Method)}
	}
	return Verdict{}
}

// context puts a command that names no context in the agent's own, and
// refuses one that names another agent's. done: the verdict is final.
func (p *Isolation) context(r *Relay, m *Message) (Verdict, bool) {
	id := gjson.GetBytes(m.Params, "browserContextId")
	if id.Exists() {
		if !p.ctxs.Has(id.String()) {
			return Verdict{Reply: Fail(m, "Failed to find browser context with id %s", id.String())}, true
		}
	} else if m.Method == "Target.createTarget" || p.browserLevel(r, m.SessionID) {
		// On a page's session, the cookies are the page's own: only the
		// browser's sessions mean the default context.
		params := m.Params
		if len(params) == 0 {
			params = json.RawMessage(`{}`)
		}
		out, err := sjson.SetBytes(params, "browserContextId", p.ctxs.Base())
		if err != nil {
			return Verdict{Reply: Fail(m, "browser-coordinator: %v", err)}, true
		}
		m.Params = out
	}
	if m.Method == "Target.createTarget" {
		return Verdict{Then: func(a *Message) *Message {
			if a.Error == nil {
				p.learn(gjson.GetBytes(a.Result, "targetId").String(), true)
			}
			return a
		}}, true
	}
	return Verdict{}, false
}

// browserLevel: session is one of the client's browser sessions (its own,
// or one it attached), not a page's.
func (p *Isolation) browserLevel(r *Relay, session string) bool {
	if r.isBrowserSession(session) {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.browsers[session]
}

// target lets a command that names a target (or a session) through when
// it is one of the client's; a target the client was never shown is
// looked up first.
func (p *Isolation) target(r *Relay, m *Message) Verdict {
	if s := gjson.GetBytes(m.Params, "sessionId").String(); s != "" && p.isHidden(s) {
		return Verdict{Reply: Fail(m, "No session with given id")}
	}
	id := gjson.GetBytes(m.Params, "targetId").String()
	if id == "" {
		return Verdict{}
	}
	p.mu.Lock()
	in, known := p.targets[id]
	p.mu.Unlock()
	switch {
	case known && in:
		return Verdict{}
	case known:
		return Verdict{Reply: Fail(m, "No target with given id found")}
	}
	return Verdict{Async: func(ctx context.Context) *Message {
		info, err := r.Call(ctx, "", "Target.getTargetInfo", map[string]string{"targetId": id})
		if err != nil {
			return Fail(m, "No target with given id found")
		}
		in := p.ctxs.Has(gjson.GetBytes(info, "targetInfo.browserContextId").String())
		p.learn(id, in)
		if !in {
			return Fail(m, "No target with given id found")
		}
		res, err := r.Call(ctx, m.SessionID, m.Method, m.Params)
		return answerOf(m, res, err)
	}}
}

// answerOf is a command's answer from what a Call returned.
func answerOf(m *Message, res json.RawMessage, err error) *Message {
	var e *Error
	switch {
	case err == nil:
		if len(res) == 0 {
			res = json.RawMessage(`{}`)
		}
		return &Message{ID: m.ID, SessionID: m.SessionID, Result: res}
	case errors.As(err, &e):
		return &Message{ID: m.ID, SessionID: m.SessionID, Error: e}
	}
	return Fail(m, "%v", err)
}

func (p *Isolation) learn(id string, in bool) {
	if id == "" {
		return
	}
	p.mu.Lock()
	p.targets[id] = in
	p.mu.Unlock()
}

func (p *Isolation) isHidden(session string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hidden[session]
}

// onlyOwn keeps the targets of the agent's contexts in a list of target
// infos.
func (p *Isolation) onlyOwn(a *Message) *Message {
	if a.Error != nil {
		return a
	}
	kept := []json.RawMessage{}
	gjson.GetBytes(a.Result, "targetInfos").ForEach(func(_, t gjson.Result) bool {
		in := p.ctxs.Has(t.Get("browserContextId").String())
		p.learn(t.Get("targetId").String(), in)
		if in {
			kept = append(kept, json.RawMessage(t.Raw))
		}
		return true
	})
	a.Result, _ = sjson.SetBytes(a.Result, "targetInfos", kept)
	return a
}

// ownContexts lists the contexts the agent's clients created; its own is
// the client's default context, which a browser does not list (where the
// browser says which is its default, it is the agent's own).
func (p *Isolation) ownContexts(a *Message) *Message {
	if a.Error != nil {
		return a
	}
	kept := []string{}
	for _, id := range gjson.GetBytes(a.Result, "browserContextIds").Array() {
		if id.String() != p.ctxs.Base() && p.ctxs.Has(id.String()) {
			kept = append(kept, id.String())
		}
	}
	a.Result, _ = sjson.SetBytes(a.Result, "browserContextIds", kept)
	if gjson.GetBytes(a.Result, "defaultBrowserContextId").Exists() {
		a.Result, _ = sjson.SetBytes(a.Result, "defaultBrowserContextId", p.ctxs.Base())
	}
	return a
}

// Event implements Policy: it sees the Target domain's events only.
func (p *Isolation) Event(r *Relay, m *Message) *Message {
	switch m.Method {
	case "Target.targetCreated", "Target.targetInfoChanged":
		info := gjson.GetBytes(m.Params, "targetInfo")
		in := p.ctxs.Has(info.Get("browserContextId").String())
		p.learn(info.Get("targetId").String(), in)
		if !in {
			return nil
		}
	case "Target.targetDestroyed", "Target.targetCrashed":
		id := gjson.GetBytes(m.Params, "targetId").String()
		p.mu.Lock()
		in := p.targets[id]
		if m.Method == "Target.targetDestroyed" {
			delete(p.targets, id)
		}
		p.mu.Unlock()
		if !in {
			return nil
		}
	case "Target.attachedToTarget":
		info := gjson.GetBytes(m.Params, "targetInfo")
		in := p.ctxs.Has(info.Get("browserContextId").String())
		p.learn(info.Get("targetId").String(), in)
		if !in {
			p.letGo(r, m.SessionID, gjson.GetBytes(m.Params, "sessionId").String())
			return nil
		}
	case "Target.detachedFromTarget", "Target.receivedMessageFromTarget":
		s := gjson.GetBytes(m.Params, "sessionId").String()
		p.mu.Lock()
		hidden := p.hidden[s]
		if hidden && m.Method == "Target.detachedFromTarget" {
			delete(p.hidden, s)
		}
		p.mu.Unlock()
		if hidden {
			return nil
		}
	}
	return m
}

// letGo detaches the client from a session of another context the browser
// attached it to (auto-attach), so that the target, which may wait for its
// debuggers before it runs, does not wait for this one. Chromium lets it
// run once the session is detached.
func (p *Isolation) letGo(r *Relay, parent, session string) {
	if session == "" {
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.hidden[session] = true
	p.work.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.work.Done()
		_, _ = r.Call(r.Context(), parent, "Target.detachFromTarget", map[string]string{"sessionId": session})
	}()
}

// isBrowserSession: a command or event on session is on the relay's
// browser session (not a page's): no session at all, or the browser
// session the peer holds for its client.
func (r *Relay) isBrowserSession(session string) bool {
	if session == "" {
		return true
	}
	peer := r.peerP.Load()
	return peer != nil && peer.mode == Browser && session == peer.root
}
