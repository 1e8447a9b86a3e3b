// Package cdp is a small Chrome DevTools Protocol client: one WebSocket,
// calls matched to answers by id, events delivered to one handler. The
// coordinator uses it for its own few commands (tabs, closing a browser,
// following the page in front); child MCPs bring their own clients.
package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// Message is one CDP frame: a call, an answer or an event.
type Message struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *Error          `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

// Error is a CDP error answer.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

func (e *Error) Error() string {
	if e.Data != "" {
		return fmt.Sprintf("CDP error %d: %s (%s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("CDP error %d: %s", e.Code, e.Message)
}

// ErrClosed is returned by calls on a connection that has closed.
var ErrClosed = errors.New("CDP connection closed")

// Conn is a CDP connection.
type Conn struct {
	ws      *websocket.Conn
	nextID  atomic.Int64
	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[int64]chan Message
	closed  bool
	done    chan struct{}
	onEvent func(Message)
}

// Dial connects to a CDP WebSocket URL. onEvent, if not nil, receives every
// event on the reading goroutine: it must not block.
func Dial(ctx context.Context, url string, onEvent func(Message)) (*Conn, error) {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10}
	ws, resp, err := d.DialContext(ctx, url, nil)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("connect to %s: %w (HTTP %s)", url, err, resp.Status)
		}
		return nil, fmt.Errorf("connect to %s: %w", url, err)
	}
	return New(ws, onEvent), nil
}

// New runs a CDP client on an open WebSocket.
func New(ws *websocket.Conn, onEvent func(Message)) *Conn {
	c := &Conn{ws: ws, pending: make(map[int64]chan Message), done: make(chan struct{}), onEvent: onEvent}
	go c.read()
	return c
}

func (c *Conn) read() {
	defer c.shutdown()
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		var m Message
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		if m.ID != 0 {
			c.mu.Lock()
			ch := c.pending[m.ID]
			delete(c.pending, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		if c.onEvent != nil && m.Method != "" {
			c.onEvent(m)
		}
	}
}

func (c *Conn) shutdown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	close(c.done)
	c.ws.Close()
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

// Done is closed when the connection ends.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close ends the connection.
func (c *Conn) Close() error {
	c.shutdown()
	return nil
}

// Call sends method with params (any JSON-marshalable value, or nil) on the
// browser target or, with a session id, on an attached target, and waits for
// the answer.
func (c *Conn) Call(ctx context.Context, sessionID, method string, params any) (json.RawMessage, error) {
	id := c.nextID.Add(1)
	m := Message{ID: id, Method: method, SessionID: sessionID}
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		m.Params = raw
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	ch := make(chan Message, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.pending[id] = ch
	c.mu.Unlock()

	c.writeMu.Lock()
	err = c.ws.WriteMessage(websocket.TextMessage, data)
	c.writeMu.Unlock()
	if err != nil {
		c.forget(id)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case ans, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: %w", method, ErrClosed)
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

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}
