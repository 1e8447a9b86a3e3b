package cdp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Mode is where a peer's messages without a sessionId go.
type Mode int

const (
	// Root: the connection's own session. One peer per connection: it
	// holds the whole connection (a client's own WebSocket to a browser).
	Root Mode = iota
	// Browser: a browser session of its own (Target.attachToBrowserTarget),
	// on a connection several peers share: its target discovery, its
	// auto-attach and its sessions are its alone.
	Browser
	// Page: a session attached to one target (flattened), shown to the
	// peer as if it had the page's own connection.
	Page
)

// PeerOptions configure Conn.Open.
type PeerOptions struct {
	Mode   Mode
	Target string // Page: the target to attach to
	// Deliver receives the answers and events meant for the peer, as its
	// client must see them (its ids; the page or browser session it never
	// named left out), each a copy of its own. It is called on the
	// connection's reading goroutine and must not block: queue, or hand
	// off. An error closes the peer.
	Deliver func([]byte) error
	// deliver is a Relay's Deliver: the message in parts that are the
	// connection's until it returns (nothing is copied to pass it on).
	deliver func(parts) error
	// OnEvent receives the peer's events decoded (for the coordinator's own
	// users); the same rule: it must not block.
	OnEvent func(Message)
	// Event, if set, rewrites or drops (nil) each event before delivery; it
	// sees them decoded (a Policy's hook).
	Event func(*Message) *Message
	// EventDomain, if set, is the method prefix ("Target.") of the only
	// events Event sees; the others pass undecoded.
	EventDomain string
}

// Peer is one party on a connection, with sessions of its own.
type Peer struct {
	c    *Conn
	mode Mode
	// root is the session messages without a sessionId go to ("" for
	// Root). The reader sets it, under the connection's lock, when it
	// routes the attach's answer; it does not change after.
	root  string
	o     PeerOptions
	doneC chan struct{}

	mu       sync.Mutex
	sessions map[string]bool // the sessions it holds
	closed   bool
	why      error
	rootGone bool // the browser ended its own session: nothing to detach
}

// Open adds a peer to the connection: for Browser and Page it attaches a
// session of the peer's own first.
func (c *Conn) Open(ctx context.Context, o PeerOptions) (*Peer, error) {
	p := &Peer{c: c, mode: o.Mode, o: o, doneC: make(chan struct{}), sessions: map[string]bool{}}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, c.closedErr()
	}
	c.peers[p] = struct{}{}
	if o.Mode == Root {
		if c.root != nil {
			delete(c.peers, p)
			c.mu.Unlock()
			return nil, errors.New("cdp: the connection already has a root peer")
		}
		c.root = p
	}
	c.mu.Unlock()
	var err error
	switch o.Mode {
	case Browser:
		_, err = c.call(ctx, "", "Target.attachToBrowserTarget", nil, p, true)
	case Page:
		_, err = c.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": o.Target, "flatten": true}, p, true)
	}
	// The answer has set p.root (a call that gave up has its own error).
	if err == nil && o.Mode != Root && p.root == "" {
		if p.isClosed() {
			err = c.closedErr()
		} else {
			err = errors.New("the browser answered without a session")
		}
	}
	if err != nil {
		p.close(err)
		return nil, err
	}
	return p, nil
}

// Session is the peer's own session: its browser or page session, or ""
// for a Root peer.
func (p *Peer) Session() string { return p.root }

// Done is closed when the peer has ended (Close, or its connection ended).
func (p *Peer) Done() <-chan struct{} { return p.doneC }

// Err says why the peer ended.
func (p *Peer) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.why
}

// Owns reports whether the peer holds session ("" is its own).
func (p *Peer) Owns(session string) bool { return p.owns([]byte(session)) }

