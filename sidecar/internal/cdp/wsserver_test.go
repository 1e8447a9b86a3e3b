package cdp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// The server side of a client's WebSocket, frame by frame: what a client
// sends, written byte for byte to a real TCP connection, is read by
// ServerWebSocket and compared with what RFC 6455 makes of it (refFrames,
// a reader written for the test as plainly as the RFC says it).

// wsPair is a ServerWebSocket on one end of a loopback TCP connection,
// and the client's end.
func wsPair(t testing.TB) (Transport, *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return ServerWebSocket(server, nil), client.(*net.TCPConn)
}

// frame is a client's frame: masked with key unless unmasked, its length
// in the shortest form unless long (16 bits) or longer (64 bits).
type frame struct {
	fin         bool
	rsv         byte
	op          byte
	payload     []byte
	key         [4]byte
	unmasked    bool
	long, wider bool
}

func (f frame) bytes() []byte {
	b0 := f.op | f.rsv<<4
	if f.fin {
		b0 |= 0x80
	}
	out := []byte{b0, 0}
	n := len(f.payload)
	switch {
	case f.wider || n >= 1<<16:
		out[1] = 127
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	case f.long || n >= 126:
		out[1] = 126
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	default:
		out[1] = byte(n)
	}
	if f.unmasked {
		return append(out, f.payload...)
	}
	out[1] |= 0x80
	out = append(out, f.key[:]...)
	for i, c := range f.payload {
		out = append(out, c^f.key[i&3])
	}
	return out
}

func stream(frames ...frame) []byte {
	var out []byte
	for _, f := range frames {
		out = append(out, f.bytes()...)
	}
	return out
}

// refOutcome is what a client's bytes are, read as RFC 6455 says: the
// messages, then how the reading ends.
type refOutcome struct {
	messages [][]byte
	end      string // "protocol", "too big", "close", "eof" (the bytes ran out)
}

func refFrames(in []byte) refOutcome {
	var out refOutcome
	var msg []byte
	inMessage := false
	for {
		if len(in) < 2 {
			out.end = "eof"
			return out
		}
		b0, b1 := in[0], in[1]
		in = in[2:]
		fin, op, n := b0&0x80 != 0, b0&0x0f, uint64(b1&0x7f)
		if b0&0x70 != 0 || b1&0x80 == 0 {
			out.end = "protocol"
			return out
		}
		switch n {
		case 126:
			if len(in) < 2 {
				out.end = "eof"
				return out
			}
			n, in = uint64(binary.BigEndian.Uint16(in)), in[2:]
		case 127:
			if len(in) < 8 {
				out.end = "eof"
				return out
			}
			n, in = binary.BigEndian.Uint64(in), in[8:]
		}
		if len(in) < 4 {
			out.end = "eof"
			return out
		}
		key := in[:4]
		in = in[4:]
		control := op >= 8
		switch {
		case control && (!fin || n > 125):
			out.end = "protocol"
			return out
		case op == opText || op == opBinary:
			if inMessage {
				out.end = "protocol"
				return out
			}
			inMessage = true
		case op == opContinuation:
			if !inMessage {
				out.end = "protocol"
				return out
			}
		case op != opClose && op != opPing && op != opPong:
			out.end = "protocol"
			return out
		}
		if !control && n > uint64(MaxMessage-len(msg)) {
			out.end = "too big"
			return out
		}
		if uint64(len(in)) < n {
			out.end = "eof"
			return out
		}
		p := make([]byte, n)
		for i := range p {
			p[i] = in[i] ^ key[i%4]
		}
		in = in[n:]
		if control {
			if op == opClose {
				if len(p) == 1 || (len(p) > 2 && !utf8.Valid(p[2:])) {
					out.end = "protocol"
				} else {
					out.end = "close"
				}
				return out
			}
			continue
		}
		msg = append(msg, p...)
		if fin {
			out.messages = append(out.messages, msg)
			msg, inMessage = nil, false
		}
	}
}

