package cdp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
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
	bg      sync.WaitGroup // detaches sent for closed peers, for Close
}

// call is one message out whose answer is awaited.
type call struct {
	ch      chan Message    // our own call: the answer goes here
	peer    *Peer           // a peer's message: the answer goes back to it
	id      json.RawMessage // the id as the peer wrote it
	then    func(*Message) *Message
	claimed *Peer // a session the answer names becomes this peer's (Open)
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
	c.reading.Add(1)
	go c.read()
	return c
}

// Dial opens a WebSocket to a CDP endpoint (ws://…/devtools/browser/… or a
// page's) and runs a connection on it.
func Dial(ctx context.Context, wsURL string, onEvent func(Message)) (*Conn, error) {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10}
	ws, resp, err := d.DialContext(ctx, wsURL, nil)
	if err != nil {
		shown := wsURL
		if u, perr := url.Parse(wsURL); perr == nil {
			shown = Redact(u.String())
		}
		if resp != nil {
			return nil, fmt.Errorf("connect to %s: %w (HTTP %s)", shown, err, resp.Status)
		}
		return nil, fmt.Errorf("connect to %s: %w", shown, err)
	}
	return NewConn(WebSocket(ws), Options{OnEvent: onEvent}), nil
}

// New runs a connection on an open WebSocket.
func New(ws *websocket.Conn, onEvent func(Message)) *Conn {
	return NewConn(WebSocket(ws), Options{OnEvent: onEvent})
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

// route sends a browser message where it belongs.
func (c *Conn) route(data []byte) {
	env := peekBrowser(data)
	if env.id.Exists() {
		id, ok := env.numericID()
		if !ok {
			return
		}
		c.mu.Lock()
		cl := c.pending[id]
		delete(c.pending, id)
		if cl != nil && cl.claimed != nil {
			if s := gjson.GetBytes(data, "result.sessionId").String(); s != "" {
				c.ownLocked(s, cl.claimed)
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
		default:
			cl.peer.answer(data, env, cl)
		}
		return
	}
	c.mu.Lock()
	owner := c.owners[env.session]
	if owner == nil && c.root != nil {
		owner = c.root
	}
	// Sessions a peer's session opens are that peer's: the browser announces
	// them on the parent session before any of their own messages.
	var orphan *Peer // a peer whose own session the browser ended
	switch env.method {
	case "Target.attachedToTarget":
		if owner != nil {
			c.ownLocked(gjson.GetBytes(data, "params.sessionId").String(), owner)
		}
	case "Target.detachedFromTarget":
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
	if c.onEvent != nil && env.method != "" {
		var m Message
		if json.Unmarshal(data, &m) == nil {
			c.onEvent(m)
		}
	}
}

func (c *Conn) ownLocked(session string, p *Peer) {
	if session == "" || p.isClosed() {
		return
	}
	c.owners[session] = p
	p.mu.Lock()
	p.sessions[session] = true
	p.mu.Unlock()
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
	return c.call(ctx, session, method, params, nil)
}

func (c *Conn) call(ctx context.Context, session, method string, params any, claim *Peer) (json.RawMessage, error) {
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
	if err := c.add(id, &call{ch: ch, claimed: claim}); err != nil {
		return nil, err
	}
	if err := c.write(ctx, data); err != nil {
		c.forget(id)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case ans, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: %w", method, c.closedErr())
		}
		if ans.Error != nil {
			return nil, fmt.Errorf("%s: %w", method, ans.Error)
		}
		return ans.Result, nil
	case <-ctx.Done():
		c.forget(id)
		return nil, ctx.Err()
	}
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

// write sends one message; a browser that does not take it within the
// deadline is taken for gone.
func (c *Conn) write(ctx context.Context, data []byte) error {
	if err := c.t.WriteMessage(ctx, data); err != nil {
		if ctx.Err() == nil {
			c.shutdown(fmt.Errorf("write to the browser: %w", err))
		}
		return err
	}
	return nil
}
