package nativemsg

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Protocol is the version of the messages below. An extension and a sidecar
// of different protocols refuse each other with a message naming both. Keep
// it equal to PROTOCOL in extension/browser/src/protocol.ts.
const Protocol = 1

// Chrome's limits on one native message.
const (
	MaxToExtension   = 1 << 20  // host → extension: 1 MB
	MaxFromExtension = 64 << 20 // extension → host: 64 MiB
)

// MaxSocketMessage bounds one message between the host and a coordinator
// (after chunks are joined): a screenshot of a very tall page fits, a
// runaway peer does not exhaust memory.
const MaxSocketMessage = 256 << 20

// ErrTooLarge is returned for a frame over the reader's limit.
var ErrTooLarge = errors.New("native message too large")

// FrameStall bounds how long a frame that has begun may wait for its next
// bytes, on a reader that has read deadlines (a socket): a peer that sends
// a length and then nothing does not hold a connection forever. Between
// frames nothing times out: an idle connection is a normal one.
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
	return readFrame(r, order, limit, FrameStall)
}

func readFrame(r io.Reader, order binary.ByteOrder, limit int, stall time.Duration) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err // io.EOF: the peer closed between messages
	}
	n := int64(order.Uint32(hdr[:]))
	if n > int64(limit) {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, n, limit)
	}
	d, timed := r.(interface{ SetReadDeadline(time.Time) error })
	if timed {
		defer d.SetReadDeadline(time.Time{})
	}
	buf := make([]byte, 0, min(n, frameChunk))
	for int64(len(buf)) < n {
		if timed {
			_ = d.SetReadDeadline(time.Now().Add(stall))
		}
		want := int(min(n-int64(len(buf)), frameChunk))
		buf = slices.Grow(buf, want)
		got, err := io.ReadFull(r, buf[len(buf):len(buf)+want])
		buf = buf[:len(buf)+got]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("read a %d-byte message (%d bytes came): %w", n, len(buf), err)
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

// chunk is the envelope of one piece of a message over a hop's limit.
type chunk struct {
	Type  string    `json:"type"`
	Chunk chunkHead `json:"chunk"`
	Data  string    `json:"data"`
}

type chunkHead struct {
	ID   int64 `json:"id"`
	Last bool  `json:"last,omitempty"`
}

// chunkOverhead bounds the envelope around a chunk's data, and the escaping
// of that data: a JSON text escapes at most '"' and '\' again (2 bytes each)
// once it is itself a string.
const chunkOverhead = 128

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
	// Worst case every byte is '"' or '\' and doubles when escaped.
	room := (s.limit - chunkOverhead) / 2
	var out [][]byte
	for len(msg) > 0 {
		n := min(room, len(msg))
		for n < len(msg) && n > 0 && !utf8.RuneStart(msg[n]) {
			n--
		}
		piece := msg[:n]
		msg = msg[n:]
		c, _ := json.Marshal(chunk{Type: "chunk", Chunk: chunkHead{ID: s.nextID, Last: len(msg) == 0}, Data: string(piece)})
		out = append(out, c)
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

// Add takes one received message. A message that is not a chunk comes back
// as is; a chunk is kept until its last piece, which returns the whole. ok is
// false while a message is incomplete.
func (j *Joiner) Add(msg []byte) (whole []byte, ok bool, err error) {
	if !IsType(msg, "chunk") {
		return msg, true, nil
	}
	var c chunk
	if err := json.Unmarshal(msg, &c); err != nil {
		return nil, false, fmt.Errorf("a chunk that is not valid: %w", err)
	}
	buf := append(j.pending[c.Chunk.ID], c.Data...)
	if len(buf) > j.limit {
		delete(j.pending, c.Chunk.ID)
		return nil, false, fmt.Errorf("%w: chunked message %d passed %d bytes", ErrTooLarge, c.Chunk.ID, j.limit)
	}
	if !c.Chunk.Last {
		j.pending[c.Chunk.ID] = buf
		return nil, false, nil
	}
	delete(j.pending, c.Chunk.ID)
	return buf, true, nil
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
