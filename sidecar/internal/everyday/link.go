package everyday

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
	"github.com/gorilla/websocket"
)

// ErrDisconnected is the error of a request whose connection to the
// extension ended before the answer came.
var ErrDisconnected = errors.New("the browser extension disconnected")

// requestTTL is how long a request may take to reach the extension: one
// that comes later is not carried out (the extension answers that it
// expired). Its caller has given up by then (the coordinator's own calls
// wait 10 s), and a tab opened or a click made after that would surprise
// everyone: the agent that retried, and the user.
const requestTTL = 10 * time.Second

// A link is one connection to the extension through a native host: the
// host's socket from hello to end, and the channel (channel.go) once the
// extension opened it. Until the way is settled (the channel, or the host
// when the extension could not open it) nothing is written; then every
// request goes the one way, in order, batched: the goroutine that sends a
// request writes it itself when no write is under way (no hand-off to a
// writer: measured, that cost a request 0.1 to 0.3 ms on a busy machine);
// what is queued while one is under way goes out in that writer's next
// single write.
//
// Its state is the Conn's, under c.mu: one lock for the connection, its
// requests and its messages out.
type link struct {
	c     *Conn
	host  net.Conn
	hello nativemsg.Hello // the host's: host, extension, browser
	offer *offer
	// ended is closed once the link has failed (dead set).
	ended chan struct{}

	// under c.mu
	settled bool            // the way is decided
	ws      *websocket.Conn // the channel; nil: through the host
	writing bool            // a goroutine is writing (and writes what is queued before it stops)
	wbuf    []byte          // the writer's, to join a batch
	next    int64
	calls   map[int64]func(nativemsg.Fields, error)
	queue   [][]byte
	dead    error
	why     string // what the extension said of its going away
}

// gone is the error of a link whose connection ended.
func (l *link) gone() error {
	l.c.mu.Lock()
	why := l.why
	l.c.mu.Unlock()
	if why == "" {
		return fmt.Errorf("%w (browser closed, extension reloaded or stopped)", ErrDisconnected)
	}
	return fmt.Errorf("%w: %s", ErrDisconnected, why)
}

// dialLink connects to a host's socket and exchanges hellos; the hello
// offers the channel o.
func (c *Conn) dialLink(socket string, me nativemsg.Coordinator, o *offer) (*link, error) {
	conn, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("connect to the native host at %s: %w", socket, err)
	}
	l := &link{c: c, host: conn, offer: o, calls: map[int64]func(nativemsg.Fields, error){}, ended: make(chan struct{})}
	hello, _ := json.Marshal(nativemsg.Hello{Type: "hello", Protocol: nativemsg.Protocol, Coordinator: &me, Channel: &o.Channel})
	if err := nativemsg.WriteFrame(conn, binary.LittleEndian, hello); err != nil {
		conn.Close()
		return nil, fmt.Errorf("say hello to the native host: %w", err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	raw, err := nativemsg.ReadFrame(conn, binary.LittleEndian, nativemsg.MaxHello)
	_ = conn.SetReadDeadline(time.Time{})
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		// The host ends when the browser closes its port: the extension
		// went away while this coordinator greeted it.
		conn.Close()
		return nil, fmt.Errorf("%w: its native host closed the connection as it was greeted", ErrDisconnected)
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("read the native host's hello: %w", err)
	}
	if f, err := nativemsg.Scan(raw); err == nil && f.Type == "error" {
		conn.Close()
		return nil, fmt.Errorf("the native host refused this coordinator: %s", f.Message)
	}
	if err := json.Unmarshal(raw, &l.hello); err != nil || l.hello.Type != "hello" {
		conn.Close()
		return nil, fmt.Errorf("the native host's first message is not a hello: %.200s", raw)
	}
	if l.hello.Protocol != nativemsg.Protocol {
		conn.Close()
		return nil, errors.New(nativemsg.MismatchMessage(l.hello.Protocol, nativemsg.Protocol))
	}
	return l, nil
}

// run serves the link until it fails: its readers, its writer, and the
// wait for the channel. It returns once all of them have ended.
func (l *link) run() {
	var wg sync.WaitGroup
	wg.Go(l.readHost)
	wg.Go(func() {
		select {
		case ws := <-l.offer.accepted:
			if l.settle(ws, "") {
				l.readChannel(ws)
			} else {
				ws.Close()
			}
		case <-l.ended:
			l.c.ch.withdraw(l.offer)
		}
	})
	wg.Wait()
}

