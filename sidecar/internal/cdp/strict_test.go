package cdp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/tidwall/gjson"
)

// A command is read as one strict JSON object; anything two parsers could
// read differently (Chromium took every refused text below but the BOM's,
// the NUL's and the trailing text's, or on a pipe took a NUL-split text as
// two commands) is refused, with where it went wrong.
func TestParseCommandIsStrict(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // "" accepts; else part of the error
	}{
		{`{"id":1,"method":"Browser.getVersion"}`, ""},
		{" \t\r\n{\"id\":-2,\"method\":\"Page.navigate\",\"sessionId\":\"S\",\"params\":{\"url\":\"a\\u00e9\\ud83d\\ude00\"}}\n", ""},
		{`{"id":"client-1","method":"M","params":[1,2.5e-3,true,false,null,{},[]]}`, ""},
		{`{"id":1,"method":"M","params":{"a":{"b":1},"c":{"b":2}}}`, ""}, // the same key in two objects
		{`{"id":1,"method":"M"} x`, "more follows the command"},
		{"{\"id\":1,\"method\":\"M\"}\x00", "more follows the command"},
		{"{\"id\":1,\"method\":\"M\"}\x00{\"id\":2,\"method\":\"N\"}", "more follows the command"},
		{"\xef\xbb\xbf{\"id\":1,\"method\":\"M\"}", "unexpected byte 0xef"},
		{"{\"id\":1,\"method\":\"M\",\"params\":{\"x\":\"a\nb\"}}", "control character (byte 0x0a) inside a string must be escaped"},
		{`{"id":1,"method":"M","method":"N"}`, `the key "method" appears twice`},
		{`{"id":1,"method":"M","params":{"targetId":"A","targetId":"B"}}`, `the key "targetId" appears twice`},
		{`{"id":1,"method":"M","params":{"targetId":"A","\u0074argetId":"B"}}`, `the key "targetId" appears twice`},
		{`{"id":1,"method":"M","params":{"x":"\ud800"}}`, "half of a surrogate pair"},
		{`{"id":1,"method":"M","params":{"x":"\udc00\ud800"}}`, "half of a surrogate pair"},
		{"{\"id\":1,\"method\":\"M\",\"params\":{\"x\":\"\xed\xa0\x80\"}}", "not valid UTF-8"},
		{"{\"id\":1,\"method\":\"M\xff\"}", "not valid UTF-8"},
		{`{"id":1,"method":"M","params":{"x":01}}`, "does not start with 0"},
		{`{"id":1,"method":"M","params":{"x":1,}}`, "a key (a string) was expected"},
		{`{"id":1,"method":"M","params":[1,]}`, "unexpected ']'"},
		{`{"id":1,"method":"M","params":{"x":NaN}}`, "unexpected 'N'"},
		{`{"id":1,"method":"M","params":{"x":"\x41"}}`, `unknown escape \x`},
		{`{"id":1,"method":"M","params":{"x":tru}}`, "unexpected word"},
		{`{"id":1,"method":"M","params":{"x":"a}}`, "a string is not closed"},
		{`{"id":1,"method":"M","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`, "nested deeper than 1000"},
		{`{"id":1,"method":"M","Method":"N"}`, `a member "Method"`},
		{`{"id":1,"method":"M","sessionId":5}`, "its sessionId is not a string"},
		{`{"id":{},"method":"M"}`, "its id is not a number or a string"},
		{`{"method":"M"}`, "it has no id"},
		{`{"id":1}`, "it has no method"},
		{`[1]`, "not a JSON object"},
		{``, "the text ends where a value should be"},
	} {
		m, err := cdp.ParseCommand([]byte(tc.text))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.text, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v; want an error with %q", tc.text, err, tc.want)
		case tc.want != "" && !errors.Is(err, cdp.ErrUnparsable) && !errors.Is(err, cdp.ErrNotCommand):
			t.Errorf("%q: %v is neither ErrUnparsable nor ErrNotCommand", tc.text, err)
		case tc.want == "" && (m.Method == "" || len(m.ID) == 0):
			t.Errorf("%q read as %+v", tc.text, m)
		}
	}
}

