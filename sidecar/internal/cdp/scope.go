package cdp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// A Scope is a Policy that shows one client a real browser whose only page
// is one of its targets (VS Code's browser view, in Tier 2): the Target
// domain answered for that target alone, the way Playwright's extension
// relay presents one tab, the target shown as a top-level page, and the
// client's sessions kept apart from everyone else's. What else passes is
// for its rules to say (an allowlist), asked first.
type Scope struct {
	target   string
	rules    ScopeRules
	notFound string // the refusal of another target, for attach and activate

	mu       sync.Mutex
	owned    map[string]bool // sessions the client holds: on the target and under it
	onTarget map[string]bool // the owned sessions attached to the target itself
}

// ScopeRules are what a Scope's owner decides.
type ScopeRules interface {
	// Command judges a command before the Scope; decided false leaves it
	// to the Scope.
	Command(r *Relay, m *Message) (v Verdict, decided bool)
	// Session judges a command on a session the client holds; onTarget:
	// the session is attached to the target itself (not a worker or frame
	// under it).
	Session(r *Relay, m *Message, onTarget bool) Verdict
	// Event rewrites an event of a session the client holds (nil drops it).
	Event(m *Message) *Message
}

// NewScope makes a Scope on target; notFound ends the refusal of an
// attach to (or activation of) any other target.
func NewScope(target string, rules ScopeRules, notFound string) *Scope {
	return &Scope{target: target, rules: rules, notFound: notFound, owned: map[string]bool{}, onTarget: map[string]bool{}}
}

// Own gives the client a session.
func (p *Scope) Own(session string) {
	p.mu.Lock()
	p.owned[session] = true
	p.mu.Unlock()
}

// owns: the client holds session: one it attached, or its page's (a
// page-level client's session was attached before the policy saw events).
func (p *Scope) owns(r *Relay, session string) bool {
	if session != "" && session == r.PageSession() {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.owned[session]
}

// isOnTarget: the session is attached to the target itself.
func (p *Scope) isOnTarget(r *Relay, session string) bool {
	if session == r.PageSession() {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.onTarget[session]
}

// Command implements Policy.
func (p *Scope) Command(r *Relay, m *Message) Verdict {
	if v, decided := p.rules.Command(r, m); decided {
		return v
	}
	if m.SessionID != "" {
		if !p.owns(r, m.SessionID) {
			return Verdict{Reply: Fail(m, "No session with given id")}
		}
		return p.rules.Session(r, m, p.isOnTarget(r, m.SessionID))
	}
	param := func(key string) string { return gjson.GetBytes(m.Params, key).String() }
	switch m.Method {
	case "Browser.getWindowForTarget", "Target.getDevToolsTarget", "Target.getTargetInfo":
		switch id := param("targetId"); {
		case id == "" && m.Method != "Target.getDevToolsTarget":
		case id != p.target:
			return Verdict{Reply: Fail(m, "No target with given id found")}
		case m.Method == "Target.getTargetInfo":
			return Verdict{Then: asPage("targetInfo")}
		}
	case "Target.getTargets":
		return Verdict{Then: p.onlyTarget("targetInfos")}
	case "Target.attachToTarget", "Target.activateTarget":
		if param("targetId") != p.target {
			return Verdict{Reply: Fail(m, "No target with given id found (%s)", p.notFound)}
		}
		if m.Method == "Target.activateTarget" {
			return Verdict{Reply: Reply(m, struct{}{})}
		}
	case "Target.detachFromTarget":
		if !p.owns(r, param("sessionId")) {
			return Verdict{Reply: Fail(m, "No session with given id")}
		}
	case "Target.setAutoAttach":
		return p.autoAttach(r, m)
	}
	return Verdict{}
}

// autoAttach: at the browser level this would attach the client to every
// target of the browser. It attaches it to the scope's target instead, as
// Chromium would have (the attach is announced before the answer).
func (p *Scope) autoAttach(r *Relay, m *Message) Verdict {
	if !gjson.GetBytes(m.Params, "autoAttach").Bool() {
		return Verdict{Reply: Reply(m, struct{}{})}
	}
	return Verdict{Async: func(ctx context.Context) *Message {
		if _, err := r.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": p.target, "flatten": true}); err != nil {
			return Fail(m, "%v", err)
		}
		return &Message{ID: m.ID, SessionID: m.SessionID, Result: json.RawMessage(`{}`)}
	}}
}

// Event implements Policy.
func (p *Scope) Event(r *Relay, m *Message) *Message {
	if m.SessionID != "" {
		if !p.owns(r, m.SessionID) {
			return nil
		}
		if m.Method == "Target.attachedToTarget" { // a worker or frame under the target
			p.Own(gjson.GetBytes(m.Params, "sessionId").String())
		}
		return p.rules.Event(m)
	}
	// Browser-level events: only the Target domain's, and only about the
	// target; the rest (downloads, a trace, ...) would be about the whole
	// browser.
	switch m.Method {
	case "Target.targetCreated", "Target.targetInfoChanged":
		if gjson.GetBytes(m.Params, "targetInfo.targetId").String() != p.target {
			return nil
		}
		m.Params = presentAsPage(m.Params, "targetInfo")
	case "Target.targetDestroyed", "Target.targetCrashed":
		if gjson.GetBytes(m.Params, "targetId").String() != p.target {
			return nil
		}
	case "Target.attachedToTarget":
		session := gjson.GetBytes(m.Params, "sessionId").String()
		if gjson.GetBytes(m.Params, "targetInfo.targetId").String() != p.target {
			return nil
		}
		p.mu.Lock()
		p.owned[session] = true
		p.onTarget[session] = true
		p.mu.Unlock()
		m.Params = presentAsPage(m.Params, "targetInfo")
	case "Target.detachedFromTarget":
		if !p.owns(r, gjson.GetBytes(m.Params, "sessionId").String()) {
			return nil
		}
	default:
		return nil
	}
	return m
}

// presentAsPage shows a target info (at path, "" for the whole object) as
// a top-level page.
func presentAsPage(params json.RawMessage, path string) json.RawMessage {
	if path != "" {
		path += "."
	}
	out, _ := sjson.SetBytes(params, path+"type", "page")
	out, _ = sjson.DeleteBytes(out, path+"parentFrameId")
	out, _ = sjson.DeleteBytes(out, path+"openerId")
	return out
}

func asPage(path string) func(*Message) *Message {
	return func(a *Message) *Message {
		if a.Error == nil {
			a.Result = presentAsPage(a.Result, path)
		}
		return a
	}
}

// onlyTarget keeps the scope's target in a list of target infos, shown as
// a page.
func (p *Scope) onlyTarget(path string) func(*Message) *Message {
	return func(a *Message) *Message {
		if a.Error != nil {
			return a
		}
		var kept []json.RawMessage
		gjson.GetBytes(a.Result, path).ForEach(func(_, t gjson.Result) bool {
			if t.Get("targetId").String() == p.target {
				kept = append(kept, presentAsPage(json.RawMessage(t.Raw), ""))
			}
			return true
		})
		if kept == nil {
			kept = []json.RawMessage{}
		}
		a.Result, _ = sjson.SetBytes(a.Result, path, kept)
		return a
	}
}