// settle decides the way: the channel ws, or (ws nil) the host, because
// of why. false when the link has ended meanwhile.
func (l *link) settle(ws *websocket.Conn, why string) bool {
	l.c.mu.Lock()
	if l.dead != nil || l.settled {
		l.c.mu.Unlock()
		return false
	}
	l.settled, l.ws = true, ws
	if ws == nil {
		l.c.log.Info("the browser extension could not open its channel to this coordinator; its messages go through the native host", "why", why)
	} else {
		l.c.log.Debug("the browser extension opened its channel")
	}
	l.flushLocked() // what was asked meanwhile
	return true
}

// readHost reads the host's messages until the socket ends, which ends
// the link.
func (l *link) readHost() {
	fr := nativemsg.FrameReader{R: l.host, Order: binary.LittleEndian, Limit: nativemsg.MaxSocketMessage}
	join := nativemsg.NewJoiner(nativemsg.MaxSocketMessage)
	for {
		raw, err := fr.Read()
		if err != nil {
			l.hostGone()
			return
		}
		l.receive(raw, join)
	}
}

// readChannel reads the channel until it ends, which ends the link. The
// extension writes a batch of messages as one WebSocket message, one per
// line (JSON text has no raw newline).
func (l *link) readChannel(ws *websocket.Conn) {
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			l.fail(l.gone())
			return
		}
		hop(hopChannelIn, data)
		for len(data) > 0 {
			msg := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				msg, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			l.receive(msg, nil)
		}
	}
}

// receive takes one message from the extension (or the host): a batch, a
// chunk of a large message, an answer or an event.
func (l *link) receive(raw []byte, join *nativemsg.Joiner) {
	f, err := nativemsg.Scan(raw)
	if err != nil {
		l.c.log.Warn("a message from the browser extension that is not the protocol", "err", err, "message", truncate(raw))
		return
	}
	switch f.Type {
	case "batch":
		err = nativemsg.Each(f.Messages, func(m []byte) error { l.receive(m, join); return nil })
	case "chunk":
		if join == nil {
			err = errors.New("a chunk on the channel")
			break
		}
		var whole []byte
		var ok bool
		if whole, ok, err = join.Add(f); ok {
			l.receive(whole, join)
		}
	case "result", "error", "connected":
		if f.ID != 0 {
			l.answer(f)
			return
		}
		l.c.log.Warn("the browser extension reports an error", "code", f.Code, "message", f.Message)
	case "channelFailed":
		l.settle(nil, f.Reason)
	case "disconnected":
		l.c.mu.Lock()
		l.why = f.Reason
		l.c.mu.Unlock()
	default:
		l.c.extEvent(f)
	}
	if err != nil {
		l.c.log.Warn("a message from the browser extension that is not the protocol", "err", err, "message", truncate(raw))
	}
}

// request sends a request (body: its members, without braces or id) and
// calls done with the answer, on a reading goroutine, or with an error: the
// link ended, or the request is too large to send. Requests are sent in
// the order request is called.
func (l *link) request(body []byte, done func(nativemsg.Fields, error)) {
	l.c.mu.Lock()
	if l.dead != nil {
		err := l.dead
		l.c.mu.Unlock()
		done(nativemsg.Fields{}, err)
		return
	}
	l.next++
	id := l.next
	msg := make([]byte, 0, len(body)+48)
	msg = append(msg, `{"id":`...)
	msg = strconv.AppendInt(msg, id, 10)
	msg = append(msg, `,"expires":`...)
	msg = strconv.AppendInt(msg, time.Now().Add(requestTTL).UnixMilli(), 10)
	msg = append(msg, ',')
	msg = append(msg, body...)
	msg = append(msg, '}')
	if len(msg) > nativemsg.MaxRequest {
		l.c.mu.Unlock()
		done(nativemsg.Fields{}, fmt.Errorf("%w: a request of %.1f MiB to the user's browser; the limit is %d MiB (every agent shares the one browser): it was not sent; send less at once",
			nativemsg.ErrTooLarge, float64(len(msg))/(1<<20), nativemsg.MaxRequest>>20))
		return
	}
	l.calls[id] = done
	l.queue = append(l.queue, msg)
	l.flushLocked()
}

