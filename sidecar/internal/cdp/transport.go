package cdp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// Transport carries whole CDP messages to and from one peer.
type Transport interface {
	// ReadMessage returns the next message; an error once the peer is gone.
	// The message may be the transport's buffer: it is the caller's only
	// until the next ReadMessage.
	ReadMessage() ([]byte, error)
	// WriteMessage sends one message, which is the caller's again once it
	// returns. ctx counts only until the write
	// starts: if it ends first (also while another write holds the
	// transport), nothing is sent and the error wraps ctx.Err(). Once
	// started, the write has WriteTimeout to finish, whatever ctx says: a
	// message is never cut short by one caller on a transport others share.
	// Any other error means the transport failed, maybe in the middle of a
	// message: nothing more may be written to it.
	WriteMessage(ctx context.Context, msg []byte) error
	Close() error
}

// CloseWither is a Transport that can tell its peer why it is closed (a
// WebSocket's close frame, RFC 6455 section 7.4) before it closes.
type CloseWither interface {
	// CloseWith says code and reason (at most 123 bytes of it are sent),
	// waits briefly for the peer to acknowledge while the transport's
	// reader goes on reading, then closes.
	CloseWith(code int, reason string) error
}

// WriteTimeout bounds one write: a peer that stops reading for this long is
// taken for gone, and its transport is failed. A big message gets a second
// more for every minWriteRate bytes (writeDeadline): a peer that reads a
// 48 MiB screenshot slowly, on a busy machine, is reading, not gone.
const WriteTimeout = 30 * time.Second

// minWriteRate is the slowest reading a big message's write waits for.
const minWriteRate = 256 << 10 // bytes a second

// writeDeadline is when a write of n bytes that starts now has failed.
func writeDeadline(n int) time.Time {
	return time.Now().Add(WriteTimeout + time.Duration(n/minWriteRate)*time.Second)
}

// MaxMessage bounds one message read from a browser (a full-page screenshot
// of a long page is tens of megabytes).
const MaxMessage = 512 << 20

// ErrTooLarge is returned for a message over MaxMessage.
var ErrTooLarge = errors.New("CDP message too large")

// writeLock is a transport's write lock: one message at a time, and a
// caller whose context ends while it waits gives up without writing.
type writeLock chan struct{}

func newWriteLock() writeLock { return make(writeLock, 1) }

func (l writeLock) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case l <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil { // both were ready: ctx wins
		<-l
		return err
	}
	return nil
}

// tryLock takes the lock if no one holds it.
func (l writeLock) tryLock() bool {
	select {
	case l <- struct{}{}:
		return true
	default:
		return false
	}
}

func (l writeLock) unlock() { <-l }

// do runs write holding the lock: every transport's writes go through it
// (see Transport.WriteMessage: ctx counts only until the write starts).
func (l writeLock) do(ctx context.Context, write func() error) error {
	if err := l.lock(ctx); err != nil {
		return err
	}
	defer l.unlock()
	return write()
}

// WebSocket is a Transport over a WebSocket.
func WebSocket(ws *websocket.Conn) Transport {
	return &wsTransport{ws: ws, wmu: newWriteLock(), readEnd: make(chan struct{})}
}

type wsTransport struct {
	ws       *websocket.Conn
	wmu      writeLock
	readEnd  chan struct{} // closed once ReadMessage has failed (the peer's close frame, or the end)
	readOnce sync.Once
}

func (t *wsTransport) ReadMessage() ([]byte, error) {
	_, data, err := t.ws.ReadMessage()
	if err != nil {
		t.readOnce.Do(func() { close(t.readEnd) })
	}
	return data, err
}

func (t *wsTransport) WriteMessage(ctx context.Context, msg []byte) error {
	return t.wmu.do(ctx, func() error {
		_ = t.ws.SetWriteDeadline(writeDeadline(len(msg)))
		return t.ws.WriteMessage(websocket.TextMessage, msg)
	})
}

// closeWait bounds how long CloseWith waits to send its frame, and then for
// the peer's acknowledgement.
const closeWait = time.Second

