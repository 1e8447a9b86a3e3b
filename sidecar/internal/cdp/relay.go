package cdp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
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
// browser's other clients. A message that finds nothing waiting is always
// let in, however large (up to MaxMessage).
const MaxQueued = 256 << 20

// drainTime bounds how long a relay that ends goes on writing what waits
// for its client (the last answers before the browser went away).
const drainTime = 2 * time.Second

// Close codes (RFC 6455 section 7.4.1) a relay ends a client with.
const (
	CloseGoingAway      = websocket.CloseGoingAway       // 1001: the page or the coordinator went away
	ClosePolicy         = websocket.ClosePolicyViolation // 1008: the client did not read
	CloseInternal       = websocket.CloseInternalServerErr
	CloseServiceRestart = websocket.CloseServiceRestart // 1012: reconnect to the same endpoint
)

// Relay carries one client's messages to a peer and back: the client's
// commands as they come (through a Policy if there is one), the peer's
// answers and events through a queue that a writer of its own drains.
type Relay struct {
	client    Transport
	policy    Policy
	peerP     atomic.Pointer[Peer]
	maxQueued int // MaxQueued; a test's is smaller

	ctx    context.Context // ends with Close, a failure, or the end of Serve
	cancel context.CancelFunc
	work   sync.WaitGroup // the policy's async answers

	stopping atomic.Bool // Serve is ending: what the client sends goes nowhere

	mu       sync.Mutex
	fast     tryWriter // the client, if it takes a message without waiting
	queue    [][]byte
	queued   int
	wake     chan struct{}
	writing  bool  // a write to the client is under way (the writer's, or the connection reader's own)
	draining bool  // the writer returns once the queue is empty
	err      error // the relay failed: its client reads too slowly, a write to it failed, a command could not be passed on
	slow     bool  // err is the slow client's
	broken   bool  // err is a failed write to the client
	code     int   // CloseWith's
	reason   string
}