// readAll sends in as the client and reads what the server makes of it.
// What the server writes back (pongs, its close frame) is read and checked
// to be frames a server may send.
func readAll(t testing.TB, in []byte) (msgs [][]byte, replies []byte, end error) {
	srv, client := wsPair(t)
	go func() {
		_, _ = client.Write(in)
		_ = client.CloseWrite()
	}()
	replied := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(client)
		replied <- b
	}()
	for {
		m, err := srv.ReadMessage()
		if err != nil {
			srv.Close()
			return msgs, <-replied, err
		}
		msgs = append(msgs, bytes.Clone(m))
	}
}

// checkServerFrames: what the server wrote is whole frames, unmasked and
// final, of the opcodes it may send.
func checkServerFrames(t testing.TB, b []byte) {
	t.Helper()
	for len(b) > 0 {
		if len(b) < 2 {
			t.Fatalf("a cut frame from the server: %x", b)
		}
		b0, b1 := b[0], b[1]
		if b0&0x80 == 0 || b0&0x70 != 0 || b1&0x80 != 0 {
			t.Fatalf("a server frame with header %x %x", b0, b1)
		}
		op := b0 & 0x0f
		if op != opPong && op != opClose && op != opText {
			t.Fatalf("a server frame with opcode %d", op)
		}
		n := int(b1 & 0x7f)
		b = b[2:]
		if n >= 126 {
			t.Fatalf("the server's reply to a control frame is %d bytes long", n)
		}
		if len(b) < n {
			t.Fatalf("a cut frame from the server (%d of %d bytes)", len(b), n)
		}
		b = b[n:]
	}
}

func outcomeOf(err error) string {
	var ce *websocket.CloseError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ce):
		return "close"
	case errors.Is(err, ErrTooLarge):
		return "too big"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "eof"
	}
	if bytes.Contains([]byte(err.Error()), []byte("WebSocket protocol error")) {
		return "protocol"
	}
	return "other: " + err.Error()
}

func seeds() [][]byte {
	k := [4]byte{1, 2, 3, 4}
	cmd := []byte(`{"id":1,"method":"Browser.getVersion"}`)
	return [][]byte{
		stream(frame{fin: true, op: opText, payload: cmd, key: k}),
		stream(frame{fin: true, op: opBinary, payload: cmd, key: k, long: true}),
		stream(frame{fin: true, op: opText, payload: cmd, key: k, wider: true}),
		// Fragmented, with a ping and a pong between the fragments.
		stream(frame{op: opText, payload: cmd[:5], key: k}, frame{fin: true, op: opPing, payload: []byte("hi"), key: k},
			frame{op: opContinuation, payload: cmd[5:9], key: k}, frame{fin: true, op: opPong, key: k},
			frame{fin: true, op: opContinuation, payload: cmd[9:], key: k}, frame{fin: true, op: opText, payload: cmd, key: k}),
		stream(frame{fin: true, op: opText, payload: cmd, unmasked: true}),
		stream(frame{fin: true, op: opText, rsv: 4, payload: cmd, key: k}),
		stream(frame{fin: true, op: 3, payload: cmd, key: k}),
		stream(frame{fin: true, op: 11, key: k}),
		stream(frame{op: opPing, key: k}),
		stream(frame{fin: true, op: opPing, payload: bytes.Repeat([]byte("p"), 126), key: k}),
		stream(frame{fin: true, op: opContinuation, payload: cmd, key: k}),
		stream(frame{op: opText, payload: cmd, key: k}, frame{fin: true, op: opText, payload: cmd, key: k}),
		stream(frame{fin: true, op: opClose, payload: []byte{3, 232, 'b', 'y', 'e'}, key: k}, frame{fin: true, op: opText, payload: cmd, key: k}),
		stream(frame{fin: true, op: opClose, payload: []byte{3}, key: k}),
		stream(frame{fin: true, op: opClose, payload: []byte{3, 232, 0xff}, key: k}),
		stream(frame{fin: true, op: opClose, key: k}),
		stream(frame{fin: true, op: opText, payload: []byte{0xff, 0xfe}, key: k}),
		append([]byte{0x81, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0}, k[:]...), // a 64-bit length with its top bit set
		append([]byte{0x81, 0xff, 0, 0, 0, 0, 0x20, 0, 0, 1}, k[:]...), // just over MaxMessage
		append([]byte{0x81, 0xff, 0, 0, 0, 0, 0x20, 0, 0, 0}, k[:]...), // MaxMessage, then nothing
		stream(frame{fin: true, op: opText, payload: cmd, key: k})[:20],
		{0x81},
	}
}

