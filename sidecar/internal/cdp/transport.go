package cdp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// Transport carries whole CDP messages to and from one peer.
type Transport interface {
	// ReadMessage returns the next message; an error once the peer is gone.
	ReadMessage() ([]byte, error)
	// WriteMessage sends one message. ctx counts only until the write
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

func (l writeLock) unlock() { <-l }

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
	if err := t.wmu.lock(ctx); err != nil {
		return err
	}
	defer t.wmu.unlock()
	_ = t.ws.SetWriteDeadline(writeDeadline(len(msg)))
	return t.ws.WriteMessage(websocket.TextMessage, msg)
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

// Pipe is a Transport over Chromium's --remote-debugging-pipe: messages are
// JSON texts ended by a NUL byte; the browser reads from in (its fd 3) and
// writes to out (its fd 4). r and w are our ends.
func Pipe(r, w *os.File) Transport {
	return &pipeTransport{r: r, w: w, br: bufio.NewReaderSize(r, 256<<10), wmu: newWriteLock()}
}

type pipeTransport struct {
	r, w *os.File
	br   *bufio.Reader
	wmu  writeLock
	wbuf []byte // while holding wmu
}

func (t *pipeTransport) ReadMessage() ([]byte, error) {
	var msg []byte
	for {
		chunk, err := t.br.ReadSlice(0)
		switch {
		case err == nil:
			if msg == nil {
				// The common case: the whole message was in the buffer.
				return bytes.Clone(chunk[:len(chunk)-1]), nil
			}
			return append(msg, chunk[:len(chunk)-1]...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(msg)+len(chunk) > MaxMessage {
				return nil, fmt.Errorf("%w: over %d MiB", ErrTooLarge, MaxMessage>>20)
			}
			msg = append(msg, chunk...)
		default:
			if errors.Is(err, io.EOF) && len(msg)+len(chunk) == 0 {
				return nil, io.EOF
			}
			return nil, err
		}
	}
}

func (t *pipeTransport) WriteMessage(ctx context.Context, msg []byte) error {
	if err := t.wmu.lock(ctx); err != nil {
		return err
	}
	defer t.wmu.unlock()
	_ = t.w.SetWriteDeadline(writeDeadline(len(msg)))
	if len(msg) > 64<<10 {
		// Too big to copy: the text, then its end.
		if _, err := t.w.Write(msg); err != nil {
			return err
		}
		_, err := t.w.Write([]byte{0})
		return err
	}
	// One write, so the browser wakes once per message.
	t.wbuf = append(append(t.wbuf[:0], msg...), 0)
	_, err := t.w.Write(t.wbuf)
	return err
}

func (t *pipeTransport) Close() error {
	return errors.Join(t.w.Close(), t.r.Close())
}