// NewRelay prepares a relay (policy may be nil): pass its Options to
// Conn.Open, then Serve the client with the peer. What the peer delivers
// before Serve waits in the relay's queue.
func NewRelay(policy Policy) *Relay {
	ctx, cancel := context.WithCancel(context.Background())
	return &Relay{policy: policy, maxQueued: MaxQueued, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
}

// Close ends a relay that is serving (Serve returns): its client is told
// that the browser behind the endpoint changed and to reconnect.
func (r *Relay) Close() {
	r.CloseWith(CloseServiceRestart, "browser-coordinator: the browser was stopped, restarted or replaced; reconnect to the same endpoint")
}

// CloseWith ends a relay that is serving, telling a WebSocket client code
// and reason (at most 123 bytes) once what waits for it is written.
func (r *Relay) CloseWith(code int, reason string) {
	r.mu.Lock()
	if r.code == 0 {
		r.code, r.reason = code, reason
	}
	r.mu.Unlock()
	r.cancel()
}

// Options completes o with the relay's delivery (and the policy's event hook).
func (r *Relay) Options(o PeerOptions) PeerOptions {
	o.Deliver, o.deliver = nil, r.enqueue
	if r.policy != nil {
		o.Event = func(m *Message) *Message { return r.policy.Event(r, m) }
		if d, ok := r.policy.(interface{ EventDomain() string }); ok {
			o.EventDomain = d.EventDomain() // the other events pass undecoded
		}
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

// tryWriter is a client Transport that takes a message at once when it
// can without waiting (a WebSocket whose socket has room): then the
// connection's reader writes it itself, and no goroutine is woken to.
type tryWriter interface {
	// tryWrite writes p if the client takes some of it now: true when p is
	// the transport's (written whole, or its rest kept for flush), false
	// when nothing was written. It never waits.
	tryWrite(p parts) (bool, error)
	// unfinished: the rest of a message tryWrite began waits for flush.
	unfinished() bool
	// flush writes that rest, waiting as WriteMessage does.
	flush() error
}

// enqueue is the peer's delivery: it never blocks the connection's reader.
// What the client takes at once is written now; the rest waits in the
// queue, a copy of its own, for the writer.
func (r *Relay) enqueue(p parts) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	if tw := r.fast; tw != nil && !r.writing && len(r.queue) == 0 {
		r.writing = true
		r.mu.Unlock()
		took, err := tw.tryWrite(p)
		r.mu.Lock()
		r.writing = false
		if err != nil {
			r.brokeLocked(err)
			return r.err
		}
		if took {
			if len(r.queue) > 0 || tw.unfinished() {
				r.signal()
			}
			return nil
		}
	}
	if r.queued > 0 && r.queued+p.len() > r.maxQueued {
		// Its text is the reason in the client's close frame: short.
		r.err = fmt.Errorf("the client did not read %s of CDP messages in time and was cut off", size(r.queued))
		r.slow = true
		r.cancel()
		return r.err
	}
	data := p.join()
	r.queue = append(r.queue, data)
	r.queued += len(data)
	r.signal()
	return nil
}

func (r *Relay) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// brokeLocked: a write to the client failed; nothing more can reach it.
func (r *Relay) brokeLocked(err error) {
	r.broken = true
	if r.err == nil {
		r.err = fmt.Errorf("write to the client: %w", err)
	}
	r.cancel()
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", (n+1023)>>10)
}

// writer writes what waits for the client until stop, or, once draining,
// until nothing waits. done is closed when it returns.
func (r *Relay) writer(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-stop:
			return
		default:
		}
		r.mu.Lock()
		var data []byte
		finish := false
		switch {
		case r.writing: // the connection's reader is writing: it signals when it is done
		case r.fast != nil && r.fast.unfinished():
			finish = true
		case len(r.queue) > 0:
			data = r.queue[0]
			r.queue[0] = nil
			r.queue = r.queue[1:]
			r.queued -= len(data)
		case r.draining:
			r.mu.Unlock()
			return
		}
		if !finish && data == nil {
			r.mu.Unlock()
			select {
			case <-r.wake:
			case <-stop:
				return
			}
			continue
		}
		r.writing = true
		r.mu.Unlock()
		// Not r.ctx: what was started is written whole, and a relay that
		// ends still writes the last answers (see Serve).
		var err error
		if finish {
			err = r.fast.flush()
		} else {
			err = r.client.WriteMessage(context.Background(), data)
		}
		r.mu.Lock()
		r.writing = false
		if err != nil {
			r.brokeLocked(err)
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
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
// Close; then both are closed. It returns why it ended (nil for Close).
//
// A client that is still there gets what was delivered for it before the
// end (for up to drainTime), then, on a WebSocket, a close frame that says
// why and what to do: 1012 when the browser went away or the relay's
// owner closed it (reconnect to the same endpoint), 1001 when the peer's
// page went away or ctx ended, 1008 when it did not read what it asked for.
func (r *Relay) Serve(ctx context.Context, client Transport, peer *Peer) error {
	r.mu.Lock()
	r.client = client
	r.fast, _ = client.(tryWriter)
	r.mu.Unlock()
	r.peerP.Store(peer)
	stop, written := make(chan struct{}), make(chan struct{})
	go r.writer(stop, written)
	read := make(chan error, 1)
	go func() { read <- r.readClient(peer) }()
	var (
		err        error
		clientGone bool
	)
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
	r.stopping.Store(true)
	peer.Close() // nothing more is delivered: the queue is what the client gets
	code, reason, flush := r.farewell(ctx, peer)
	if flush && !clientGone {
		r.mu.Lock()
		r.draining = true
		r.signal()
		r.mu.Unlock()
		select {
		case <-written:
		case <-time.After(drainTime):
		}
	}
	close(stop)
	r.cancel()
	if cw, ok := client.(CloseWither); ok && !clientGone && code != 0 && r.writerDone(written) {
		_ = cw.CloseWith(code, reason)
	} else {
		_ = client.Close()
	}
	<-written // a write the writer was in fails once the client is closed
	r.work.Wait()
	if !clientGone {
		<-read // the reader ends once the client is closed
	}
	return err
}

// writerDone waits briefly for the writer to finish the message it is
// writing (a client that reads nothing would hold it until WriteTimeout).
func (r *Relay) writerDone(written <-chan struct{}) bool {
	select {
	case <-written:
		return true
	case <-time.After(closeWait):
		return false
	}
}

// farewell is what a relay that ends tells its client: a close code (0 for
// none), its reason, and whether what waits for the client is written
// first. Called once the peer has closed.
func (r *Relay) farewell(ctx context.Context, peer *Peer) (code int, reason string, flush bool) {
	r.mu.Lock()
	failed, slow, broken, code, reason := r.err, r.slow, r.broken, r.code, r.reason
	r.mu.Unlock()
	switch {
	case slow:
		return ClosePolicy, "browser-coordinator: " + failed.Error(), false
	case broken:
		return 0, "", false // nothing more can reach the client
	case failed != nil:
		return CloseInternal, "browser-coordinator: " + failed.Error(), false
	case code != 0:
		return code, reason, true
	case ctx.Err() != nil:
		return CloseGoingAway, "browser-coordinator: shutting down", true
	}
	why := peer.Err()
	if errors.Is(why, ErrClosed) {
		// The connection to the browser ended: it crashed, closed, or its
		// owner stopped it; the coordinator starts or finds it again.
		return CloseServiceRestart, "browser-coordinator: the browser went away; reconnect to the same endpoint", true
	}
	return CloseGoingAway, "browser-coordinator: " + why.Error(), true
}

// readClient passes on the client's commands until the client goes. A
// command that cannot be passed on ends the relay (mostly, the peer has
// ended already); once Serve is ending, what comes is read and dropped, so
// that the client's answer to our close frame is read.
func (r *Relay) readClient(peer *Peer) error {
	for {
		data, err := r.client.ReadMessage()
		if err != nil {
			return err
		}
		if r.stopping.Load() {
			continue
		}
		if r.policy == nil {
			err = peer.Send(r.ctx, data)
		} else {
			err = r.command(data)
		}
		if err != nil && !r.stopping.Load() && !errors.Is(err, ErrClosed) {
			select {
			case <-peer.Done():
			default:
				r.fail(err)
			}
		}
	}
}

// command runs one client command through the policy. A message it cannot
// read strictly is refused, never passed on (the policy could not have
// judged it), and what goes on is what the policy saw.
func (r *Relay) command(data []byte) error {
	peer := r.peerP.Load()
	// The policy may keep what it reads (an answer later): a copy of its
	// own, as the client's transport reads the next message into data.
	m, err := ParseCommand(bytes.Clone(data))
	if err != nil {
		return peer.deliverOwn(refusal(data, err))
	}
	if m.SessionID == "" {
		m.SessionID = r.PageSession()
	}
	v := r.policy.Command(r, &m)
	switch {
	case v.Reply != nil:
		return peer.Emit(v.Reply)
	case v.Async != nil:
		r.work.Add(1)
		go func() {
			defer r.work.Done()
			if ans := v.Async(r.ctx); ans != nil {
				if err := peer.Emit(ans); err != nil && !errors.Is(err, ErrClosed) {
					r.fail(err)
				}
			}
		}()
		return nil
	default:
		return peer.SendThen(r.ctx, &m, v.Then)
	}
}
