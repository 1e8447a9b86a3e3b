package cdp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// ServerWebSocket is a Transport over a WebSocket that a client opened to
// us (RFC 6455, the server's side), once the handshake is answered: conn is
// the connection taken over, buffered what was read of it past the
// handshake.
//
// It reads and writes frames itself, not through a library, because it is
// the proxy's hot path: a command is read into a buffer the transport
// keeps (nothing allocated per message); a message is written in one
// writev from its parts (an answer's head with the client's id, the
// browser's own bytes, the closing brace: nothing joined, so a screenshot
// is not copied again); and, on Linux, a write can be tried without
// waiting (tryWrite), which lets the connection's reader write an answer
// itself instead of handing it to a goroutine that must be woken.
//
// The client's close frame is answered with its own code; ping is
// answered with pong; a protocol error ends the connection with 1002, a
// message over MaxMessage with 1009. Errors are gorilla's *CloseError for
// a close, so that callers tell a client's goodbye from a failure alike
// for either kind of WebSocket.
func ServerWebSocket(conn net.Conn, buffered []byte) Transport {
	t := &serverWS{conn: conn, io: newFDIO(conn), wmu: newWriteLock(), readEnd: make(chan struct{}), rbuf: make([]byte, max(wsReadBuffer, len(buffered)))}
	t.w = copy(t.rbuf, buffered)
	return t
}

// wsReadBuffer is what a client's frames are read into; a bigger payload
// is read straight into the message.
const wsReadBuffer = 16 << 10

// WebSocket opcodes (RFC 6455 section 5.2).
const (
	opContinuation = 0
	opText         = 1
	opBinary       = 2
	opClose        = 8
	opPing         = 9
	opPong         = 10
)

type serverWS struct {
	conn net.Conn
	io   fdio

	// The reader's (one goroutine).
	rbuf     []byte // rbuf[r:w] is read and not yet used
	r, w     int
	msg      []byte // the message read last: the caller's until the next read
	readEnd  chan struct{}
	readOnce sync.Once

	// The writers', under wmu.
	wmu       writeLock
	hdr       [10]byte
	rest      []byte      // the unwritten rest of a frame tryWrite began
	pending   atomic.Bool // rest is waiting
	closeSent atomic.Bool
}

func (t *serverWS) ReadMessage() ([]byte, error) {
	msg, err := t.read()
	if err != nil {
		t.readOnce.Do(func() { close(t.readEnd) })
	}
	return msg, err
}

// read returns the next data message, answering the control frames that
// come before it and joining its fragments in t.msg.
func (t *serverWS) read() ([]byte, error) {
	if cap(t.msg) > 1<<20 {
		t.msg = nil // let a big command's buffer go
	}
	t.msg = t.msg[:0]
	inMessage := false
	for {
		f, err := t.readFrameHeader()
		if err != nil {
			return nil, err
		}
		switch f.op {
		case opClose, opPing, opPong:
			if err := t.readControlFrame(f); err != nil {
				return nil, err
			}
			continue
		case opText, opBinary:
			if inMessage {
				return nil, t.protocolError("a message began before the last one ended")
			}
			inMessage = true
		case opContinuation:
			if !inMessage {
				return nil, t.protocolError("a continuation frame with no message to continue")
			}
		default:
			return nil, t.protocolError(fmt.Sprintf("unknown opcode %d", f.op))
		}
		if err := t.appendPayload(f); err != nil {
			return nil, err
		}
		if f.fin {
			return t.msg, nil
		}
	}
}

// frameHeader is what a frame says of itself before its payload.
type frameHeader struct {
	fin bool
	op  byte
	n   uint64 // the payload's length
	key [4]byte
}

// readFrameHeader reads a frame's header: a client's frames are masked and
// use no extension.
func (t *serverWS) readFrameHeader() (frameHeader, error) {
	var f frameHeader
	if err := t.fill(2); err != nil {
		return f, err
	}
	b0, b1 := t.rbuf[t.r], t.rbuf[t.r+1]
	t.r += 2
	f.fin, f.op, f.n = b0&0x80 != 0, b0&0x0f, uint64(b1&0x7f)
	if b0&0x70 != 0 {
		return f, t.protocolError("a frame has reserved bits set (no extension was agreed)")
	}
	if b1&0x80 == 0 {
		return f, t.protocolError("a client's frame must be masked")
	}
	switch f.n {
	case 126:
		if err := t.fill(2); err != nil {
			return f, err
		}
		f.n = uint64(binary.BigEndian.Uint16(t.rbuf[t.r:]))
		t.r += 2
	case 127:
		if err := t.fill(8); err != nil {
			return f, err
		}
		f.n = binary.BigEndian.Uint64(t.rbuf[t.r:])
		t.r += 8
	}
	if err := t.fill(4); err != nil {
		return f, err
	}
	copy(f.key[:], t.rbuf[t.r:])
	t.r += 4
	return f, nil
}

