package cdp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The browser's messages are read from their ends (peekBrowser); every
// shape must come out as the full read and the generic rewrite have it.
func TestBrowserMessagesReadFromTheirEnds(t *testing.T) {
	const s = "8A1C2B9F0E7D6C5B4A3928171615F0E1"
	cases := []struct {
		name   string
		data   string
		fast   bool // read from the ends, without the full read
		strips bool // the answer or event is on s
	}{
		{"answer", `{"id":12,"result":{"v":1}}`, true, false},
		{"answer on a session", `{"id":12,"result":{"v":1},"sessionId":"` + s + `"}`, true, true},
		{"empty answer", `{"id":7,"result":{}}`, true, false},
		{"bare id", `{"id":7}`, true, false},
		{"error answer", `{"id":3,"error":{"code":-32000,"message":"x"},"sessionId":"` + s + `"}`, true, true},
		{"event", `{"method":"Page.loadEventFired","params":{"timestamp":1}}`, false, false},
		{"event on a session", `{"method":"Runtime.consoleAPICalled","params":{"args":[{"value":"\"sessionId\":\"x\"}"}]},"sessionId":"` + s + `"}`, true, true},
		{"a nested sessionId last", `{"method":"Target.attachedToTarget","params":{"sessionId":"` + s + `"}}`, false, false},
		{"a string that ends like one", `{"id":1,"result":{"v":"a,\"sessionId\":\"` + s + `\"}"}}`, true, false},
		{"sessionId first", `{"sessionId":"` + s + `","id":4,"result":{}}`, false, true},
		{"id after method", `{"method":"X","id":4}`, false, false},
		{"event naming an id", `{"method":"X","params":{"id":4},"sessionId":"` + s + `"}`, false, true},
		{"string id", `{"id":"4","result":{}}`, false, false},
		{"negative id", `{"id":-4,"result":{}}`, false, false},
		{"escaped method", `{"method":"A\u002eB","params":{}}`, false, false},
		{"not an object", `[1,2]`, false, false},
		// Another endpoint may end its messages otherwise: the full read.
		{"answer ending in a newline", "{\"id\":12,\"result\":{\"v\":1}}\n", false, false},
		{"answer on a session ending in a space", `{"id":12,"result":{"v":1},"sessionId":"` + s + `"} `, false, true},
		{"event on a session ending in a newline", `{"method":"Page.a","params":{},"sessionId":"` + s + "\"}\n", false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(c.data)
			got, want := peekBrowser(data), peek(data)
			if string(got.id) != string(want.id) || got.hasID != want.hasID || string(got.session) != string(want.session) || string(got.method) != string(want.method) {
				t.Fatalf("peekBrowser = id %q session %q method %q; the full read has id %q session %q method %q",
					got.id, got.session, got.method, want.id, want.session, want.method)
			}
			if fast := got.idEnd != 0 || got.sessionAt != 0; fast != c.fast {
				t.Errorf("read from its ends: %v, want %v", fast, c.fast)
			}
			strip := string(got.session) == s
			if strip != c.strips {
				t.Fatalf("session %q", got.session)
			}
			if got.hasID {
				out, err := answerAs(data, got, []byte(`{"id":"client-1"`), strip)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := rewrite(data, []byte(`"client-1"`), strip)
				if err != nil {
					t.Fatal(err)
				}
				sameJSON(t, out.join(), ref)
			} else if strip {
				out, err := eventWithout(data, got)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := withoutSession(data)
				if err != nil {
					t.Fatal(err)
				}
				sameJSON(t, out.join(), ref)
			}
		})
	}
}

func sameJSON(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// A screenshot's answer: what the connection's reader spends on it before
// the client's writer takes over.
func BenchmarkScreenshotAnswer(b *testing.B) {
	data := []byte(`{"id":12345,"result":{"data":"` + strings.Repeat("A", 15<<20) + `"},"sessionId":"8A1C2B9F0E7D6C5B4A3928171615F0E1"}`)
	b.Run("ends", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			env := peekBrowser(data)
			if _, err := answerAs(data, env, []byte(`{"id":7`), len(env.session) > 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			env := peek(data)
			if _, err := rewrite(data, []byte("7"), len(env.session) > 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
