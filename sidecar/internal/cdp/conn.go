package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/tidwall/gjson"
)

// Conn is one connection to a browser. It sends calls of its own (Call),
// and carries the messages of any number of Peers, each with sessions of
// its own. One goroutine reads; it routes answers to whoever asked and
// events to the peer that holds their session.
type Conn struct {
	t       Transport
	log     *slog.Logger
	onEvent func(Message) // events no peer holds (the connection's own sessions)
	nextID  atomic.Int64

	mu      sync.Mutex
	pending map[int64]*call
	owners  map[string]*Peer // session id → the peer that holds it
	root    *Peer            // the peer that holds the connection's own session, if any
	peers   map[*Peer]struct{}
	closed  bool
	err     error // why it closed
	done    chan struct{}
	reading sync.WaitGroup // the reader, for Close
	bg      sync.WaitGroup // detaches no one waits for (see detachLocked), for Close

	// Kept for the next message: a peer's pending calls (each back once
	// its answer is delivered) and the buffers its commands are written in.
	calls, bufs sync.Pool
}

// call is one message out whose answer is awaited.
type call struct {
	ch   chan Message // our own call: the answer goes here
	peer *Peer        // a peer's message: the answer goes back to it
	// head is `{"id":` and the id as the peer wrote it (id): its answer's
	// head, in room for a usual id.
	head, id []byte
	room     [32]byte
	pooled   bool // from Conn.calls: back there once answered
	then     func(*Message) *Message
	// An attach: the session its answer names becomes claimed's (its own
	// session if root: Open). If claimed has closed by then (an Open that
	// gave up closes its peer; a client may go first), no one holds the
	// session: it is detached, on the session the attach was sent on.
	claimed *Peer
	root    bool
	on      string
}

// Options configure NewConn.
type Options struct {
	// OnEvent receives the events of sessions no peer holds, on the reading
	// goroutine: it must not block.
	OnEvent func(Message)
	Logger  *slog.Logger
}

// NewConn runs a connection over t. It reads until t fails or Close.
func NewConn(t Transport, o Options) *Conn {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	c := &Conn{t: t, log: log, onEvent: o.OnEvent, pending: map[int64]*call{}, owners: map[string]*Peer{}, peers: map[*Peer]struct{}{}, done: make(chan struct{})}
	c.calls.New = func() any { return new(call) }
	c.bufs.New = func() any { b := make([]byte, 0, 256); return &b }
	c.reading.Add(1)
	go c.read()
	return c
}

// Dial opens a WebSocket to a CDP endpoint (ws(s)://…/devtools/browser/…
// or a page's) and runs a connection on it.
func Dial(ctx context.Context, wsURL string, onEvent func(Message)) (*Conn, error) {
	e, err := wsEndpoint(wsURL, nil)
	if err != nil {
		return nil, err
	}
	return e.Dial(ctx, onEvent)
}

// Done is closed when the connection ends.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the connection ended (nil while it runs).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection and waits for its reader.
func (c *Conn) Close() error {
	c.shutdown(ErrClosed)
	c.reading.Wait()
	c.bg.Wait()
	return nil
}

func (c *Conn) read() {
	defer c.reading.Done()
	for {
		data, err := c.t.ReadMessage()
		if err != nil {
			c.shutdown(err)
			return
		}
		c.route(data)
	}
}

func (c *Conn) shutdown(why error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed, c.err = true, why
	pending := c.pending
	c.pending = map[int64]*call{}
	peers := make([]*Peer, 0, len(c.peers))
	for p := range c.peers {
		peers = append(peers, p)
	}
	c.mu.Unlock()
	close(c.done)
	c.t.Close()
	for _, cl := range pending {
		if cl.ch != nil {
			close(cl.ch)
		}
	}
	for _, p := range peers {
		p.lost()
	}
}

// route sends a browser message where it belongs. data is the
// transport's: whatever outlives this call is copied.
func (c *Conn) route(data []byte) {
	env := peekBrowser(data)
	if env.hasID {
		id, ok := env.numericID()
		if !ok {
			return
		}
		c.mu.Lock()
		cl := c.pending[id]
		delete(c.pending, id)
		if cl != nil && cl.claimed != nil {
			if s := gjson.GetBytes(data, "result.sessionId").String(); s != "" {
				if !c.ownLocked(s, cl.claimed) {
					c.detachLocked(cl.on, s)
				} else if cl.root {
					// Before anyone hears of the session: its events may
					// follow the answer at once.
					cl.claimed.root = s
				}
			}
		}
		c.mu.Unlock()
		switch {
		case cl == nil:
		case cl.ch != nil:
			var m Message
			if err := json.Unmarshal(data, &m); err != nil {
				m.Error = &Error{Code: ServerError, Message: "unreadable answer from the browser"}
			}
			cl.ch <- m
		case cl.peer != nil:
			cl.peer.answer(data, env, cl)
			if cl.pooled {
				*cl = call{}
				c.calls.Put(cl)
			}
		}
		return
	}
	c.mu.Lock()
	owner := c.owners[string(env.session)]
	if owner == nil && c.root != nil {
		owner = c.root
	}
	// Sessions a peer's session opens are that peer's: the browser announces
	// them on the parent session before any of their own messages.
	var orphan *Peer // a peer whose own session the browser ended
	if method := string(env.method); method == "Target.attachedToTarget" {
		if owner != nil {
			c.ownLocked(gjson.GetBytes(data, "params.sessionId").String(), owner)
		}
	} else if method == "Target.detachedFromTarget" {
		s := gjson.GetBytes(data, "params.sessionId").String()
		if p := c.owners[s]; p != nil && p.root == s && p.mode != Root {
			orphan = p
		}
		c.disownLocked(s)
	}
	c.mu.Unlock()
	if orphan != nil {
		// Its target closed, or its debugger was taken away: the peer ends,
		// as a browser closes a page's own WebSocket.
		orphan.detached()
	}
	if owner != nil {
		owner.event(data, env)
		return
	}
	if c.onEvent != nil && len(env.method) > 0 {
		var m Message
		if json.Unmarshal(data, &m) == nil {
			c.onEvent(m)
		}
	}
}