func (t *wsTransport) CloseWith(code int, reason string) error {
	err := t.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, clip(reason, 123)), time.Now().Add(closeWait))
	if err == nil {
		// The peer answers with a close frame of its own, which ends our
		// reader; closing before that may reset the TCP connection under
		// the frame just sent.
		select {
		case <-t.readEnd:
		case <-time.After(closeWait):
		}
	}
	return errors.Join(err, t.ws.Close())
}

// clip cuts s to at most n bytes, on a UTF-8 boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (t *wsTransport) Close() error { return t.ws.Close() }

// partsWriter is a Transport that writes a message given in parts without
// joining them (one writev).
type partsWriter interface {
	writeParts(ctx context.Context, p parts) error
}

// writeParts writes p through t, joined only if t cannot take parts.
func writeParts(ctx context.Context, t Transport, p parts) error {
	if w, ok := t.(partsWriter); ok {
		return w.writeParts(ctx, p)
	}
	if len(p.head) == 0 && len(p.tail) == 0 {
		return t.WriteMessage(ctx, p.body)
	}
	return t.WriteMessage(ctx, p.join())
}

// Pipe is a Transport over Chromium's --remote-debugging-pipe: messages are
// JSON texts ended by a NUL byte; the browser reads from in (its fd 3) and
// writes to out (its fd 4). r and w are our ends.
//
// A message read is a slice of the transport's buffer (see ReadMessage),
// which grows for a big message (a screenshot: the one copy it gets on
// its way to a client) and shrinks once it has been read. A message is
// written in one writev with its NUL, never copied.
func Pipe(r, w *os.File) Transport {
	t := &pipeTransport{r: r, w: w, wmu: newWriteLock(), buf: make([]byte, pipeBuffer)}
	t.in, t.out = newFDIO(r), newFDIO(w)
	return t
}

// pipeBuffer is what a pipe transport reads into: a usual message fits.
const pipeBuffer = 256 << 10

type pipeTransport struct {
	r, w    *os.File
	in, out fdio
	wmu     writeLock
	// buf[start:end] is read and not yet returned; up to scan it has no NUL.
	buf              []byte
	start, end, scan int
}

var nul = []byte{0}

func (t *pipeTransport) ReadMessage() ([]byte, error) {
	t.shrink()
	for {
		if i := bytes.IndexByte(t.buf[t.scan:t.end], 0); i >= 0 {
			at := t.scan + i
			msg := t.buf[t.start:at:at]
			t.start, t.scan = at+1, at+1
			return msg, nil
		}
		t.scan = t.end
		if t.end == len(t.buf) {
			if err := t.room(); err != nil {
				return nil, err
			}
		}
		n, err := t.in.Read(t.buf[t.end:])
		t.end += n
		if err != nil && n == 0 {
			return nil, err
		}
	}
}

// room makes room to read into: the unread part is moved to the front, or
// the buffer grows.
func (t *pipeTransport) room() error {
	if t.start > 0 {
		t.end = copy(t.buf, t.buf[t.start:t.end])
		t.scan -= t.start
		t.start = 0
		return nil
	}
	if len(t.buf) > MaxMessage {
		return fmt.Errorf("%w: over %d MiB", ErrTooLarge, MaxMessage>>20)
	}
	// Four times while small (fewer copies of a growing screenshot), then
	// twice: a 64 MiB answer must not hold 256 MiB.
	factor := 4
	if len(t.buf) >= 16<<20 {
		factor = 2
	}
	grown := make([]byte, min(factor*len(t.buf), MaxMessage+1))
	copy(grown, t.buf[:t.end])
	t.buf = grown
	return nil
}

// shrink lets go of a buffer a big message grew, once it has been read.
func (t *pipeTransport) shrink() {
	if len(t.buf) > pipeBuffer && t.end-t.start <= pipeBuffer/2 {
		small := make([]byte, pipeBuffer)
		t.end = copy(small, t.buf[t.start:t.end])
		t.scan -= t.start
		t.start = 0
		t.buf = small
	}
}

func (t *pipeTransport) WriteMessage(ctx context.Context, msg []byte) error {
	return t.writeParts(ctx, parts{body: msg})
}

func (t *pipeTransport) writeParts(ctx context.Context, p parts) error {
	return t.wmu.do(ctx, func() error { return writeSoon(t.out, t.w, p.head, p.body, p.tail, nul) })
}

func (t *pipeTransport) Close() error {
	return errors.Join(t.w.Close(), t.r.Close())
}
