package cdp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The clients' commands: browser sessions, tab sessions and page sessions
// of the virtual browser.

// Command takes one client command. Its answer, and the events it causes,
// go to Out; a message that is not a command gets an error answer.
func (v *Virtual) Command(raw []byte) {
	m, ok := readCommand(raw)
	if !ok {
		if err := json.Unmarshal(raw, &m); err != nil || m.Method == "" {
			v.log.Warn("a CDP message that is not a command", "message", truncate(raw))
			_ = json.Unmarshal(raw, &m) // its id and session, where it has them
			v.fail(m, ParseError, "not a CDP command (a JSON object with an id and a method): %s", truncate(raw))
			return
		}
	}
	if v.judge(&m) {
		v.dispatch(m)
	}
}

// readCommand reads a command the strict scanner takes (ParseCommand) with
// a numeric id, as encoding/json would, at a quarter of its cost on a large
// script (BenchmarkReadCommand: a page's injected script, 500 KB, cost the
// everyday connection 4.5 ms a command). Anything else (false) goes to
// encoding/json as before, so what is accepted and refused is unchanged.
// Params is a copy: raw is the caller's.
func readCommand(raw []byte) (vcommand, bool) {
	c, err := parseCommand(raw)
	if err != nil || len(c.method) == 0 {
		return vcommand{}, false
	}
	id, err := strconv.ParseInt(string(c.id), 10, 64)
	if err != nil {
		return vcommand{}, false
	}
	return vcommand{ID: id, Method: string(c.method), SessionID: string(c.session), Params: bytes.Clone(c.params)}, true
}

// dispatch runs a command the policy let through.
func (v *Virtual) dispatch(m vcommand) {
	v.mu.Lock()
	s := v.sessions[m.SessionID]
	childTab, isChild := v.children[m.SessionID]
	v.mu.Unlock()
	switch {
	case m.Method == "Target.createTarget" && (isChild || s != nil && s.kind != kindBrowser):
		// A page (or a frame or worker in it) opening a tab: through the
		// host, so that it is the agent's, closed when it lets go.
		v.createTarget(m, params(m.Params))
	case s != nil && s.kind == kindBrowser:
		v.browserCommand(s, m)
	case s != nil && s.kind == kindTab:
		v.tabCommand(s, m)
	case s != nil && s.kind == kindPage:
		v.pageCommand(s, m)
	case isChild:
		if m.Method == "Target.getTargetInfo" && str(params(m.Params), "targetId") != "" {
			m.then = v.onlyOfTab(childTab.tab, m.then)
		}
		v.forward(m, childTab.tab, m.SessionID, nil)
	default:
		v.fail(m, SessionNotFound, "Session with given id not found.")
	}
}

// onlyOfTab turns a child session's Target.getTargetInfo about a target
// not of its tab into the browser's answer for an unknown target.
func (v *Virtual) onlyOfTab(tabID int, then func(*Message) *Message) func(*Message) *Message {
	return func(a *Message) *Message {
		if a.Error == nil && !v.ofTab(tabID, gjson.GetBytes(a.Result, "targetInfo.targetId").String()) {
			a = &Message{ID: a.ID, SessionID: a.SessionID, Error: &Error{Code: ServerError, Message: "No target with given id found"}}
		}
		if then != nil {
			return then(a)
		}
		return a
	}
}

// judge asks the policy about m: true lets it go on now; false, the
// policy answered it (a refusal), or will (or will let it go on) later.
// A command on no session of the browser's goes on, to be refused.
func (v *Virtual) judge(m *vcommand) bool {
	if v.policy == nil {
		return true
	}
	at, known := v.place(m.SessionID)
	if !known {
		return true
	}
	msg := &Message{ID: strconv.AppendInt(nil, m.ID, 10), SessionID: m.SessionID, Method: m.Method, Params: m.Params}
	verdict := v.policy(at, msg)
	switch {
	case verdict.Reply != nil:
		v.answer(m.Method, verdict.Reply)
		return false
	case verdict.Async != nil:
		cmd := *m
		v.spawn(func() {
			if a := verdict.Async(v.ctx); a != nil {
				v.answer(cmd.Method, a)
				return
			}
			v.dispatch(cmd)
		})
		return false
	}
	m.then = verdict.Then
	return true
}

