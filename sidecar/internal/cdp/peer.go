package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	// named left out). It is called on the connection's reading goroutine
	// and must not block: queue, or hand off. An error closes the peer.
	Deliver func([]byte) error
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
func (p *Peer) Owns(session string) bool {
	if session == "" || session == p.root || p.mode == Root {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessions[session]
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
// and nothing of it is sent.
func (p *Peer) Send(ctx context.Context, data []byte) error {
	m, err := ParseCommand(data)
	if err != nil {
		return p.deliver(refusal(data, err))
	}
	return p.send(ctx, &m, nil)
}

// SendThen passes on a command ParseCommand read (a Policy has seen it),
// with then rewriting the answer before the client sees it. What is sent
// is m, encoded anew: never the client's own bytes.
func (p *Peer) SendThen(ctx context.Context, m *Message, then func(*Message) *Message) error {
	return p.send(ctx, m, then)
}

func (p *Peer) send(ctx context.Context, m *Message, then func(*Message) *Message) error {
	session := m.SessionID
	if session == "" {
		session = p.root
	}
	if !p.Owns(session) {
		return p.deliver(errorAnswer(m.ID, m.SessionID, SessionNotFound, "Session with given id not found."))
	}
	if p.isClosed() {
		return ErrClosed
	}
	id := p.c.nextID.Add(1)
	cl := &call{peer: p, id: m.ID, then: then}
	if attaches[m.Method] {
		cl.claimed, cl.on = p, session // the session it opens is the peer's
	}
	if err := p.c.add(id, cl); err != nil {
		return err
	}
	if err := p.c.write(ctx, encodeCommand(id, m.Method, session, m.Params)); err != nil {
		p.c.forget(id)
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
	strip := p.root != "" && env.session == p.root
	unreadable := func(err error) {
		session := env.session
		if strip {
			session = ""
		}
		_ = p.deliver(errorAnswer(cl.id, session, ServerError, "browser-coordinator: the browser's answer could not be passed on: "+err.Error()))
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
		_ = p.deliver(out)
		return
	}
	out, err := answerAs(data, env, cl.id, strip)
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
	strip := p.root != "" && env.session == p.root
	hook := p.o.Event != nil && strings.HasPrefix(env.method, p.o.EventDomain)
	if hook || p.o.OnEvent != nil {
		var m Message
		if json.Unmarshal(data, &m) != nil {
			return
		}
		if p.o.OnEvent != nil {
			p.o.OnEvent(m)
		}
		if p.o.Deliver == nil {
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
					_ = p.deliver(raw)
				}
				return
			}
		}
	}
	if p.o.Deliver == nil {
		return
	}
	if strip {
		var err error
		if data, err = eventWithout(data, env); err != nil {
			return
		}
	}
	_ = p.deliver(data)
}

func sameEvent(a, b Message) bool {
	return a.Method == b.Method && a.SessionID == b.SessionID && string(a.Params) == string(b.Params)
}

// deliver hands a message to the peer's client; one it cannot take closes
// the peer.
func (p *Peer) deliver(data []byte) error {
	if p.o.Deliver == nil {
		return nil
	}
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
	return p.deliver(data)
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
