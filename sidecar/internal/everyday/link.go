package everyday

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
)

// ErrDisconnected is the error of a request whose connection to the
// extension ended before the answer came.
var ErrDisconnected = errors.New("the browser extension disconnected")

// link is one connection to a native host, from hello to EOF.
type link struct {
	conn  net.Conn
	host  nativemsg.Hello // the host's hello: host, extension, browser
	wmu   sync.Mutex
	mu    sync.Mutex
	next  int64
	calls map[int64]func(nativemsg.Envelope, error)
	dead  error
}

// dialLink connects to a host's socket and exchanges hellos.
func dialLink(socket string, me nativemsg.Coordinator) (*link, error) {
	conn, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("connect to the native host at %s: %w", socket, err)
	}
	l := &link{conn: conn, calls: map[int64]func(nativemsg.Envelope, error){}}
	hello, _ := json.Marshal(nativemsg.Hello{Type: "hello", Protocol: nativemsg.Protocol, Coordinator: &me})
	if err := l.write(hello); err != nil {
		conn.Close()
		return nil, fmt.Errorf("say hello to the native host: %w", err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	raw, err := nativemsg.ReadFrame(conn, binary.LittleEndian, nativemsg.MaxSocketMessage)
	_ = conn.SetReadDeadline(time.Time{})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("read the native host's hello: %w", err)
	}
	var env nativemsg.Envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		conn.Close()
		return nil, fmt.Errorf("the native host answered with something that is not the protocol: %.200s", raw)
	}
	if env.Type == "error" {
		conn.Close()
		return nil, fmt.Errorf("the native host refused this coordinator: %s", env.Message)
	}
	if err := json.Unmarshal(raw, &l.host); err != nil || l.host.Type != "hello" {
		conn.Close()
		return nil, fmt.Errorf("the native host's first message is not a hello: %.200s", raw)
	}
	if l.host.Protocol != nativemsg.Protocol {
		conn.Close()
		return nil, errors.New(nativemsg.MismatchMessage(l.host.Protocol, nativemsg.Protocol))
	}
	return l, nil
}

func (l *link) write(msg []byte) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	return nativemsg.WriteFrame(l.conn, binary.LittleEndian, msg)
}

// request sends a request (a struct or map with its "type") and calls done
// with the answer, on the reading goroutine, or with ErrDisconnected.
// Requests are written in the order request is called.
func (l *link) request(req map[string]any, done func(nativemsg.Envelope, error)) {
	l.mu.Lock()
	if l.dead != nil {
		err := l.dead
		l.mu.Unlock()
		done(nativemsg.Envelope{}, err)
		return
	}
	l.next++
	id := l.next
	l.calls[id] = done
	req["id"] = id
	// Written under mu so ids go out in order.
	msg, err := json.Marshal(req)
	if err == nil {
		err = l.write(msg)
	}
	if err != nil {
		delete(l.calls, id)
		l.mu.Unlock()
		done(nativemsg.Envelope{}, fmt.Errorf("%w: %v", ErrDisconnected, err))
		return
	}
	l.mu.Unlock()
}

// call is request for goroutines that can wait.
func (l *link) call(req map[string]any) (nativemsg.Envelope, error) { return l.callThen(req, nil) }

// callThen is call; then, if set, takes a successful answer on the reader's
// goroutine, before any later message is read.
func (l *link) callThen(req map[string]any, then func(nativemsg.Envelope)) (nativemsg.Envelope, error) {
	ch := make(chan struct {
		env nativemsg.Envelope
		err error
	}, 1)
	l.request(req, func(env nativemsg.Envelope, err error) {
		if err == nil && then != nil {
			then(env)
		}
		ch <- struct {
			env nativemsg.Envelope
			err error
		}{env, err}
	})
	r := <-ch
	return r.env, r.err
}

// answer routes an answer to its request; false when it is not one.
func (l *link) answer(env nativemsg.Envelope) bool {
	if env.ID == 0 || (env.Type != "result" && env.Type != "error" && env.Type != "connected") {
		return false
	}
	l.mu.Lock()
	done := l.calls[env.ID]
	delete(l.calls, env.ID)
	l.mu.Unlock()
	if done == nil {
		return true
	}
	if env.Type == "error" {
		msg := "the browser extension failed"
		if env.Error != nil {
			msg = env.Error.Message
		}
		done(env, errors.New(msg))
		return true
	}
	done(env, nil)
	return true
}

// fail ends the link: every waiting request gets err.
func (l *link) fail(err error) {
	l.mu.Lock()
	if l.dead == nil {
		l.dead = err
	}
	calls := l.calls
	l.calls = map[int64]func(nativemsg.Envelope, error){}
	l.mu.Unlock()
	l.conn.Close()
	for _, done := range calls {
		done(nativemsg.Envelope{}, err)
	}
}
