package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tidwall/gjson"
)

// Verdict is what a Policy decides for a client command. The zero value
// passes the command on as it is.
type Verdict struct {
	// Reply answers now; nothing goes to the browser.
	Reply *Message
	// Async answers later, from a goroutine of the relay (it may Call).
	Async func(ctx context.Context) *Message
	// Then rewrites the browser's answer before the client sees it.
	Then func(answer *Message) *Message
}

// Policy shapes what one client sees of a browser: it sees every command
// and every event, decoded.
type Policy interface {
	// Command decides about one client command.
	Command(r *Relay, m *Message) Verdict
	// Event filters one browser event; nil drops it.
	Event(r *Relay, m *Message) *Message
}

// MaxQueued bounds what may wait for a client that reads slowly; past it
// the client is taken for gone and cut off, so that it never holds up the
// browser's other clients.
const MaxQueued = 256 << 20

// Relay carries one client's messages to a peer and back: the client's
// commands as they come (through a Policy if there is one), the peer's
// answers and events through a queue that a writer of its own drains.
type Relay struct {
	client Transport
	policy Policy
	peerP  atomic.Pointer[Peer]

	ctx    context.Context
	cancel context.CancelFunc
	work   sync.WaitGroup // the writer and the policy's async answers

	mu     sync.Mutex
	queue  [][]byte
	queued int
	wake   chan struct{}
	err    error
}

// NewRelay prepares a relay (policy may be nil): pass its Options to
// Conn.Open, then Serve the client with the peer. What the peer delivers
// before Serve waits in the relay's queue.
func NewRelay(policy Policy) *Relay {
	ctx, cancel := context.WithCancel(context.Background())
	return &Relay{policy: policy, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
}

// Close ends a relay that is serving (Serve returns).
func (r *Relay) Close() { r.cancel() }

// Options completes o with the relay's delivery (and the policy's event hook).
func (r *Relay) Options(o PeerOptions) PeerOptions {
	o.Deliver = r.enqueue
	if r.policy != nil {
		o.Event = func(m *Message) *Message { return r.policy.Event(r, m) }
	}
	return o
}

// Context ends with the relay.
func (r *Relay) Context() context.Context { return r.ctx }

// PageSession is the session of a page-level client's page ("" otherwise).
func (r *Relay) PageSession() string {
	if p := r.peerP.Load(); p != nil && p.mode == Page {
		return p.root
	}
	return ""
}

// Call sends a command of the relay's own (a policy's) through the peer.
func (r *Relay) Call(ctx context.Context, session, method string, params any) (json.RawMessage, error) {
	p := r.peerP.Load()
	if p == nil {
		return nil, ErrClosed
	}
	return p.Call(ctx, session, method, params)
}

// Send delivers a message of the policy's own to the client.
func (r *Relay) Send(m *Message) error {
	p := r.peerP.Load()
	if p == nil {
		return ErrClosed
	}
	return p.Emit(m)
}

// enqueue is the peer's Deliver: it never blocks the connection's reader.
func (r *Relay) enqueue(data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	if r.queued+len(data) > MaxQueued {
		r.err = fmt.Errorf("the client has %d MiB unread", r.queued>>20)
		r.cancel()
		return r.err
	}
	r.queue = append(r.queue, data)
	r.queued += len(data)
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return nil
}

func (r *Relay) writer() {
	defer r.work.Done()
	for {
		select {
		case <-r.wake:
		case <-r.ctx.Done():
			return
		}
		for {
			r.mu.Lock()
			if len(r.queue) == 0 {
				r.mu.Unlock()
				break
			}
			data := r.queue[0]
			r.queue[0] = nil
			r.queue = r.queue[1:]
			r.queued -= len(data)
			r.mu.Unlock()
			if err := r.client.WriteMessage(r.ctx, data); err != nil {
				r.fail(err)
				return
			}
		}
	}
}

func (r *Relay) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.cancel()
}

// Serve relays between client and peer until either goes, ctx ends or
// Close; then both are closed. It returns why it ended.
func (r *Relay) Serve(ctx context.Context, client Transport, peer *Peer) error {
	r.client = client
	r.peerP.Store(peer)
	r.work.Add(1)
	go r.writer()
	read := make(chan error, 1)
	go func() { read <- r.readClient() }()
	var err error
	clientGone := false
	select {
	case err = <-read:
		clientGone = true
	case <-peer.Done():
		err = peer.Err()
	case <-r.ctx.Done():
		r.mu.Lock()
		err = r.err
		r.mu.Unlock()
	case <-ctx.Done():
		err = ctx.Err()
	}
	r.cancel()
	peer.Close()
	r.client.Close()
	r.work.Wait()
	if !clientGone {
		<-read // the reader ends once the client is closed
	}
	return err
}

func (r *Relay) readClient() error {
	for {
		data, err := r.client.ReadMessage()
		if err != nil {
			return err
		}
		if r.policy == nil {
			if err := r.peerP.Load().Send(r.ctx, data); err != nil {
				return err
			}
			continue
		}
		if err := r.command(data); err != nil {
			return err
		}
	}
}

// command runs one client command through the policy.
func (r *Relay) command(data []byte) error {
	var m Message
	if err := json.Unmarshal(data, &m); err != nil || len(m.ID) == 0 || m.Method == "" {
		// The peer answers what is not a command.
		return r.peerP.Load().Send(r.ctx, data)
	}
	if page := r.PageSession(); page != "" && m.SessionID == "" && !gjson.GetBytes(data, "sessionId").Exists() {
		m.SessionID = page
	}
	v := r.policy.Command(r, &m)
	switch {
	case v.Reply != nil:
		return r.peerP.Load().Emit(v.Reply)
	case v.Async != nil:
		r.work.Add(1)
		go func() {
			defer r.work.Done()
			if ans := v.Async(r.ctx); ans != nil {
				if err := r.peerP.Load().Emit(ans); err != nil && !errors.Is(err, ErrClosed) {
					r.fail(err)
				}
			}
		}()
		return nil
	default:
		return r.peerP.Load().SendThen(r.ctx, data, v.Then)
	}
}