// place is where a command on session sid was sent (known: on a session
// of this browser).
func (v *Virtual) place(sid string) (at Place, known bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.sessions[sid]
	childTab, isChild := v.children[sid]
	var t *vtarget
	switch {
	case s != nil:
		t = s.tgt
	case isChild:
		t = v.targets[childTab.tab]
	default:
		return Place{}, false
	}
	at = Place{Page: s == nil || s.kind != kindBrowser, Child: s == nil}
	if t != nil {
		at.Target, at.AgentTab = t.pageID, t.agent
	}
	for _, t := range v.targets {
		at.Tabs = append(at.Tabs, t.url)
	}
	return at, true
}

// answer writes a policy's answer to a command.
func (v *Virtual) answer(method string, a *Message) {
	if a.Error != nil {
		v.log.Debug("the policy refused a command", "method", method, "why", a.Error.Message)
	}
	msg, _ := json.Marshal(a)
	v.out(msg)
}

// browserHandler answers one method on a browser session.
type browserHandler func(v *Virtual, s *vsession, m vcommand, p map[string]json.RawMessage)

// browserMethods are the Browser and Target methods a browser session of
// the virtual browser answers itself.
var browserMethods = map[string]browserHandler{
	"Browser.getVersion":           (*Virtual).getVersion,
	"Target.attachToBrowserTarget": (*Virtual).attachToBrowserTarget,
	"Target.getBrowserContexts":    (*Virtual).getBrowserContexts,
	"Target.setDiscoverTargets":    (*Virtual).setDiscover,
	"Target.getTargets":            (*Virtual).getTargets,
	"Target.getTargetInfo":         (*Virtual).getTargetInfo,
	"Target.attachToTarget":        (*Virtual).attachToTarget,
	"Target.detachFromTarget":      (*Virtual).detachFromTarget,
	"Target.setAutoAttach":         (*Virtual).setAutoAttach,
	"Target.createTarget":          func(v *Virtual, _ *vsession, m vcommand, p map[string]json.RawMessage) { v.createTarget(m, p) },
	"Target.closeTarget":           (*Virtual).closeTarget,
	"Target.activateTarget":        (*Virtual).activateTarget,
	"Target.sendMessageToTarget":   (*Virtual).sendMessageToTarget,
}

func (v *Virtual) browserCommand(s *vsession, m vcommand) {
	if h := browserMethods[m.Method]; h != nil {
		h(v, s, m, params(m.Params))
		return
	}
	if strings.HasPrefix(m.Method, "Browser.") || strings.HasPrefix(m.Method, "Target.") {
		// The virtual browser answers these domains itself: what it does
		// not answer reaches nothing.
		v.notHere(m)
		return
	}
	// A browser-level call the policy let through (the cookie jar, as the
	// tabs see it) that the host has no browser target for: run it through
	// one of the attached tabs, as Playwright MCP's relay does.
	v.mu.Lock()
	tab := -1
	for id, a := range v.attach {
		if a.users > 0 && (tab < 0 || id < tab) {
			tab = id
		}
	}
	v.mu.Unlock()
	if tab < 0 {
		v.fail(m, ServerError, "%s: %s runs browser-level calls through an attached tab, and none is attached; attach to a page first", m.Method, v.words.Backend)
		return
	}
	v.forward(m, tab, "", nil)
}

// flatOnly refuses sessions that are not flat.
func (v *Virtual) flatOnly(m vcommand) {
	v.fail(m, ServerError, "only flat sessions are offered by %s: pass flatten: true", v.words.Backend)
}

func str(p map[string]json.RawMessage, key string) string {
	var s string
	_ = json.Unmarshal(p[key], &s)
	return s
}

func boolean(p map[string]json.RawMessage, key string) bool {
	var b bool
	_ = json.Unmarshal(p[key], &b)
	return b
}
