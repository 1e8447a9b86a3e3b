package nativemsg

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Protocol is the version of the messages below. An extension and a sidecar
// of different protocols refuse each other with a message naming both. Keep
// it equal to PROTOCOL in extension/browser/src/protocol.ts.
//
// 2: the channel (a coordinator's own WebSocket for the extension, offered
// in its hello), batches, chunks routed by client, requests that expire.
const Protocol = 2

// Chrome's limits on one native message.
const (
	MaxToExtension   = 1 << 20  // host → extension: 1 MB
	MaxFromExtension = 64 << 20 // extension → host: 64 MiB
)

// MaxHello bounds the first message on each hop: a hello is a few hundred
// bytes, and nothing larger is read (or allocated) before one came.
const MaxHello = 64 << 10

// MaxRequest bounds one message of a coordinator to the extension. Every
// coordinator shares the one browser, and its extension reads one message
// at a time: a message of this size still crosses in well under a second;
// a larger one (a runaway script, a file sent as a string) is refused with
// ErrTooLarge before it is sent, and by the host if it came anyway.
const MaxRequest = 16 << 20

// MaxSocketMessage bounds one message from the extension to a coordinator
// (after chunks are joined): a screenshot of a very tall page fits, a
// runaway peer does not exhaust memory.
const MaxSocketMessage = 256 << 20

// ErrTooLarge is returned for a frame over the reader's limit.
var ErrTooLarge = errors.New("native message too large")

// FrameStall bounds how long a frame that has begun may wait for its next
// bytes, on a reader that has read deadlines (a socket): a peer that sends
// part of a length, or a length and then nothing, does not hold a
// connection forever. Between frames nothing times out: an idle connection
// is a normal one.
const FrameStall = 30 * time.Second

// frameChunk is how much of a frame is read at once: memory grows with
// what arrives, never with what a length only claims.
const frameChunk = 64 << 10

// ReadFrame reads one length-prefixed message. order is binary.NativeEndian
// on stdio (Chrome's framing) and binary.LittleEndian on the socket. A
// length over limit is refused before anything is read or allocated for
// it; the message is read in chunks of frameChunk, each within FrameStall
// where r has read deadlines (which ReadFrame then clears).
func ReadFrame(r io.Reader, order binary.ByteOrder, limit int) ([]byte, error) {
	f := FrameReader{R: r, Order: order, Limit: limit}
	return f.Read()
}

// A FrameReader reads length-prefixed frames, whole (Read) or a length
// first and the body after (Header, Body): the host relays a large frame
// piece by piece as it arrives.
type FrameReader struct {
	R     io.Reader
	Order binary.ByteOrder
	Limit int
	// Stall bounds the wait for the next bytes of a frame that has begun,
	// where R has read deadlines; 0 means FrameStall.
	Stall time.Duration
	// Trusted: the peer's lengths are taken at their word (Chrome on the
	// host's stdin, once it said hello): a body is read into one buffer of
	// its size, not grown as it comes.
	Trusted bool
}

type deadliner interface{ SetReadDeadline(time.Time) error }

func (f *FrameReader) stall() time.Duration {
	if f.Stall > 0 {
		return f.Stall
	}
	return FrameStall
}

// Read reads one whole frame.
func (f *FrameReader) Read() ([]byte, error) {
	n, err := f.Header()
	if err != nil {
		return nil, err
	}
	if f.Trusted {
		return f.Body(make([]byte, 0, n), n)
	}
	return f.Body(make([]byte, 0, min(n, frameChunk)), n)
}