// Whatever ParseCommand accepts, encoding/json and gjson read alike: the
// same method, session and params.
func FuzzParseCommandAgreesWithOtherParsers(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"method":"Browser.getVersion"}`,
		`{"id":1,"method":"Target.attachToTarget","params":{"targetId":"A","flatten":true}}`,
		`{"id":"x","method":"M\u0065","sessionId":"S\/","params":{"a":[1,{"b":"\"\\"}],"\u0061b":-0.5E+2}}`,
		"{\"id\":1,\"method\":\"M\",\"params\":{\"x\":\"a\nb\"}}",
		`{"id":1,"method":"M","params":{"k":"A","k":"B"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := cdp.ParseCommand(data)
		if err != nil {
			return
		}
		if !json.Valid(data) || !utf8.Valid(data) {
			t.Fatalf("accepted what encoding/json refuses: %q", data)
		}
		var std struct {
			Method    string          `json:"method"`
			SessionID string          `json:"sessionId"`
			Params    json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(data, &std); err != nil || std.Method != m.Method || std.SessionID != m.SessionID || !bytes.Equal(std.Params, m.Params) {
			t.Fatalf("encoding/json reads %q as %+v (%v), ParseCommand as %+v", data, std, err, m)
		}
		g := gjson.ParseBytes(data)
		if g.Get("method").String() != m.Method || g.Get("sessionId").String() != m.SessionID {
			t.Fatalf("gjson reads %q otherwise", data)
		}
	})
}

// On a pipe a NUL ends a message: a client's text with one inside would be
// two commands to Chromium, the second on the coordinator's own session,
// outside the client's. It is refused whole, and the client's call fails
// at once with what to do.
func TestAClientsTextIsNeverSplitOnThePipe(t *testing.T) {
	b := pipeBrowser(t)
	p := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Page, Target: newPage(t, b.Conn)})
	for id, text := range map[int]string{
		1: "{\"id\":1,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"window.first = 1\"}}\x00" +
			"{\"id\":1001,\"method\":\"Target.createTarget\",\"params\":{\"url\":\"about:blank#smuggled\"}}",
		2: `{"id":2,"method":"Runtime.evaluate","params":{"expression":"window.second = 1","expression":"window.second = 2"}}`,
		3: "{\"id\":3,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"window.third = 1 // \x01\"}}",
	} {
		p.send(text)
		ans := p.answer(id)
		if msg := gjson.Get(ans, "error.message").String(); !strings.Contains(msg, "nothing of it was sent to the browser") || !strings.Contains(msg, "Send each command as one JSON object") {
			t.Errorf("command %d was answered %s", id, ans)
		}
	}
	p.send(`{"id":4,"method":"Runtime.evaluate","params":{"expression":"[typeof first, typeof second, typeof third].join()","returnByValue":true}}`)
	if v := gjson.Get(p.answer(4), "result.result.value").String(); v != "undefined,undefined,undefined" {
		t.Errorf("refused commands ran in the page: %s", v)
	}
	targets, err := b.Conn.Call(context.Background(), "", "Target.getTargets", nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(targets), "smuggled") {
		t.Errorf("the text after the NUL ran on the browser's own session: %s", targets)
	}
}

// What reading a command strictly costs, for a typical command and a 1 MiB
// script (the answers, which can be 50 MB, are never parsed).
func BenchmarkParseCommand(b *testing.B) {
	for name, text := range map[string]string{
		"typical": `{"id":12,"method":"Runtime.callFunctionOn","sessionId":"9C5E1A2B3D4F5E6A7B8C9D0E1F2A3B4C","params":{"functionDeclaration":"function(){return this.textContent}","objectId":"-123.4.5","returnByValue":true}}`,
		"1MiB":    `{"id":1,"method":"Runtime.evaluate","params":{"expression":"` + strings.Repeat(`x = \"é\";\n`, 1<<20/12) + `"}}`,
	} {
		data := []byte(text)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := cdp.ParseCommand(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/json.Valid", func(b *testing.B) { // the reference: a syntax check alone
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if !json.Valid(data) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
