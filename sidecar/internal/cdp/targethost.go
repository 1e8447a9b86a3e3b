package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/tidwall/gjson"
)

// A TargetHost is a TabHost over a connection to a real browser: the
// virtual browser's tabs are the targets its owner shows (Show), one tab
// each, and nothing else of that browser is ever named to a client. VS
// Code's browser view in Tier 2 is such a tab: VS Code's own windows are
// targets of the same browser that are never shown.
//
// A tab's debugger session is a page session of the host's own on the
// connection (Conn.Open), attached while the virtual browser has page
// sessions on the tab; the child sessions it auto-attaches (iframes,
// workers) are its too. What the browser says on them goes to the
// virtual browser as the tab's events, through the owner's Event hook.
type TargetHost struct {
	conn    *Conn
	version Version
	event   func(Target, *Message) *Message

	ctx    context.Context // ends with Shutdown: attaches under way give up
	cancel context.CancelFunc
	watch  sync.WaitGroup // a goroutine per attachment, until it ends
	ids    atomic.Int64   // the ids of the host's commands

	show sync.Mutex // Show, one at a time: what it tells the Virtual comes in order
	mu   sync.Mutex
	v    *Virtual
	next int              // the last tab id given
	tabs map[int]*hostTab // by tab id
	byID map[string]int   // tab id by target id
}

// hostTab is one shown target.
type hostTab struct {
	target Target
	att    *attached // its debugger session, while attached
}

// attached is the host's session on a tab, and the commands sent on it
// that wait for their answer.
type attached struct {
	peer    *Peer
	pending map[int64]func(json.RawMessage, error)
}

// TargetHostOptions configure a TargetHost.
type TargetHostOptions struct {
	Conn    *Conn   // the browser's connection (the host opens sessions on it)
	Version Version // what the browser said it is (Browser.getVersion)
	// Event, if set, sees each event of a shown target's sessions before
	// the virtual browser does: it may rewrite it, or drop it (nil).
	Event func(Target, *Message) *Message
}

// NewTargetHost makes a host that shows nothing yet: make a Virtual on it
// (VirtualOptions.Host), then Show.
func NewTargetHost(o TargetHostOptions) *TargetHost {
	h := &TargetHost{conn: o.Conn, version: o.Version, event: o.Event, tabs: map[int]*hostTab{}, byID: map[string]int{}}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	return h
}

// bind is how NewVirtual gives the host its virtual browser.
func (h *TargetHost) bind(v *Virtual) {
	h.mu.Lock()
	h.v = v
	h.mu.Unlock()
}

func (h *TargetHost) virtual() *Virtual {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.v
}

// Show makes targets the tabs of the virtual browser (none: it shows no
// tab): a target shown for the first time appears as a new tab, one
// shown before is updated, and one no longer shown is closed (its
// sessions end).
func (h *TargetHost) Show(targets ...Target) {
	h.show.Lock()
	defer h.show.Unlock()
	v := h.virtual()
	h.mu.Lock()
	shown := make(map[string]bool, len(targets))
	var news []VirtualTab
	for _, t := range targets {
		shown[t.ID] = true
		id, known := h.byID[t.ID]
		if known && h.tabs[id].target == t {
			continue
		}
		if !known {
			h.next++
			id = h.next
			h.byID[t.ID] = id
			h.tabs[id] = &hostTab{}
		}
		h.tabs[id].target = t
		news = append(news, VirtualTab{ID: id, TargetID: t.ID, Title: t.Title, URL: t.URL, Active: true})
	}
	var gone []int
	for tid, id := range h.byID {
		if !shown[tid] {
			delete(h.byID, tid)
			gone = append(gone, id) // its attachment goes with the tab's last session (Detach)
		}
	}
	h.mu.Unlock()
	for _, id := range gone {
		v.TabClosed(id)
		h.mu.Lock()
		delete(h.tabs, id)
		h.mu.Unlock()
	}
	for _, t := range news {
		v.TabChanged(t)
	}
}

// Shown is the shown target with this id.
func (h *TargetHost) Shown(targetID string) (Target, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id, ok := h.byID[targetID]; ok {
		return h.tabs[id].target, true
	}
	return Target{}, false
}

// Call sends a command of the owner's own on the debugger session of the
// shown target (attached: a client has a session on it) and waits for
// the answer; its events reach the clients like any other.
func (h *TargetHost) Call(ctx context.Context, targetID, method string, params any) (json.RawMessage, error) {
	h.mu.Lock()
	var p *Peer
	if id, ok := h.byID[targetID]; ok && h.tabs[id].att != nil {
		p = h.tabs[id].att.peer
	}
	h.mu.Unlock()
	if p == nil {
		return nil, fmt.Errorf("%s: no session on target %s", method, targetID)
	}
	return p.Call(ctx, "", method, params)
}

// Shutdown lets go of every tab's session and waits for them to end; the
// connection is its owner's.
func (h *TargetHost) Shutdown() {
	h.mu.Lock()
	h.cancel() // under mu: no goroutine of the host's starts after it
	tabs := make([]int, 0, len(h.tabs))
	for id := range h.tabs {
		tabs = append(tabs, id)
	}
	h.mu.Unlock()
	for _, id := range tabs {
		h.Detach(id)
	}
	h.watch.Wait()
}

// Version implements TabHost.
func (h *TargetHost) Version() (string, string, error) {
	select {
	case <-h.conn.Done():
		return "", "", h.conn.closedErr()
	default:
		return h.version.Product, h.version.UserAgent, nil
	}
}

