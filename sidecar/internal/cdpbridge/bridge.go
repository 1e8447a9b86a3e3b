// Package cdpbridge relays CDP between one client WebSocket and one browser
// WebSocket at the message level, where the proxy's byte tunnel cannot look:
// a Policy sees every client command and every browser event and decides
// what passes, what is answered locally, and how answers are rewritten.
// Tier 2 uses it to present VS Code's browser view as a browser's only page.
//
// It can also serve a page-level client (/devtools/page/<id>) over a
// browser-level connection: it attaches to the page with a flattened session
// and adds or strips that session id on the way through.
//
// Ids are remapped: the bridge makes its own calls on the same browser
// connection (Session.Call), so client ids never reach the browser as they
// were sent. Envelopes are peeked with gjson and rewritten with sjson, so a
// 100 MB screenshot passes without being decoded (only a Policy gets the
// events decoded, and those it leaves alone still pass as they came).
package cdpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Message is a decoded CDP message, for policies.
type Message struct {
	ID        *int64          `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *Error          `json:"error,omitempty"`
}

// Error is a CDP error.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// ServerError is the code Chromium uses for refused commands.
const ServerError = -32000

// Reply answers m with result (any JSON-marshalable value).
func Reply(m *Message, result any) *Message {
	raw, err := json.Marshal(result)
	if err != nil {
		return Fail(m, "%v", err)
	}
	return &Message{ID: m.ID, SessionID: m.SessionID, Result: raw}
}

// Fail answers m with a CDP error.
func Fail(m *Message, format string, a ...any) *Message {
	return &Message{ID: m.ID, SessionID: m.SessionID, Error: &Error{Code: ServerError, Message: fmt.Sprintf(format, a...)}}
}

// Verdict is what a Policy decides for a client command. The zero value
// forwards the command as it is.
type Verdict struct {
	// Reply answers now; nothing goes to the browser.
	Reply *Message
	// Async answers later, from its own goroutine (it may Call the browser).
	Async func(ctx context.Context) *Message
	// Then rewrites the browser's answer before the client sees it.
	Then func(answer *Message) *Message
}

// Policy shapes what the client sees.
type Policy interface {
	// Command decides about one client command.
	Command(s *Session, m *Message) Verdict
	// Event filters one browser event; nil drops it.
	Event(s *Session, m *Message) *Message
}

// Session is one client connection being relayed.
type Session struct {
	ctx    context.Context
	cancel context.CancelFunc
	client *websocket.Conn
	up     *websocket.Conn
	policy Policy

	// page-level emulation: client messages without a session id go to
	// pageSession, and its id is stripped on the way back. pageMode is set
	// before anything is read: the browser announces the attach before it
	// answers it.
	pageMode    bool
	pageSession atomic.Value // string; set once the attach is answered

	nextID   atomic.Int64
	clientMu sync.Mutex // one writer at a time
	upMu     sync.Mutex

	mu      sync.Mutex
	pending map[int64]*pending
	closed  bool
}

type pending struct {
	clientID json.RawMessage // the id as the client sent it; nil for our own calls
	then     func(*Message) *Message
	own      chan *Message
}

// Options for Serve.
type Options struct {
	Policy     Policy // nil: everything passes
	PageTarget string // serve a page-level client: the target it talks to
	// Setup runs once the session exists and before client messages flow
	// (e.g. a policy preparing its state). An error ends the session.
	Setup func(s *Session) error
}

// Serve relays between client and up until either side closes or ctx ends.
// It closes both connections when it returns.
func Serve(ctx context.Context, client, up *websocket.Conn, o Options) error {
	ctx, cancel := context.WithCancel(ctx)
	s := &Session{ctx: ctx, cancel: cancel, client: client, up: up, policy: o.Policy, pending: make(map[int64]*pending), pageMode: o.PageTarget != ""}
	defer s.close()
	upDone := make(chan error, 1)
	go func() { upDone <- s.readUpstream() }()
	if o.PageTarget != "" {
		res, err := s.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": o.PageTarget, "flatten": true})
		if err != nil {
			s.closeClient(websocket.CloseInternalServerErr, "cannot reach the page: "+err.Error())
			return err
		}
		s.pageSession.Store(gjson.GetBytes(res, "sessionId").String())
	}
	if o.Setup != nil {
		if err := o.Setup(s); err != nil {
			s.closeClient(websocket.ClosePolicyViolation, err.Error())
			return err
		}
	}
	clientDone := make(chan error, 1)
	go func() { clientDone <- s.readClient() }()
	select {
	case err := <-upDone:
		return err
	case err := <-clientDone:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Context ends with the session.
func (s *Session) Context() context.Context { return s.ctx }

// PageSession is the emulated page's session id ("" for browser-level clients).
func (s *Session) PageSession() string {
	id, _ := s.pageSession.Load().(string)
	return id
}

func (s *Session) close() {
	s.cancel()
	s.mu.Lock()
	s.closed = true
	for id, p := range s.pending {
		if p.own != nil {
			close(p.own)
		}
		delete(s.pending, id)
	}
	s.mu.Unlock()
	s.client.Close()
	s.up.Close()
}

func (s *Session) closeClient(code int, reason string) {
	if len(reason) > 120 {
		reason = reason[:120] // a close frame's payload is small
	}
	s.clientMu.Lock()
	_ = s.client.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason))
	s.clientMu.Unlock()
}

// ErrClosed is returned by Call once the session has ended.
var ErrClosed = errors.New("CDP session closed")

// Call sends a command of the bridge's own to the browser and waits for the
// answer. The client never sees it.
func (s *Session) Call(ctx context.Context, sessionID, method string, params any) (json.RawMessage, error) {
	id := s.nextID.Add(1)
	m := map[string]any{"id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	if sessionID != "" {
		m["sessionId"] = sessionID
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	ch := make(chan *Message, 1)
	if !s.addPending(id, &pending{own: ch}) {
		return nil, ErrClosed
	}
	if err := s.writeUp(data); err != nil {
		return nil, err
	}
	select {
	case ans, ok := <-ch:
		if !ok {
			return nil, ErrClosed
		}
		if ans.Error != nil {
			return nil, fmt.Errorf("%s: %w", method, ans.Error)
		}
		return ans.Result, nil
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		return nil, ctx.Err()
	}
}

func (s *Session) addPending(id int64, p *pending) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.pending[id] = p
	return true
}

// Send delivers a message of the bridge's own to the client (an event, or a
// late answer).
func (s *Session) Send(m *Message) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return s.writeClient(data)
}

func (s *Session) writeClient(data []byte) error {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	return s.client.WriteMessage(websocket.TextMessage, data)
}

func (s *Session) writeUp(data []byte) error {
	s.upMu.Lock()
	defer s.upMu.Unlock()
	return s.up.WriteMessage(websocket.TextMessage, data)
}

// readClient handles client commands.
func (s *Session) readClient() error {
	for {
		_, data, err := s.client.ReadMessage()
		if err != nil {
			return err
		}
		var m Message
		if err := json.Unmarshal(data, &m); err != nil || m.ID == nil || m.Method == "" {
			_ = s.Send(&Message{Error: &Error{Code: -32600, Message: "browser-coordinator: not a CDP command (want a JSON object with id and method)"}})
			continue
		}
		if page := s.PageSession(); page != "" && m.SessionID == "" {
			m.SessionID = page
		}
		v := Verdict{}
		if s.policy != nil {
			v = s.policy.Command(s, &m)
		}
		switch {
		case v.Reply != nil:
			if err := s.deliver(v.Reply); err != nil {
				return err
			}
		case v.Async != nil:
			go func() {
				if ans := v.Async(s.ctx); ans != nil {
					_ = s.deliver(ans)
				}
			}()
		default:
			if err := s.forward(&m, data, v.Then); err != nil {
				return err
			}
		}
	}
}

// forward sends a client command upstream under a fresh id. The bytes go as
// the client sent them, with the id (and for a page-level client the session
// id) set in place.
func (s *Session) forward(m *Message, original []byte, then func(*Message) *Message) error {
	clientID, _ := json.Marshal(*m.ID)
	id := s.nextID.Add(1)
	if !s.addPending(id, &pending{clientID: clientID, then: then}) {
		return ErrClosed
	}
	data, err := sjson.SetBytes(original, "id", id)
	if page := s.PageSession(); err == nil && page != "" && !gjson.GetBytes(original, "sessionId").Exists() {
		data, err = sjson.SetBytes(data, "sessionId", page)
	}
	if err != nil {
		return err
	}
	return s.writeUp(data)
}

// deliver sends an answer or event to the client, as the client knows it
// (the page session stripped for page-level clients).
func (s *Session) deliver(m *Message) error {
	if page := s.PageSession(); page != "" && m.SessionID == page {
		cp := *m
		cp.SessionID = ""
		m = &cp
	}
	return s.Send(m)
}

// readUpstream routes browser messages: answers to whoever asked, events
// through the policy.
func (s *Session) readUpstream() error {
	for {
		_, data, err := s.up.ReadMessage()
		if err != nil {
			return err
		}
		env := gjson.GetManyBytes(data, "id", "sessionId")
		if env[0].Exists() {
			s.answer(env[0].Int(), env[1].String(), data)
			continue
		}
		if err := s.event(env[1].String(), data); err != nil {
			return err
		}
	}
}

// event passes a browser event through the policy to the client. An event
// the policy leaves as it is goes as the browser sent it, undecoded.
func (s *Session) event(sessionID string, data []byte) error {
	if s.policy != nil {
		var m Message
		if json.Unmarshal(data, &m) != nil {
			return nil
		}
		before := m
		out := s.policy.Event(s, &m)
		switch {
		case out == nil:
			return nil
		case out != &m || !sameEvent(m, before):
			// The policy rewrote the event: the client gets its version.
			if s.pageMode && out.SessionID == "" {
				return nil
			}
			return s.deliver(out)
		}
	}
	if s.pageMode && sessionID == "" {
		return nil // browser-level events mean nothing to a page-level client
	}
	if page := s.PageSession(); page != "" && sessionID == page {
		var err error
		if data, err = sjson.DeleteBytes(data, "sessionId"); err != nil {
			return nil
		}
	}
	return s.writeClient(data)
}

// sameEvent: a policy that edited the event in place left a and b alike.
func sameEvent(a, b Message) bool {
	return a.Method == b.Method && a.SessionID == b.SessionID && bytes.Equal(a.Params, b.Params)
}

func (s *Session) answer(id int64, sessionID string, data []byte) {
	s.mu.Lock()
	p := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if p == nil {
		return
	}
	if p.own != nil {
		var m Message
		if json.Unmarshal(data, &m) != nil {
			m.Error = &Error{Code: ServerError, Message: "unreadable answer from the browser"}
		}
		p.own <- &m
		return
	}
	if p.then == nil {
		out, err := sjson.SetRawBytes(data, "id", p.clientID)
		if page := s.PageSession(); err == nil && page != "" && sessionID == page {
			out, err = sjson.DeleteBytes(out, "sessionId")
		}
		if err == nil {
			_ = s.writeClient(out)
		}
		return
	}
	var m Message
	if json.Unmarshal(data, &m) != nil {
		return
	}
	var cid int64
	_ = json.Unmarshal(p.clientID, &cid)
	m.ID = &cid
	if m2 := p.then(&m); m2 != nil {
		m = *m2
		m.ID = &cid
	}
	_ = s.deliver(&m)
}
