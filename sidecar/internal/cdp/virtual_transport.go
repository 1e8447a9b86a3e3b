package cdp

import (
	"context"
	"sync"
)

// The Virtual as a Transport: with no VirtualOptions.Out, a Conn runs on
// it as on a browser's pipe (NewConn(v, …)), and the proxy serves its
// clients sessions of their own on it, as it does a launched browser's.

// ReadMessage returns the next answer or event; ErrClosed after Close.
func (v *Virtual) ReadMessage() ([]byte, error) { return v.q.take() }

// WriteMessage takes one command (see Command); ErrClosed after Close.
func (v *Virtual) WriteMessage(_ context.Context, msg []byte) error {
	if v.q.isClosed() {
		return ErrClosed
	}
	v.Command(msg)
	return nil
}

// Close ends the Virtual: what a policy runs later is cancelled, what waits
// for ReadMessage is dropped, and the calls it runs itself are waited for
// (the host's end must let them end: close the host's connection first).
func (v *Virtual) Close() error {
	v.cancel()
	v.q.close()
	v.work.Wait()
	return nil
}

// run runs fn on a goroutine Close waits for; after Close it does not run.
func (v *Virtual) run(fn func()) {
	if !v.q.enter(&v.work) {
		return
	}
	go func() {
		defer v.work.Done()
		fn()
	}()
}

// queue is what waits for ReadMessage, unbounded: a Conn reads it at once,
// and nothing the Virtual says may wait for its reader.
type queue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	msgs   [][]byte
	closed bool
}

func (q *queue) init() { q.cond = sync.NewCond(&q.mu) }

func (q *queue) put(msg []byte) {
	q.mu.Lock()
	if !q.closed {
		q.msgs = append(q.msgs, msg)
		q.cond.Signal()
	}
	q.mu.Unlock()
}

func (q *queue) take() ([]byte, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.cond != nil && len(q.msgs) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.msgs) == 0 {
		return nil, ErrClosed
	}
	msg := q.msgs[0]
	q.msgs[0] = nil
	q.msgs = q.msgs[1:]
	return msg, nil
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	if q.cond != nil {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
}

func (q *queue) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// enter adds one to wg unless the queue has closed (under its lock, so
// that Close's Wait comes after).
func (q *queue) enter(wg *sync.WaitGroup) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	wg.Add(1)
	return true
}
