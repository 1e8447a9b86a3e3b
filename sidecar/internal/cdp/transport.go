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

	"github.com/gorilla/websocket"
)

// Transport carries whole CDP messages to and from one peer.
type Transport interface {
	// ReadMessage returns the next message; an error once the peer is gone.
	ReadMessage() ([]byte, error)
	// WriteMessage sends one message, giving up when ctx ends or after
	// WriteTimeout, whichever comes first.
	WriteMessage(ctx context.Context, msg []byte) error
	Close() error
}

// WriteTimeout bounds one write: a peer that stops reading for this long is
// taken for gone, and its connection is closed.
const WriteTimeout = 30 * time.Second

// MaxMessage bounds one message read from a browser (a full-page screenshot
// of a long page is tens of megabytes).
const MaxMessage = 512 << 20

// ErrTooLarge is returned for a message over MaxMessage.
var ErrTooLarge = errors.New("CDP message too large")

func deadline(ctx context.Context) time.Time {
	d := time.Now().Add(WriteTimeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		return cd
	}
	return d
}

// WebSocket is a Transport over a WebSocket.
func WebSocket(ws *websocket.Conn) Transport { return &wsTransport{ws: ws} }

type wsTransport struct {
	ws  *websocket.Conn
	wmu sync.Mutex
}

func (t *wsTransport) ReadMessage() ([]byte, error) {
	_, data, err := t.ws.ReadMessage()
	return data, err
}

func (t *wsTransport) WriteMessage(ctx context.Context, msg []byte) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	_ = t.ws.SetWriteDeadline(deadline(ctx))
	return t.ws.WriteMessage(websocket.TextMessage, msg)
}

func (t *wsTransport) Close() error { return t.ws.Close() }

// Pipe is a Transport over Chromium's --remote-debugging-pipe: messages are
// JSON texts ended by a NUL byte; the browser reads from in (its fd 3) and
// writes to out (its fd 4). r and w are our ends.
func Pipe(r, w *os.File) Transport {
	return &pipeTransport{r: r, w: w, br: bufio.NewReaderSize(r, 256<<10)}
}

type pipeTransport struct {
	r, w *os.File
	br   *bufio.Reader
	wmu  sync.Mutex
	wbuf []byte // under wmu
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
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	_ = t.w.SetWriteDeadline(deadline(ctx))
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
