package nativemsg

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
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
		got, ok, err := j.Add(p)
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
	if got, ok, _ := j.Add(small); !ok || !bytes.Equal(got, small) {
		t.Fatal("the joiner changed a message that is not a chunk")
	}
}

func TestJoinerRefusesOversized(t *testing.T) {
	s := NewSplitter(1000)
	j := NewJoiner(5000)
	var err error
	for _, p := range s.Split(bytes.Repeat([]byte("a"), 20000)) {
		if _, _, err = j.Add(p); err != nil {
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
