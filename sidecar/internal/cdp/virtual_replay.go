package cdp

import (
	"encoding/json"
	"slices"
)

// tabReplay is the state of one tab's shared debugger session that the
// browser reports only once: the execution contexts of its main session
// and the child sessions (iframes, workers) auto-attach gave it.
type tabReplay struct {
	contexts []replayEntry[int64] // in creation order
	children []replayEntry[string]
}

type replayEntry[K comparable] struct {
	key    K
	params json.RawMessage
}

// put adds (or moves to the end) the entry for key.
func put[K comparable](list []replayEntry[K], key K, params json.RawMessage) []replayEntry[K] {
	return append(drop(list, key), replayEntry[K]{key, params})
}

func drop[K comparable](list []replayEntry[K], key K) []replayEntry[K] {
	return slices.DeleteFunc(list, func(e replayEntry[K]) bool { return e.key == key })
}

// replayEvent is what the replay reads of an event's parameters.
type replayEvent struct {
	Context struct {
		ID int64 `json:"id"`
	} `json:"context"`
	ExecutionContextID int64  `json:"executionContextId"`
	SessionID          string `json:"sessionId"`
}

// note updates the replay state from one event of the tab's main session.
func (r *tabReplay) note(method string, params json.RawMessage) {
	var p replayEvent
	switch method {
	case "Runtime.executionContextsCleared":
		r.contexts = nil
		return
	case "Runtime.executionContextCreated", "Runtime.executionContextDestroyed", "Target.attachedToTarget", "Target.detachedFromTarget":
		if json.Unmarshal(params, &p) != nil {
			return
		}
	default:
		return
	}
	switch method {
	case "Runtime.executionContextCreated":
		r.contexts = put(r.contexts, p.Context.ID, params)
	case "Runtime.executionContextDestroyed":
		r.contexts = drop(r.contexts, p.ExecutionContextID)
	case "Target.attachedToTarget":
		r.children = put(r.children, p.SessionID, params)
	case "Target.detachedFromTarget":
		r.children = drop(r.children, p.SessionID)
	}
}

// snapshot returns what to replay for Runtime.enable or Target.setAutoAttach.
func (r *tabReplay) snapshot(method string) []json.RawMessage {
	var out []json.RawMessage
	if method == "Runtime.enable" {
		for _, e := range r.contexts {
			out = append(out, e.params)
		}
		return out
	}
	for _, e := range r.children {
		out = append(out, e.params)
	}
	return out
}