// peerCall is a pooled call for a peer's command with the client's id.
func (c *Conn) peerCall(p *Peer, id []byte) *call {
	cl := c.calls.Get().(*call)
	cl.peer, cl.pooled = p, true
	cl.head = append(append(cl.room[:0], `{"id":`...), id...)
	cl.id = cl.head[len(`{"id":`):]
	return cl
}

// ownLocked gives session to p, unless p has closed.
func (c *Conn) ownLocked(session string, p *Peer) bool {
	if session == "" {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	c.owners[session] = p
	p.sessions[session] = true
	return true
}

// detachLocked lets the browser drop session, sent on the session on
// ("" for the connection's own); no one waits for the answer. Close waits
// for the write.
func (c *Conn) detachLocked(on, session string) {
	if c.closed {
		return
	}
	m := map[string]any{"id": c.nextID.Add(1), "method": "Target.detachFromTarget", "params": map[string]string{"sessionId": session}}
	if on != "" {
		m["sessionId"] = on
	}
	data, _ := json.Marshal(m)
	c.bg.Add(1) // under c.mu, with closed false: before Close's Wait
	go func() {
		defer c.bg.Done()
		_ = c.write(context.Background(), data)
	}()
}

func (c *Conn) disownLocked(session string) {
	if p := c.owners[session]; p != nil {
		delete(c.owners, session)
		p.mu.Lock()
		delete(p.sessions, session)
		p.mu.Unlock()
	}
}

// Call sends method with params (any JSON-marshalable value, or nil) on the
// browser's own session or, with a session id, on an attached target's, and
// waits for the answer.
func (c *Conn) Call(ctx context.Context, session, method string, params any) (json.RawMessage, error) {
	return c.call(ctx, session, method, params, nil, false)
}

// call sends a command of our own. An attach (claim set) gives the session
// its answer names to claim (as its own session if root); a caller that
// gives up before the answer leaves its call pending, so that the session
// is detached when it comes.
func (c *Conn) call(ctx context.Context, session, method string, params any, claim *Peer, root bool) (json.RawMessage, error) {
	m := map[string]any{"method": method}
	if params != nil {
		m["params"] = params
	}
	if session != "" {
		m["sessionId"] = session
	}
	id := c.nextID.Add(1)
	m["id"] = id
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	ch := make(chan Message, 1)
	cl := &call{ch: ch}
	if claim != nil && attaches[method] {
		cl.claimed, cl.root, cl.on = claim, root, session
	}
	if err := c.add(id, cl); err != nil {
		return nil, err
	}
	if err := c.write(ctx, data); err != nil {
		c.forget(id)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case ans, ok := <-ch:
		return c.answered(method, ans, ok)
	case <-ctx.Done():
		if !c.giveUp(id) {
			// The answer is on its way (the reader has taken it): an
			// attach's session has been given out; take the answer.
			ans, ok := <-ch
			if _, err := c.answered(method, ans, ok); err != nil {
				return nil, err
			}
		}
		return nil, ctx.Err()
	}
}

// answered is the outcome of a call whose answer came (ok), or whose
// connection closed first.
func (c *Conn) answered(method string, ans Message, ok bool) (json.RawMessage, error) {
	if !ok {
		return nil, fmt.Errorf("%s: %w", method, c.closedErr())
	}
	if ans.Error != nil {
		return nil, fmt.Errorf("%s: %w", method, ans.Error)
	}
	return ans.Result, nil
}

// giveUp: the caller of call id no longer waits. An attach stays pending
// with no one to answer: when the answer comes, its session goes to the
// claimer, or is detached if the claimer has closed (Open closes it);
// anything else is forgotten. false: the answer has come already.
func (c *Conn) giveUp(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl := c.pending[id]
	if cl == nil {
		return false
	}
	if cl.claimed != nil {
		cl.ch = nil
		return true
	}
	delete(c.pending, id)
	return true
}

func (c *Conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil && c.err != ErrClosed {
		return fmt.Errorf("%w: %v", ErrClosed, c.err)
	}
	return ErrClosed
}

func (c *Conn) add(id int64, cl *call) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	c.pending[id] = cl
	return nil
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// write sends one message. A caller whose ctx ends before the write starts
// gets ctx's error and the connection goes on; any other failure (the
// browser did not take the message within WriteTimeout, the transport
// broke) may have left part of a message behind: the connection ends.
func (c *Conn) write(ctx context.Context, data []byte) error {
	return c.writeParts(ctx, parts{body: data})
}

func (c *Conn) writeParts(ctx context.Context, p parts) error {
	err := writeParts(ctx, c.t, p)
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
		return err
	}
	c.shutdown(fmt.Errorf("write to the browser: %w; the connection to the browser was closed, as a message may have been cut short", err))
	return c.closedErr() // ErrClosed, so that a caller can tell a dead browser from a refusal
}
