package nativemsg

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFrameRoundTrip(t *testing.T) {
	for _, order := range []binary.ByteOrder{binary.NativeEndian, binary.LittleEndian} {
		var buf bytes.Buffer
		msgs := [][]byte{[]byte(`{"type":"hello"}`), []byte(`{}`), bytes.Repeat([]byte("a"), 70000)}
		for _, m := range msgs {
			if err := WriteFrame(&buf, order, m); err != nil {
				t.Fatal(err)
			}
		}
		for _, want := range msgs {
			got, err := ReadFrame(&buf, order, 1<<20)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("read %d bytes (%v), want %d", len(got), err, len(want))
			}
		}
		if _, err := ReadFrame(&buf, order, 1<<20); !errors.Is(err, io.EOF) {
			t.Fatalf("at the end: %v, want EOF", err)
		}
	}
}

func TestFrameLimitsAndTruncation(t *testing.T) {
	var buf bytes.Buffer
	_ = WriteFrame(&buf, binary.LittleEndian, bytes.Repeat([]byte("x"), 100))
	if _, err := ReadFrame(&buf, binary.LittleEndian, 99); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a frame over the limit: %v", err)
	}
	buf.Reset()
	_ = WriteFrame(&buf, binary.LittleEndian, []byte(`{"type":"x"}`))
	cut := bytes.NewReader(buf.Bytes()[:buf.Len()-3])
	if _, err := ReadFrame(cut, binary.LittleEndian, 100); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a cut frame: %v", err)
	}
}

// Messages over a hop's limit cross in chunks that each fit, are valid
// JSON (never cutting a UTF-8 sequence) and join back to the message.
func TestSplitJoin(t *testing.T) {
	msg, _ := json.Marshal(map[string]any{"type": "command", "params": map[string]string{
		"expression": strings.Repeat(`é"\😀`, 200_000), // multi-byte runes and characters JSON escapes
	}})
	s := NewSplitter(MaxToExtension)
	parts := s.Split(msg)
	if len(parts) < 2 {
		t.Fatalf("a %d-byte message was not split", len(msg))
	}
	j := NewJoiner(MaxSocketMessage)
	var whole []byte
	for i, p := range parts {
		if len(p) > MaxToExtension {
			t.Fatalf("chunk %d is %d bytes, over %d", i, len(p), MaxToExtension)
		}
		if !json.Valid(p) || !utf8.Valid(p) {
			t.Fatalf("chunk %d is not valid JSON", i)
		}
		f, err := Scan(p)
		if err != nil || f.Type != "chunk" {
			t.Fatalf("chunk %d: %v", i, err)
		}
		got, ok, err := j.Add(f)
		if err != nil {
			t.Fatal(err)
		}
		if ok != (i == len(parts)-1) {
			t.Fatalf("chunk %d of %d: complete=%v", i, len(parts), ok)
		}
		whole = got
	}
	if !bytes.Equal(whole, msg) {
		t.Fatal("the joined message differs from the original")
	}
	// A small message passes through both untouched.
	small := []byte(`{"type":"result","id":1}`)
	if p := s.Split(small); len(p) != 1 || !bytes.Equal(p[0], small) {
		t.Fatalf("a small message was changed: %q", p)
	}
}

func TestJoinerRefusesOversized(t *testing.T) {
	s := NewSplitter(1000)
	j := NewJoiner(5000)
	var err error
	for _, p := range s.Split(bytes.Repeat([]byte("a"), 20000)) {
		f, _ := Scan(p)
		if _, _, err = j.Add(f); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("joining past the limit: %v", err)
	}
}

func TestTypeOf(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"hello","x":[1,2]}`: "hello",
		` {"id":1,"type":"result"}`:  "result",
		`{"id":1}`:                   "",
		`[1,2]`:                      "",
		`nonsense`:                   "",
		`{"type":5}`:                 "",
	} {
		got, err := TypeOf([]byte(in))
		if got != want || (want == "") != (err != nil) {
			t.Errorf("TypeOf(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestMismatchMessageSaysWhatToUpdate(t *testing.T) {
	if m := MismatchMessage(1, 2); !strings.Contains(m, "update the browser extension") {
		t.Fatal(m)
	}
	if m := MismatchMessage(3, 2); !strings.Contains(m, "update browser-coordinator") {
		t.Fatal(m)
	}
}

// A frame's length is only a claim: memory follows the bytes that arrive.
// A peer that claims 200 MiB and sends ten bytes costs the reader a chunk,
// not 200 MiB; one that claims more than the limit is refused unread.
func TestAClaimedLengthIsNotAllocated(t *testing.T) {
	const claimed = 200 << 20
	frame := binary.LittleEndian.AppendUint32(nil, claimed)
	frame = append(frame, `{"type":"`...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadFrame(bytes.NewReader(frame), binary.LittleEndian, MaxSocketMessage)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "209715200-byte message (9 bytes came)") {
		t.Fatalf("a cut 200 MiB frame: %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("reading 9 bytes of a claimed 200 MiB frame allocated %d bytes", grew)
	}

	over := bytes.NewReader(binary.NativeEndian.AppendUint32(nil, MaxFromExtension+1))
	if _, err := ReadFrame(over, binary.NativeEndian, MaxFromExtension); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the limit is 67108864") {
		t.Fatalf("a frame over the limit: %v", err)
	}
}

