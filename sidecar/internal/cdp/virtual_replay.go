package cdp

import (
	"encoding/json"
	"slices"
)

// tabReplay is the state of one tab's shared debugger session that the
// browser reports only once: the execution contexts of its main session
// and the child sessions (iframes, workers) auto-attach gave it.
type tabReplay struct {
	contexts Contexts
	children []child // in the order they attached
}

type child struct {
	session string
	params  json.RawMessage // its attachedToTarget event's
}

// note updates the replay state from one event of the tab's main session.
func (r *tabReplay) note(method string, params json.RawMessage) {
	if r.contexts.Note(method, params) {
		return
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	switch method {
	case "Target.attachedToTarget", "Target.detachedFromTarget":
		if json.Unmarshal(params, &p) != nil {
			return
		}
	default:
		return
	}
	r.children = slices.DeleteFunc(r.children, func(c child) bool { return c.session == p.SessionID })
	if method == "Target.attachedToTarget" {
		r.children = append(r.children, child{p.SessionID, params})
	}
}

// snapshot returns what to replay for Runtime.enable or Target.setAutoAttach.
func (r *tabReplay) snapshot(method string) []json.RawMessage {
	if method == "Runtime.enable" {
		return r.contexts.Created()
	}
	out := make([]json.RawMessage, len(r.children))
	for i, c := range r.children {
		out[i] = c.params
	}
	return out
}