// Header reads a frame's length and checks it against the limit (over it:
// the length and ErrTooLarge, the body unread). The first byte may take as
// long as it likes (an idle peer); the other three come within the stall.
func (f *FrameReader) Header() (int, error) {
	var hdr [4]byte
	got, err := io.ReadAtLeast(f.R, hdr[:], 1)
	if err != nil {
		return 0, err // io.EOF: the peer closed between messages
	}
	if got < len(hdr) {
		d, timed := f.R.(deadliner)
		if timed {
			_ = d.SetReadDeadline(time.Now().Add(f.stall()))
		}
		_, err = io.ReadFull(f.R, hdr[got:])
		if timed {
			_ = d.SetReadDeadline(time.Time{})
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, fmt.Errorf("read a message's length (%d of 4 bytes came): %w", got, err)
		}
	}
	n := int64(f.Order.Uint32(hdr[:]))
	if n > int64(f.Limit) {
		return int(n), fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, n, f.Limit)
	}
	return int(n), nil
}

// Body appends the n bytes of a frame's body to buf, in chunks, each
// within the stall where R has read deadlines.
func (f *FrameReader) Body(buf []byte, n int) ([]byte, error) {
	d, timed := f.R.(deadliner)
	if timed {
		defer d.SetReadDeadline(time.Time{})
	}
	start := len(buf)
	for len(buf)-start < n {
		if timed {
			_ = d.SetReadDeadline(time.Now().Add(f.stall()))
		}
		want := min(n-(len(buf)-start), frameChunk)
		buf = slices.Grow(buf, want)
		got, err := io.ReadFull(f.R, buf[len(buf):len(buf)+want])
		buf = buf[:len(buf)+got]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("read a %d-byte message (%d bytes came): %w", n, len(buf)-start, err)
		}
	}
	return buf, nil
}

// WriteFrame writes one length-prefixed message in a single Write, so that
// writers that hold a lock per message never interleave.
func WriteFrame(w io.Writer, order binary.ByteOrder, msg []byte) error {
	buf := make([]byte, 4+len(msg))
	order.PutUint32(buf, uint32(len(msg)))
	copy(buf[4:], msg)
	_, err := w.Write(buf)
	return err
}

// WriteFrames writes messages as frames in one write where w can gather
// (a socket: writev), without copying them.
func WriteFrames(w io.Writer, order binary.ByteOrder, msgs [][]byte) error {
	bufs := make(net.Buffers, 0, 2*len(msgs))
	hdrs := make([]byte, 4*len(msgs))
	for i, m := range msgs {
		order.PutUint32(hdrs[4*i:], uint32(len(m)))
		bufs = append(bufs, hdrs[4*i:4*i+4], m)
	}
	_, err := bufs.WriteTo(w)
	return err
}

// A chunk is one piece of a message over a hop's limit:
//
//	{"type":"chunk","client":"c1","chunk":{"id":7,"last":true},"data":"…"}
//
// data is a piece of the message's JSON text, as a JSON string; the
// pieces of one id, joined, are the message. client routes the pieces (the
// host never joins them: the receiver does), and is the sender's client id
// for the message once joined.

// chunkOverhead bounds the envelope around a chunk's data.
const chunkOverhead = 128

// ChunkRoom is how many bytes of a message fit in one chunk of a hop whose
// limit is limit: in the worst case each byte is escaped to six (a control
// character as \u00XX).
func ChunkRoom(limit int) int { return (limit - chunkOverhead) / 6 }

// AppendChunk appends one chunk message carrying piece (bytes of a
// message's JSON text: a piece may end inside a UTF-8 sequence only if
// CutRune kept the rest for the next piece).
func AppendChunk(dst []byte, id int64, client string, last bool, piece []byte) []byte {
	dst = append(dst, `{"type":"chunk",`...)
	if client != "" {
		dst = append(dst, `"client":`...)
		dst = AppendString(dst, client)
		dst = append(dst, ',')
	}
	dst = append(dst, `"chunk":{"id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	if last {
		dst = append(dst, `,"last":true`...)
	}
	dst = append(dst, `},"data":"`...)
	dst = appendEscaped(dst, piece)
	return append(dst, `"}`...)
}