// A frame that has begun must keep coming: a peer that sends a length and
// stops is cut off after the stall, and the connection's deadline is
// cleared again afterwards.
func TestAStalledFrameEnds(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() {
		_, _ = b.Write(binary.LittleEndian.AppendUint32(nil, 100))
		_, _ = b.Write([]byte(`{"ty`))
	}()
	done := make(chan error, 1)
	go func() {
		f := FrameReader{R: a, Order: binary.LittleEndian, Limit: MaxSocketMessage, Stall: 100 * time.Millisecond}
		_, err := f.Read()
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "100-byte message (4 bytes came)") {
			t.Fatalf("a stalled frame: %v", err)
		}
	case <-time.After(30 * time.Second): // a failure guard only
		t.Fatal("a stalled frame held the reader")
	}
	// The deadline is gone: the next frame is read however late it starts.
	go func() { _ = WriteFrame(b, binary.LittleEndian, []byte(`{"type":"late"}`)) }()
	if got, err := ReadFrame(a, binary.LittleEndian, MaxSocketMessage); err != nil || string(got) != `{"type":"late"}` {
		t.Fatalf("after a stall: %q, %v", got, err)
	}
}

// Scan reads the members routing needs and leaves the rest as the bytes
// they are: a value is a slice of the message, one whole JSON value.
func TestScanLeavesValuesAsTheyCame(t *testing.T) {
	msg := []byte(` {"params": {"a":[1,{"b":"}\"]"}],"c":null} ,"type":"cdpEvent","tabId":7,"client":"c\u00e9","sessionId":"S","method":"Page.x","id":12,"result":"r"} `)
	f, err := Scan(msg)
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != "cdpEvent" || f.TabID != 7 || f.ID != 12 || f.Client != "cé" || f.SessionID != "S" || f.Method != "Page.x" {
		t.Fatalf("fields: %+v", f)
	}
	if string(f.Params) != `{"a":[1,{"b":"}\"]"}],"c":null}` || string(f.Result) != `"r"` {
		t.Fatalf("raw values: %s %s", f.Params, f.Result)
	}
	if &f.Params[0] != &msg[12] {
		t.Fatal("params were copied")
	}
	for _, bad := range []string{``, `[]`, `{}`, `{"type":"x"`, `{"type":"x",}`, `{"type":"x"} {}`, `{"type":"x","a":[1,}`, `{"type":"x","a":"` + "\x01" + `"}`, `{"type":1}`, strings.Repeat(`{"a":`, 2000)} {
		if _, err := Scan([]byte(bad)); !errors.Is(err, ErrNotMessage) {
			t.Errorf("Scan(%.40q) = %v, want ErrNotMessage", bad, err)
		}
	}
	var got []string
	if err := Each([]byte(` [ {"type":"a"} , {"type":"b","x":[1,2]} ]`), func(m []byte) error { got = append(got, string(m)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1] != `{"type":"b","x":[1,2]}` {
		t.Fatalf("Each: %q", got)
	}
}

// A string is escaped as a browser's JSON parser takes it: invalid UTF-8
// becomes U+FFFD rather than a message the browser refuses.
func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":           `"plain"`,
		"q\"b\\n\n\t\x01": `"q\"b\\n\n\t\u0001"`,
		"é😀":              `"é😀"`,
		"bad\xffbyte":     `"bad\ufffdbyte"`,
	} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
	}
	whole, rest := CutRune([]byte("ab\xf0\x9f"))
	if string(whole) != "ab" || string(rest) != "\xf0\x9f" {
		t.Fatalf("CutRune: %q %q", whole, rest)
	}
	if whole, rest := CutRune([]byte("abé")); string(whole) != "abé" || rest != nil {
		t.Fatalf("CutRune of whole characters: %q %q", whole, rest)
	}
}

// A frame whose length stops halfway ends after the stall too.
func TestAHalfLengthEnds(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() { _, _ = b.Write([]byte{1, 0}) }()
	f := FrameReader{R: a, Order: binary.LittleEndian, Limit: MaxSocketMessage, Stall: 100 * time.Millisecond}
	if _, err := f.Read(); !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "2 of 4 bytes came") {
		t.Fatalf("a length that stopped halfway: %v", err)
	}
}