// readControlFrame reads a close, ping or pong frame's payload (whole, at
// most 125 bytes, on the stack) and acts on it.
func (t *serverWS) readControlFrame(f frameHeader) error {
	if !f.fin || f.n > 125 {
		return t.protocolError("a control frame must be whole and at most 125 bytes")
	}
	var payload [125]byte
	p := payload[:f.n]
	if err := t.payload(p); err != nil {
		return err
	}
	unmask(f.key, p)
	return t.controlFrame(f.op, p)
}

// appendPayload reads a data frame's payload onto t.msg, refusing a
// message over MaxMessage before reading it.
func (t *serverWS) appendPayload(f frameHeader) error {
	if f.n > uint64(MaxMessage-len(t.msg)) {
		t.closeNow(websocket.CloseMessageTooBig, fmt.Sprintf("browser-coordinator: a message over %d MiB", MaxMessage>>20))
		return fmt.Errorf("%w: over %d MiB", ErrTooLarge, MaxMessage>>20)
	}
	// The payload is read in steps no larger than what has arrived so
	// far (or 64 KiB): a frame that claims 512 MiB takes memory only as
	// its bytes come.
	at := len(t.msg)
	for left := int(f.n); left > 0; {
		step := min(left, max(len(t.msg), 64<<10))
		t.msg = grow(t.msg, step)
		if err := t.payload(t.msg[len(t.msg)-step:]); err != nil {
			return err
		}
		left -= step
	}
	unmask(f.key, t.msg[at:])
	return nil
}

// grow lengthens b by n bytes, keeping what it holds. Its room at least
// doubles: a message in many fragments is copied a few times, not once per
// fragment.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b[:len(b)+n]
	}
	out := make([]byte, len(b)+n, max(len(b)+n, 2*cap(b), 512))
	copy(out, b)
	return out
}

// controlFrame answers a ping, ignores a pong, and answers a close frame
// with its code, then ends the reading with the client's *CloseError.
func (t *serverWS) controlFrame(op byte, p []byte) error {
	switch op {
	case opPing:
		return t.control(opPong, p)
	case opPong:
		return nil
	}
	closeErr := &websocket.CloseError{Code: websocket.CloseNoStatusReceived}
	switch {
	case len(p) == 1:
		return t.protocolError("a close frame with half a code")
	case len(p) >= 2:
		closeErr.Code = int(binary.BigEndian.Uint16(p))
		closeErr.Text = string(p[2:])
		if !utf8.Valid(p[2:]) {
			return t.protocolError("a close frame's reason is not UTF-8")
		}
	}
	if !t.closeSent.Swap(true) {
		var reply []byte
		if len(p) >= 2 {
			reply = p[:2]
		}
		_ = t.control(opClose, reply)
	}
	return closeErr
}

// protocolError ends the connection with 1002 and says why.
func (t *serverWS) protocolError(why string) error {
	t.closeNow(websocket.CloseProtocolError, "browser-coordinator: "+why)
	return fmt.Errorf("WebSocket protocol error: %s", why)
}

// closeNow, on the reader's goroutine, says why and closes: there is no
// reading of the client's answer to wait for.
func (t *serverWS) closeNow(code int, reason string) {
	if !t.closeSent.Swap(true) {
		_ = t.control(opClose, closePayload(code, reason))
	}
	_ = t.conn.Close()
}

func closePayload(code int, reason string) []byte {
	p := make([]byte, 2, 2+123)
	binary.BigEndian.PutUint16(p, uint16(code))
	return append(p, clip(reason, 123)...)
}