// CutRune splits off the end of b that begins a UTF-8 sequence b does not
// finish, so that a piece of a message never splits a character.
func CutRune(b []byte) (whole, rest []byte) {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i], b[i:]
			}
			break
		}
	}
	return b, nil
}

// Splitter cuts messages over a limit into chunks. Its zero value is not
// usable: use NewSplitter. Not safe for concurrent use.
type Splitter struct {
	limit  int
	nextID int64
}

// NewSplitter splits messages longer than limit bytes.
func NewSplitter(limit int) *Splitter { return &Splitter{limit: limit} }

// Split returns msg itself when it fits, else the chunk messages that carry
// it, each within the limit once encoded. The cut never splits a UTF-8
// sequence, so every chunk is valid JSON text.
func (s *Splitter) Split(msg []byte) [][]byte {
	if len(msg) <= s.limit {
		return [][]byte{msg}
	}
	s.nextID++
	room := ChunkRoom(s.limit)
	var out [][]byte
	for len(msg) > 0 {
		piece, _ := CutRune(msg[:min(room, len(msg))])
		if len(piece) == 0 {
			piece = msg[:min(room, len(msg))] // no character starts here: escaped as U+FFFD
		}
		msg = msg[len(piece):]
		out = append(out, AppendChunk(nil, s.nextID, "", len(msg) == 0, piece))
	}
	return out
}

// Joiner puts chunked messages back together. Not safe for concurrent use.
type Joiner struct {
	limit   int
	pending map[int64][]byte
}

// NewJoiner joins chunks into messages of at most limit bytes.
func NewJoiner(limit int) *Joiner { return &Joiner{limit: limit, pending: map[int64][]byte{}} }

// Add takes one chunk (f, read by Scan). It returns the whole message
// once its last piece came; ok is false while it is incomplete.
func (j *Joiner) Add(f Fields) (whole []byte, ok bool, err error) {
	var head chunkHead
	var data string
	if json.Unmarshal(f.Chunk, &head) != nil || json.Unmarshal(f.Data, &data) != nil {
		return nil, false, errors.New("a chunk without an id or data")
	}
	buf := append(j.pending[head.ID], data...)
	if len(buf) > j.limit {
		delete(j.pending, head.ID)
		return nil, false, fmt.Errorf("%w: chunked message %d passed %d bytes", ErrTooLarge, head.ID, j.limit)
	}
	if !head.Last {
		j.pending[head.ID] = buf
		return nil, false, nil
	}
	delete(j.pending, head.ID)
	return buf, true, nil
}

type chunkHead struct {
	ID   int64 `json:"id"`
	Last bool  `json:"last,omitempty"`
}

// IsType reports whether msg is a JSON object whose "type" is typ, looking
// only at the top level (cheap on a large message).
func IsType(msg []byte, typ string) bool {
	t, _ := TypeOf(msg)
	return t == typ
}

// TypeOf returns the "type" of a message without decoding the rest: the
// host relays large messages (screenshots) and reads only their heads.
func TypeOf(msg []byte) (string, error) {
	i := 0
	for i < len(msg) && (msg[i] == ' ' || msg[i] == '\t' || msg[i] == '\n' || msg[i] == '\r') {
		i++
	}
	if i == len(msg) || msg[i] != '{' {
		return "", errors.New(`not a protocol message: not a JSON object`)
	}
	t := gjson.GetBytes(msg, "type")
	if t.Type != gjson.String || t.Str == "" {
		return "", errors.New(`not a protocol message: no "type"`)
	}
	return t.Str, nil
}

// MismatchMessage is what both sides say when the extension and the sidecar
// speak different protocols.
func MismatchMessage(extension, sidecar int) string {
	update := "update the browser extension"
	if extension > sidecar {
		update = "update browser-coordinator (the VS Code extension or the binary)"
	}
	return fmt.Sprintf("the browser extension speaks protocol %d and browser-coordinator protocol %d: they must come from the same release; %s",
		extension, sidecar, update)
}