// call is request for goroutines that can wait.
func (l *link) call(body []byte) (nativemsg.Fields, error) { return l.callThen(body, nil) }

// callThen is call; then, if set, takes a successful answer on the reader's
// goroutine, before any later message is read.
func (l *link) callThen(body []byte, then func(nativemsg.Fields)) (nativemsg.Fields, error) {
	type answer struct {
		f   nativemsg.Fields
		err error
	}
	ch := make(chan answer, 1)
	l.request(body, func(f nativemsg.Fields, err error) {
		if err == nil && then != nil {
			then(f)
		}
		ch <- answer{f, err}
	})
	a := <-ch
	return a.f, a.err
}

// answer routes an answer to its request.
func (l *link) answer(f nativemsg.Fields) {
	l.c.mu.Lock()
	done := l.calls[f.ID]
	delete(l.calls, f.ID)
	l.c.mu.Unlock()
	if done == nil {
		return
	}
	if f.Type == "error" {
		done(f, errors.New(nativemsg.ErrorMessage(f.Error)))
		return
	}
	done(f, nil)
}

// flushLocked writes what is queued, unless the way is not settled yet or
// another goroutine is writing (it writes this too before it stops). It is
// called with c.mu held, and releases it.
func (l *link) flushLocked() {
	if l.writing || !l.settled || l.dead != nil {
		l.c.mu.Unlock()
		return
	}
	l.writing = true
	for len(l.queue) > 0 && l.dead == nil {
		batch, ws, buf := l.queue, l.ws, l.wbuf
		l.queue, l.wbuf = nil, nil
		l.c.mu.Unlock()
		var err error
		if ws != nil {
			buf = buf[:0]
			for i, m := range batch {
				if i > 0 {
					buf = append(buf, '\n')
				}
				buf = append(buf, m...)
			}
			hop(hopChannelOut, buf)
			err = ws.WriteMessage(websocket.TextMessage, buf)
			if cap(buf) > 1<<20 {
				buf = nil // a large batch is not kept
			}
		} else {
			err = nativemsg.WriteFrames(l.host, binary.LittleEndian, batch)
		}
		l.c.mu.Lock()
		l.wbuf = buf
		if err != nil {
			l.writing = false
			l.c.mu.Unlock()
			l.fail(fmt.Errorf("%w: %v", ErrDisconnected, err))
			return
		}
	}
	l.writing = false
	l.c.mu.Unlock()
}

// closeHostGone is the channel's close code when the host went away: the
// extension then knows this coordinator comes back through the next host
// (not a coordinator that vanished, whose tabs wait for it).
const closeHostGone = 4001

// hostGone ends the link because the host's socket ended.
func (l *link) hostGone() {
	l.c.mu.Lock()
	ws := l.ws
	l.c.mu.Unlock()
	if ws != nil {
		msg := websocket.FormatCloseMessage(closeHostGone, "the native host went away")
		_ = ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
	}
	l.fail(l.gone())
}

// fail ends the link: every waiting request gets err.
func (l *link) fail(err error) {
	l.c.mu.Lock()
	if l.dead != nil {
		l.c.mu.Unlock()
		return
	}
	l.dead = err
	calls := l.calls
	l.calls = nil
	l.queue = nil
	ws := l.ws
	l.c.mu.Unlock()
	close(l.ended)
	l.host.Close()
	if ws != nil {
		ws.Close()
	}
	for _, done := range calls {
		done(nativemsg.Fields{}, err)
	}
}

// body writes a request's members: typ, then each key with its value
// (a string, an int, a bool, or raw JSON).
func body(typ string, kv ...any) []byte {
	b := append(make([]byte, 0, 64), `"type":`...)
	b = nativemsg.AppendString(b, typ)
	for i := 0; i+1 < len(kv); i += 2 {
		b = append(b, ',')
		b = nativemsg.AppendString(b, kv[i].(string))
		b = append(b, ':')
		switch v := kv[i+1].(type) {
		case string:
			b = nativemsg.AppendString(b, v)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case bool:
			b = strconv.AppendBool(b, v)
		case json.RawMessage:
			b = append(b, v...)
		}
	}
	return b
}
