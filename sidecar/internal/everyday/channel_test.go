package everyday

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
	"github.com/gorilla/websocket"
)

// The channel's door: each attempt that is not this user's extension with
// this link's secret is refused before the upgrade, and leaves the offer
// standing for the extension; the extension's own attempt gets the proof
// first. (The real extension opening it in a real Chromium: every test of
// integration_linux_test.go.)

func openChannels(t *testing.T) *channels {
	t.Helper()
	ch, err := listenChannels(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); ch.serve() }()
	t.Cleanup(func() { ch.close(); <-done })
	return ch
}

const theExtension = "chrome-extension://" + extensionIDForTest

func dialChannel(url, origin string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	d := websocket.Dialer{HandshakeTimeout: testutil.Guard}
	return d.Dial(url, h)
}

// accepted says whether an offer was taken, without waiting.
func accepted(o *offer) bool {
	select {
	case ws := <-o.accepted:
		ws.Close()
		return true
	default:
		return false
	}
}

func TestTheChannelTakesOnlyTheExtensionWithItsSecret(t *testing.T) {
	ch := openChannels(t)
	o := ch.offer(extensionIDForTest)
	other := strings.TrimSuffix(o.URL, o.Secret) + strings.Repeat("0", len(o.Secret))
	for _, try := range []struct{ name, url, origin, want string }{
		{"a guessed secret", other, theExtension, "a secret it was not given"},
		{"no secret", strings.TrimSuffix(o.URL, o.Secret), theExtension, "a secret it was not given"},
		{"a web page on this machine", o.URL, "http://127.0.0.1:8080", "only the Browser Coordinator extension"},
		{"a web page that names itself null", o.URL, "null", "only the Browser Coordinator extension"},
		{"another extension", o.URL, "chrome-extension://abcdefghijklmnopabcdefghijklmnop", "only the Browser Coordinator extension"},
		{"a program that sends no Origin", o.URL, "", "only the Browser Coordinator extension"},
	} {
		ws, resp, err := dialChannel(try.url, try.origin)
		if err == nil {
			ws.Close()
			t.Fatalf("%s: the channel opened", try.name)
		}
		body := ""
		if resp != nil {
			b, _ := io.ReadAll(resp.Body)
			body = string(b)
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden || !strings.Contains(body, try.want) {
			t.Fatalf("%s: %v %q", try.name, err, body)
		}
		if accepted(o) {
			t.Fatalf("%s: the offer was taken", try.name)
		}
	}
	// Not a WebSocket: refused too.
	req, _ := http.NewRequest("GET", "http"+strings.TrimPrefix(o.URL, "ws"), nil)
	req.Header.Set("Origin", theExtension)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a plain GET: %v %v", resp, err)
	}
	resp.Body.Close()

	// The extension, with the secret: the coordinator proves itself first.
	ws, _, err := dialChannel(o.URL, theExtension)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_ = ws.SetReadDeadline(time.Now().Add(testutil.Guard))
	_, first, err := ws.ReadMessage()
	if err != nil || string(first) != `{"type":"channel","proof":"`+o.Proof+`"}` {
		t.Fatalf("the first message: %s, %v", first, err)
	}
	select {
	case ws := <-o.accepted:
		ws.Close()
	case <-time.After(testutil.Guard):
		t.Fatal("the offer was not taken")
	}
	// Once: the same secret opens nothing again.
	if ws2, resp, err := dialChannel(o.URL, theExtension); err == nil || resp.StatusCode != http.StatusForbidden {
		if ws2 != nil {
			ws2.Close()
		}
		t.Fatalf("the secret opened the channel twice: %v", err)
	}
	// A new offer withdraws the old one.
	o1 := ch.offer(extensionIDForTest)
	o2 := ch.offer(extensionIDForTest)
	if _, resp, err := dialChannel(o1.URL, theExtension); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatal("a withdrawn offer opened the channel")
	}
	if ws, _, err := dialChannel(o2.URL, theExtension); err != nil {
		t.Fatalf("the current offer: %v", err)
	} else {
		ws.Close()
	}
}

// A web page in a real browser, handed the URL with its secret, cannot open
// the channel: the browser writes the page's own Origin, which is refused,
// and the offer stays for the extension.
func TestAPageCannotOpenTheChannel(t *testing.T) {
	ch := openChannels(t)
	o := ch.offer(extensionIDForTest)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<title>hostile</title>")
	}))
	defer page.Close()
	b := testbrowser.Launch(t, page.URL)

	var targets []struct{ Type, URL, WebSocketDebuggerURL string }
	testutil.Poll(t, "the hostile page to load", func() bool {
		resp, err := http.Get("http://" + b.Addr() + "/json/list")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		_ = json.NewDecoder(resp.Body).Decode(&targets)
		for _, tg := range targets {
			if tg.Type == "page" && strings.HasPrefix(tg.URL, page.URL) {
				return true
			}
		}
		return false
	})
	var wsURL string
	for _, tg := range targets {
		if tg.Type == "page" && strings.HasPrefix(tg.URL, page.URL) {
			wsURL = tg.WebSocketDebuggerURL
		}
	}
	c, _, err := websocket.DefaultDialer.Dial(wsURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	expr := `new Promise((done) => {
		const ws = new WebSocket(` + strconv.Quote(o.URL) + `);
		ws.onmessage = (e) => done('opened: ' + e.data);
		ws.onclose = (e) => done('closed ' + e.code);
	})`
	_ = c.SetReadDeadline(time.Now().Add(testutil.Guard))
	var answer struct {
		ID     int
		Result struct{ Result struct{ Value string } }
		Error  *struct{ Message string }
	}
	var raw json.RawMessage
	// Listed is not loaded: an evaluation that meets the page's document
	// being replaced is asked again.
	for id := 1; ; id++ {
		if err := c.WriteJSON(map[string]any{"id": id, "method": "Runtime.evaluate", "params": map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}}); err != nil {
			t.Fatal(err)
		}
		for answer.ID != id {
			if err := c.ReadJSON(&raw); err != nil {
				t.Fatal(err)
			}
			answer.Error = nil
			_ = json.Unmarshal(raw, &answer)
		}
		if answer.Error == nil || !strings.Contains(answer.Error.Message, "context was destroyed") {
			break
		}
	}
	if got := answer.Result.Result.Value; got != "closed 1006" {
		t.Fatalf("the page's WebSocket: %s", raw)
	}
	if accepted(o) {
		t.Fatal("a web page took the offer")
	}
}