// Attach implements TabHost: a page session of the host's own on the
// tab's target.
func (h *TargetHost) Attach(tab int) error {
	h.mu.Lock()
	t := h.tabs[tab]
	h.mu.Unlock()
	if t == nil {
		return fmt.Errorf("tab %d is no longer shown", tab)
	}
	att := &attached{pending: map[int64]func(json.RawMessage, error){}}
	peer, err := h.conn.Open(h.ctx, PeerOptions{Mode: Page, Target: t.target.ID, Deliver: func(data []byte) error {
		h.deliver(tab, att, data)
		return nil
	}})
	if err != nil {
		return err
	}
	att.peer = peer
	h.mu.Lock()
	if h.tabs[tab] != t || h.ctx.Err() != nil {
		h.mu.Unlock()
		peer.Close()
		return fmt.Errorf("tab %d is no longer shown", tab)
	}
	t.att = att
	h.watch.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.watch.Done()
		<-peer.Done()
		h.ended(tab, att)
	}()
	return nil
}

// Detach implements TabHost.
func (h *TargetHost) Detach(tab int) {
	if att := h.release(tab, nil); att != nil {
		att.peer.Close()
	}
}

// release takes the tab's attachment (only if it is att, when att is
// set) and fails the commands that wait on it.
func (h *TargetHost) release(tab int, att *attached) *attached {
	h.mu.Lock()
	t := h.tabs[tab]
	if t == nil || t.att == nil || (att != nil && t.att != att) {
		h.mu.Unlock()
		return nil
	}
	att = t.att
	t.att = nil
	pending := att.pending
	att.pending = nil
	h.mu.Unlock()
	for _, done := range pending {
		done(nil, errors.New("the tab's session ended"))
	}
	return att
}

// ended: the attachment's session ended. Unless the host let go of it
// (Detach), the browser did: the target closed, or it was detached.
func (h *TargetHost) ended(tab int, att *attached) {
	if h.release(tab, att) != nil {
		h.virtual().DebuggerDetached(tab, att.peer.Err().Error())
	}
}

// Send implements TabHost: the command goes on the tab's session (or a
// child session of it), in the order Send is called.
func (h *TargetHost) Send(tab int, child, method string, params json.RawMessage, done func(json.RawMessage, error)) {
	id := h.ids.Add(1)
	h.mu.Lock()
	var att *attached
	if t := h.tabs[tab]; t != nil && t.att != nil {
		att = t.att
		att.pending[id] = done
	}
	h.mu.Unlock()
	if att == nil {
		done(nil, fmt.Errorf("tab %d is not attached", tab))
		return
	}
	m := &Message{ID: strconv.AppendInt(nil, id, 10), SessionID: child, Method: method, Params: params}
	if err := att.peer.SendThen(h.ctx, m, nil); err != nil {
		if done := h.take(att, id); done != nil {
			done(nil, err)
		}
	}
}

// take removes and returns the callback waiting for answer id.
func (h *TargetHost) take(att *attached, id int64) func(json.RawMessage, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	done := att.pending[id]
	delete(att.pending, id)
	return done
}

// deliver takes what the browser says on a tab's sessions: an answer to
// Send, or an event for the virtual browser. A big answer (a screenshot)
// is not copied here: its result is a slice of the message.
func (h *TargetHost) deliver(tab int, att *attached, data []byte) {
	env := peekBrowser(data)
	if env.hasID {
		id, ok := env.numericID()
		if !ok {
			return
		}
		done := h.take(att, id)
		if done == nil {
			return
		}
		if r := gjson.GetBytes(data, "result"); r.Exists() {
			done(slice(data, r), nil)
			return
		}
		e := &Error{Code: ServerError, Message: "the browser's answer has neither a result nor an error"}
		if r := gjson.GetBytes(data, "error"); r.Exists() {
			_ = json.Unmarshal(slice(data, r), e)
		}
		done(nil, e)
		return
	}
	if len(env.method) == 0 {
		return
	}
	m := &Message{SessionID: string(env.session), Method: string(env.method), Params: slice(data, gjson.GetBytes(data, "params"))}
	if h.event != nil {
		h.mu.Lock()
		t := h.tabs[tab]
		h.mu.Unlock()
		if t == nil {
			return
		}
		if m = h.event(t.target, m); m == nil {
			return
		}
	}
	h.virtual().TabEvent(tab, m.SessionID, m.Method, m.Params)
}

// slice is r's text as a slice of data, where r was read from.
func slice(data []byte, r gjson.Result) json.RawMessage {
	if r.Index > 0 && r.Index+len(r.Raw) <= len(data) {
		return data[r.Index : r.Index+len(r.Raw)]
	}
	return json.RawMessage(r.Raw)
}

// Open implements TabHost: the tabs are the owner's to show.
func (h *TargetHost) Open(string, bool) (int, error) {
	return 0, errors.New("this browser opens no tabs: it shows the targets its owner chose")
}

// Close implements TabHost: the tabs are the owner's to show.
func (h *TargetHost) Close(_ int, done func(error)) {
	done(errors.New("this browser closes no tabs: it shows the targets its owner chose"))
}

// Focus implements TabHost: the browser activates the tab's target.
func (h *TargetHost) Focus(tab int, done func(error)) {
	h.mu.Lock()
	t := h.tabs[tab]
	if t == nil || h.ctx.Err() != nil {
		h.mu.Unlock()
		done(fmt.Errorf("tab %d is no longer shown", tab))
		return
	}
	h.watch.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.watch.Done()
		_, err := h.conn.Call(h.ctx, "", "Target.activateTarget", map[string]string{"targetId": t.target.ID})
		done(err)
	}()
}