// FuzzServerWebSocketFrames: whatever a client sends, the server reads the
// messages RFC 6455 makes of it, and ends as the RFC says (a protocol
// error, a message too big, the client's close, or the bytes running out);
// it answers only with frames a server may send.
func FuzzServerWebSocketFrames(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want := refFrames(in)
		msgs, replies, err := readAll(t, in)
		if got := outcomeOf(err); got != want.end {
			t.Fatalf("the reading ended with %v (%s); want %s", err, got, want.end)
		}
		if len(msgs) != len(want.messages) {
			t.Fatalf("%d messages, want %d", len(msgs), len(want.messages))
		}
		for i := range msgs {
			if !bytes.Equal(msgs[i], want.messages[i]) {
				t.Fatalf("message %d is %q, want %q", i, msgs[i], want.messages[i])
			}
		}
		checkServerFrames(t, replies)
	})
}

func TestServerWebSocketFrames(t *testing.T) {
	for i, s := range seeds() {
		want := refFrames(s)
		msgs, replies, err := readAll(t, s)
		if got := outcomeOf(err); got != want.end || len(msgs) != len(want.messages) {
			t.Errorf("seed %d: %d messages, ended %v (%s); want %d messages, %s", i, len(msgs), err, got, len(want.messages), want.end)
		}
		checkServerFrames(t, replies)
	}
}

// A message sent in many fragments costs what it weighs: each fragment is
// added to what was read, not copied with it into a buffer of its own. (It
// was: a 1 MiB command in 1 KiB fragments allocated and copied half a
// gigabyte, and one of MaxMessage in 4 KiB fragments, as some client
// libraries send, tens of gigabytes.)
func TestAFragmentedMessageIsNotCopiedOverAndOver(t *testing.T) {
	const size, fragment = 1 << 20, 1 << 10
	payload := bytes.Repeat([]byte("x"), size)
	var in []byte
	for at := 0; at < size; at += fragment {
		op := byte(opContinuation)
		if at == 0 {
			op = opText
		}
		in = append(in, frame{fin: at+fragment >= size, op: op, payload: payload[at : at+fragment], key: [4]byte{9, 8, 7, 6}}.bytes()...)
	}
	srv, client := wsPair(t)
	go func() { _, _ = client.Write(in) }()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	msg, err := srv.ReadMessage()
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(msg, payload) {
		t.Fatalf("the message: %d bytes, %v", len(msg), err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 8*size {
		t.Fatalf("reading a %d KiB message in %d-byte fragments allocated %d MiB", size>>10, fragment, allocated>>20)
	}
}

// A frame takes memory as its bytes arrive, not as its header claims: a
// client that announces MaxMessage and sends a few bytes costs a few bytes.
// (It cost MaxMessage, 512 MiB, at once.)
func TestAFrameTakesMemoryAsItsBytesCome(t *testing.T) {
	in := append([]byte{0x81, 0xff, 0, 0, 0, 0, 0x20, 0, 0, 0}, 1, 2, 3, 4)
	in = append(in, bytes.Repeat([]byte("x"), 100)...)
	srv, client := wsPair(t)
	go func() { _, _ = client.Write(in); client.CloseWrite() }()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := srv.ReadMessage()
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a message cut after 100 of its 512 MiB was read whole")
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 1<<20 {
		t.Fatalf("a frame that claimed %d MiB and brought 100 bytes took %d KiB", MaxMessage>>20, allocated>>10)
	}
}
