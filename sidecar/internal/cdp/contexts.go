package cdp

import (
	"encoding/json"
	"slices"
)

// Contexts are the execution contexts of one session, as its Runtime
// events tell them: which live, in which frame and world, in the order
// they were created. The browser reports a context once, to the session
// that had Runtime enabled when it was made; whoever needs them later asks
// here. The virtual browser replays them to a second session on a tab that
// shares its debugger session; page tools find their isolated world's
// context of a frame. Not safe for concurrent use: its owner's lock
// guards it.
type Contexts struct {
	live []execContext // in creation order
}

type execContext struct {
	id     int64
	frame  string
	world  string          // the context's name: "" for a frame's main world
	params json.RawMessage // the executionContextCreated event's, when it came as one
}

// contextEvent is what Contexts reads of the Runtime events.
type contextEvent struct {
	Context struct {
		ID      int64  `json:"id"`
		Name    string `json:"name"`
		AuxData struct {
			FrameID string `json:"frameId"`
		} `json:"auxData"`
	} `json:"context"`
	ExecutionContextID int64 `json:"executionContextId"`
}

// Note takes one event of the session; it reports whether the event was
// about execution contexts.
func (c *Contexts) Note(method string, params json.RawMessage) bool {
	var ev contextEvent
	switch method {
	case "Runtime.executionContextsCleared":
		c.Clear()
	case "Runtime.executionContextCreated":
		if json.Unmarshal(params, &ev) == nil {
			c.add(execContext{id: ev.Context.ID, frame: ev.Context.AuxData.FrameID, world: ev.Context.Name, params: params})
		}
	case "Runtime.executionContextDestroyed":
		if json.Unmarshal(params, &ev) == nil {
			c.drop(ev.ExecutionContextID)
		}
	default:
		return false
	}
	return true
}

// Add records a context learned otherwise than from its event (the answer
// to Page.createIsolatedWorld), unless its event came first.
func (c *Contexts) Add(id int64, frame, world string) {
	if _, _, ok := c.Frame(id); !ok {
		c.add(execContext{id: id, frame: frame, world: world})
	}
}

// Frame is the frame and the world of a live context.
func (c *Contexts) Frame(id int64) (frame, world string, ok bool) {
	for _, x := range c.live {
		if x.id == id {
			return x.frame, x.world, true
		}
	}
	return "", "", false
}

// Created is what a session that enables Runtime now would hear: the
// executionContextCreated events of the live contexts, in creation order.
func (c *Contexts) Created() []json.RawMessage {
	var out []json.RawMessage
	for _, x := range c.live {
		if x.params != nil {
			out = append(out, x.params)
		}
	}
	return out
}

// Clear forgets every context (the browser reports them all afresh).
func (c *Contexts) Clear() { c.live = nil }

func (c *Contexts) add(x execContext) {
	c.drop(x.id)
	c.live = append(c.live, x)
}

func (c *Contexts) drop(id int64) {
	c.live = slices.DeleteFunc(c.live, func(x execContext) bool { return x.id == id })
}