func (p *Peer) owns(session []byte) bool {
	if len(session) == 0 || string(session) == p.root || p.mode == Root {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessions[string(session)]
}

func (p *Peer) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Call sends a command of the peer's own, on its session ("") or one it
// holds, and waits for the answer. Its client never sees it; the events it
// causes reach the peer like any other.
func (p *Peer) Call(ctx context.Context, session, method string, params any) (json.RawMessage, error) {
	if session == "" {
		session = p.root
	}
	if !p.Owns(session) {
		return nil, fmt.Errorf("%s: %w", method, &Error{Code: SessionNotFound, Message: "Session with given id not found."})
	}
	if p.isClosed() {
		return nil, fmt.Errorf("%s: %w", method, ErrClosed)
	}
	return p.c.call(ctx, session, method, params, p, false)
}

// Send passes one of the client's commands on: its id is remapped, it goes
// to the peer's session unless it names one the peer holds; a session of
// another peer is answered "not found", as the browser itself would. What
// is not one strict command (see ParseCommand) is answered with an error
// and nothing of it is sent. data is the caller's again once Send returns.
func (p *Peer) Send(ctx context.Context, data []byte) error {
	c, err := parseCommand(data)
	if err != nil {
		return p.deliverOwn(refusal(data, err))
	}
	return p.send(ctx, c, nil)
}

// SendThen passes on a command ParseCommand read (a Policy has seen it),
// with then rewriting the answer before the client sees it. What is sent
// is m, encoded anew: never the client's own bytes.
func (p *Peer) SendThen(ctx context.Context, m *Message, then func(*Message) *Message) error {
	return p.send(ctx, command{id: m.ID, method: []byte(m.Method), session: []byte(m.SessionID), params: m.Params}, then)
}

func (p *Peer) send(ctx context.Context, m command, then func(*Message) *Message) error {
	session := m.session
	if len(session) == 0 {
		session = []byte(p.root) // no copy: the conversion does not escape
	}
	if !p.owns(session) {
		return p.deliverOwn(errorAnswer(m.id, string(m.session), SessionNotFound, "Session with given id not found."))
	}
	if p.isClosed() {
		return ErrClosed
	}
	c := p.c
	id := c.nextID.Add(1)
	var cl *call
	if then == nil {
		cl = c.peerCall(p, m.id)
	} else {
		cl = &call{peer: p, id: bytes.Clone(m.id), then: then}
		cl.head = append([]byte(`{"id":`), cl.id...)
	}
	if string(m.method) == "Target.attachToTarget" || string(m.method) == "Target.attachToBrowserTarget" {
		cl.claimed, cl.on = p, string(session) // the session it opens is the peer's
	}
	if err := c.add(id, cl); err != nil {
		return err
	}
	buf := c.bufs.Get().(*[]byte)
	out := encodeCommand((*buf)[:0], id, m.method, session, m.params)
	err := c.writeParts(ctx, out)
	*buf = out.head[:0]
	c.bufs.Put(buf)
	if err != nil {
		c.forget(id)
		return err
	}
	return nil
}

// attaches are the commands whose answer names a new session.
var attaches = map[string]bool{"Target.attachToTarget": true, "Target.attachToBrowserTarget": true}

// answer delivers the browser's answer to one of the client's commands.
// One that cannot be read or rewritten is answered with an error: the
// client must not wait forever.
func (p *Peer) answer(data []byte, env envelope, cl *call) {
	strip := p.root != "" && string(env.session) == p.root
	unreadable := func(err error) {
		session := string(env.session)
		if strip {
			session = ""
		}
		_ = p.deliverOwn(errorAnswer(cl.id, session, ServerError, "browser-coordinator: the browser's answer could not be passed on: "+err.Error()))
	}
	if cl.then != nil {
		var m Message
		if err := json.Unmarshal(data, &m); err != nil {
			unreadable(err)
			return
		}
		m.ID = cl.id
		if m2 := cl.then(&m); m2 != nil {
			m = *m2
			m.ID = cl.id
		}
		if strip && m.SessionID == p.root {
			m.SessionID = ""
		}
		out, err := json.Marshal(&m)
		if err != nil {
			unreadable(err)
			return
		}
		_ = p.deliverOwn(out)
		return
	}
	out, err := answerAs(data, env, cl.head, strip)
	if err != nil {
		unreadable(err)
		return
	}
	_ = p.deliver(out)
}

// event delivers a browser event on one of the peer's sessions.
// Only the sessions a peer holds bring it events: never the connection's
// own (browser-level) session, unless it is a Root peer.
func (p *Peer) event(data []byte, env envelope) {
	strip := p.root != "" && string(env.session) == p.root
	d := p.o.EventDomain
	hook := p.o.Event != nil && len(env.method) >= len(d) && string(env.method[:len(d)]) == d
	if hook || p.o.OnEvent != nil {
		var m Message
		if json.Unmarshal(data, &m) != nil {
			return
		}
		if p.o.OnEvent != nil {
			p.o.OnEvent(m)
		}
		if !p.delivers() {
			return
		}
		if hook {
			before := m
			out := p.o.Event(&m)
			switch {
			case out == nil:
				return
			case out != &m || !sameEvent(m, before):
				// The policy rewrote it: the client gets its version.
				if strip && out.SessionID == p.root {
					out.SessionID = ""
				}
				if raw, err := json.Marshal(out); err == nil {
					_ = p.deliverOwn(raw)
				}
				return
			}
		}
	}
	if !p.delivers() {
		return
	}
	out := parts{body: data}
	if strip {
		var err error
		if out, err = eventWithout(data, env); err != nil {
			return
		}
	}
	_ = p.deliver(out)
}

func sameEvent(a, b Message) bool {
	return a.Method == b.Method && a.SessionID == b.SessionID && string(a.Params) == string(b.Params)
}

func (p *Peer) delivers() bool { return p.o.deliver != nil || p.o.Deliver != nil }

// deliver hands a message to the peer's client; one it cannot take closes
// the peer. Its parts may be the connection's: Deliver gets a copy.
func (p *Peer) deliver(m parts) error {
	var err error
	switch {
	case p.o.deliver != nil:
		err = p.o.deliver(m)
	case p.o.Deliver != nil:
		err = p.o.Deliver(m.join())
	default:
		return nil
	}
	if err != nil {
		p.close(fmt.Errorf("its client does not take messages: %w", err))
	}
	return err
}

// deliverOwn hands the client a message of our own making.
func (p *Peer) deliverOwn(data []byte) error {
	if p.o.deliver == nil && p.o.Deliver != nil {
		return p.deliverCopy(data)
	}
	return p.deliver(parts{body: data})
}

// deliverCopy hands Deliver data itself: it is ours to give.
func (p *Peer) deliverCopy(data []byte) error {
	if err := p.o.Deliver(data); err != nil {
		p.close(fmt.Errorf("its client does not take messages: %w", err))
		return err
	}
	return nil
}

// Emit delivers a message of the peer's own (a policy's answer or event)
// to its client, as the client knows it (its page or browser session left
// out).
func (p *Peer) Emit(m *Message) error {
	if p.root != "" && m.SessionID == p.root {
		cp := *m
		cp.SessionID = ""
		m = &cp
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return p.deliverOwn(data)
}

// Close ends the peer: its sessions are let go (a Browser or Page session
// is detached, and with it everything attached under it).
func (p *Peer) Close() { p.close(ErrClosed) }

func (p *Peer) close(why error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed, p.why = true, why
	rootGone := p.rootGone
	sessions := p.sessions
	p.sessions = map[string]bool{}
	p.mu.Unlock()

	c := p.c
	c.mu.Lock()
	delete(c.peers, p)
	if c.root == p {
		c.root = nil
	}
	for s := range sessions {
		if c.owners[s] == p {
			delete(c.owners, s)
		}
	}
	for id, cl := range c.pending {
		switch {
		case cl.peer != p:
		case cl.claimed == p:
			// An attach in flight: no one takes the answer, and the
			// session it names is detached (see route).
			cl.peer = nil
		default:
			delete(c.pending, id)
		}
	}
	if p.root != "" && !rootGone {
		// Let the browser drop the session and what hangs under it (unless
		// the browser ended it itself).
		c.detachLocked("", p.root)
	}
	c.mu.Unlock()
	close(p.doneC)
}

// ErrDetached is why a peer ended when the browser ended its own session
// (its target closed, its debugger went away).
var ErrDetached = errors.New("the target's session ended (the tab closed, or the browser detached it)")

// detached: the browser ended the peer's own session.
func (p *Peer) detached() {
	p.mu.Lock()
	p.rootGone = true
	p.mu.Unlock()
	p.close(ErrDetached)
}

// lost: the connection ended under the peer.
func (p *Peer) lost() { p.close(p.c.closedErr()) }