// fill reads until n bytes are buffered.
func (t *serverWS) fill(n int) error {
	if t.w-t.r >= n {
		return nil
	}
	if len(t.rbuf)-t.r < n {
		t.w = copy(t.rbuf, t.rbuf[t.r:t.w])
		t.r = 0
	}
	for t.w-t.r < n {
		m, err := t.io.Read(t.rbuf[t.w:])
		t.w += m
		if err != nil && m == 0 {
			if errors.Is(err, io.EOF) && t.w > t.r {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// payload reads len(dst) bytes: what is buffered, then the rest straight
// from the connection.
func (t *serverWS) payload(dst []byte) error {
	k := copy(dst, t.rbuf[t.r:t.w])
	t.r += k
	for k < len(dst) {
		m, err := t.io.Read(dst[k:])
		k += m
		if err != nil && m == 0 {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// unmask undoes a client's masking, eight bytes at a time.
func unmask(key [4]byte, b []byte) {
	k := uint64(binary.LittleEndian.Uint32(key[:]))
	k |= k << 32
	i := 0
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], binary.LittleEndian.Uint64(b[i:])^k)
	}
	for ; i < len(b); i++ {
		b[i] ^= key[i&3]
	}
}

// header is a server frame's header (never masked) for n bytes, in t.hdr.
func (t *serverWS) header(op byte, n int) []byte {
	t.hdr[0] = 0x80 | op
	switch {
	case n < 126:
		t.hdr[1] = byte(n)
		return t.hdr[:2]
	case n < 1<<16:
		t.hdr[1] = 126
		binary.BigEndian.PutUint16(t.hdr[2:], uint16(n))
		return t.hdr[:4]
	}
	t.hdr[1] = 127
	binary.BigEndian.PutUint64(t.hdr[2:], uint64(n))
	return t.hdr[:10]
}

func (t *serverWS) WriteMessage(ctx context.Context, msg []byte) error {
	return t.writeParts(ctx, parts{body: msg})
}

func (t *serverWS) writeParts(ctx context.Context, p parts) error {
	return t.wmu.do(ctx, func() error { return t.frameLocked(opText, p) })
}

// frameLocked writes one frame, after what is left of one tryWrite began.
func (t *serverWS) frameLocked(op byte, p parts) error {
	if err := t.flushLocked(); err != nil {
		return err
	}
	return writeSoon(t.io, t.conn, t.header(op, p.len()), p.head, p.body, p.tail)
}

// tryWrite: see tryWriter.
func (t *serverWS) tryWrite(p parts) (bool, error) {
	if !t.wmu.tryLock() {
		return false, nil
	}
	defer t.wmu.unlock()
	if t.pending.Load() {
		return false, nil
	}
	h := t.header(opText, p.len())
	n, err := t.io.tryWrite(h, p.head, p.body, p.tail)
	switch {
	case errors.Is(err, errWouldBlock):
		return false, nil
	case err != nil:
		return false, err
	case n < len(h)+p.len():
		rest := [4][]byte{h, p.head, p.body, p.tail}
		left := advance(rest[:], n)
		t.rest = parts{head: left[0], body: joinRest(left[1:])}.join()
		t.pending.Store(true)
	}
	return true, nil
}

func joinRest(bufs [][]byte) []byte {
	var out []byte
	for _, b := range bufs {
		out = append(out, b...)
	}
	return out
}

func (t *serverWS) unfinished() bool { return t.pending.Load() }

func (t *serverWS) flush() error {
	return t.wmu.do(context.Background(), t.flushLocked)
}

func (t *serverWS) flushLocked() error {
	if !t.pending.Load() {
		return nil
	}
	err := writeSoon(t.io, t.conn, t.rest)
	t.rest = nil
	t.pending.Store(false)
	return err
}

// control writes a control frame, after any message under way.
func (t *serverWS) control(op byte, payload []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	return t.wmu.do(ctx, func() error { return t.frameLocked(op, parts{body: payload}) })
}

func (t *serverWS) CloseWith(code int, reason string) error {
	var err error
	if !t.closeSent.Swap(true) {
		err = t.control(opClose, closePayload(code, reason))
		if err == nil {
			// The client answers with a close frame of its own, which ends
			// our reader; closing before that may reset the connection
			// under the frame just sent.
			select {
			case <-t.readEnd:
			case <-time.After(closeWait):
			}
		}
	}
	return errors.Join(err, t.conn.Close())
}

func (t *serverWS) Close() error { return t.conn.Close() }
