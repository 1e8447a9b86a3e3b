package cdp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A page's injected script (Playwright sends one of about 500 KB on each
// new document), read by the virtual browser: the strict scanner against
// encoding/json, which it replaced.
func BenchmarkReadCommand(b *testing.B) {
	data := []byte(`{"id":1,"method":"Runtime.evaluate","sessionId":"9C5E1A2B3D4F5E6A7B8C9D0E1F2A3B4C","params":{"expression":"` + strings.Repeat(`x = \"é\";\n`, 500<<10/12) + `"}}`)
	b.Run("strict", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, ok := readCommand(data); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var m vcommand
			if err := json.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// readCommand reads what it takes as encoding/json does, and leaves to it
// what it does not take.
func TestReadCommandAsEncodingJSON(t *testing.T) {
	for _, text := range []string{
		`{"id":7,"method":"Runtime.evaluate","params":{"expression":"1+1"}}`,
		`{"id":7,"method":"Page.enable","sessionId":"S1"}`,
		`{"sessionId":"S\u0031","params":null,"method":"A.\u0062","id":-3}`,
		` {"id":0,"method":"X.y","params":[1,"two"]} `,
	} {
		m, ok := readCommand([]byte(text))
		if !ok {
			t.Fatalf("readCommand refused %s", text)
		}
		var want vcommand
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m, want) {
			t.Errorf("%s: read %+v, encoding/json %+v", text, m, want)
		}
	}
	for _, text := range []string{
		`{"id":"7","method":"A.b"}`,        // a string id: encoding/json's error, as before
		`{"id":1.5,"method":"A.b"}`,        // not an int64
		`{"id":1,"method":"A.b","x":1}`,    // a key the strict scanner refuses
		`{"id":1,"method":"A.b","id":2}`,   // a key twice
		`{"ID":1,"Method":"A.b"}`,          // encoding/json's case folding
		`{"id":1,"method":""}`,             // no method
		`{"id":1,"method":"A.b"} trailing`, // not one JSON text
	} {
		if m, ok := readCommand([]byte(text)); ok {
			t.Errorf("readCommand took %s as %+v: encoding/json must read it", text, m)
		}
	}
}
