package cdp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

var upgrader = websocket.Upgrader{}

// fakeBrowser answers Target.attachToTarget with session S and then the
// client's first command (as a real browser, it sends page events only
// once the client asked for them), then sends events.
func fakeBrowser(t *testing.T, events ...string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		_, cmd, err := ws.ReadMessage()
		if err != nil || gjson.GetBytes(cmd, "method").String() != "Target.attachToTarget" {
			return
		}
		answer := `{"id":` + gjson.GetBytes(cmd, "id").Raw + `,"result":{"sessionId":"S"}}`
		_ = ws.WriteMessage(websocket.TextMessage, []byte(answer))
		if _, cmd, err = ws.ReadMessage(); err != nil {
			return
		}
		answer = `{"id":` + gjson.GetBytes(cmd, "id").Raw + `,"result":{},"sessionId":"S"}`
		_ = ws.WriteMessage(websocket.TextMessage, []byte(answer))
		for _, e := range events {
			_ = ws.WriteMessage(websocket.TextMessage, []byte(e))
		}
		_, _, _ = ws.ReadMessage() // until the relay closes
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// relayPage serves a page-level client for target T of browser through a
// relay with policy, and returns the client's connection.
func relayPage(t *testing.T, browser string, policy cdp.Policy) *websocket.Conn {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := cdp.Dial(r.Context(), browser, nil)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		relay := cdp.NewRelay(policy)
		peer, err := conn.Open(r.Context(), relay.Options(cdp.PeerOptions{Mode: cdp.Page, Target: "T"}))
		if err != nil {
			t.Error(err)
			return
		}
		client, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			peer.Close()
			return
		}
		_ = relay.Serve(context.Background(), cdp.WebSocket(client), peer)
	}))
	t.Cleanup(srv.Close)
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetReadDeadline(time.Now().Add(testutil.Guard))
	return c
}

// rewriter marks Page.b events in place and passes the rest.
type rewriter struct{}

func (rewriter) Command(*cdp.Relay, *cdp.Message) cdp.Verdict { return cdp.Verdict{} }

func (rewriter) Event(_ *cdp.Relay, m *cdp.Message) *cdp.Message {
	if m.Method == "Page.b" {
		m.Params, _ = sjson.SetBytes(m.Params, "seen", true)
	}
	return m
}

func TestEventsPassAsTheBrowserSentThem(t *testing.T) {
	events := []string{
		`{"method":"Target.targetCreated","params":{}}`, // browser level: not for a page client
		`{"method":"Page.a","params":{"html":"<b>&</b>",  "n":1},"sessionId":"S"}`,
		`{"method":"Page.b","params":{"x":1},"sessionId":"S"}`,
	}
	for _, tc := range []struct {
		name   string
		policy cdp.Policy
		want   []string
	}{
		{"no policy", nil, []string{
			`{"method":"Page.a","params":{"html":"<b>&</b>",  "n":1}}`,
			`{"method":"Page.b","params":{"x":1}}`,
		}},
		{"a policy that rewrites one", rewriter{}, []string{
			`{"method":"Page.a","params":{"html":"<b>&</b>",  "n":1}}`,
			`{"method":"Page.b","params":{"x":1,"seen":true}}`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := relayPage(t, fakeBrowser(t, events...), tc.policy)
			if err := c.WriteMessage(websocket.TextMessage, []byte(`{"id":7,"method":"Page.enable"}`)); err != nil {
				t.Fatal(err)
			}
			for _, want := range append([]string{`{"id":7,"result":{}}`}, tc.want...) {
				_, got, err := c.ReadMessage()
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want {
					t.Fatalf("got  %s\nwant %s", got, want)
				}
			}
		})
	}
}

// served is one client relayed to a peer on a real browser's connection.
type served struct {
	ws    *websocket.Conn // the client's end
	relay *cdp.Relay
	ended chan error // what Serve returned
}

// serveOn relays one WebSocket client to a peer opened with o on conn;
// tune, if set, adjusts the relay first.
func serveOn(t *testing.T, conn *cdp.Conn, o cdp.PeerOptions, tune func(*cdp.Relay)) *served {
	t.Helper()
	s := &served{relay: cdp.NewRelay(nil), ended: make(chan error, 1)}
	if tune != nil {
		tune(s.relay)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer, err := conn.Open(r.Context(), s.relay.Options(o))
		if err != nil {
			s.ended <- err
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		client, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			peer.Close()
			s.ended <- err
			return
		}
		client.SetReadLimit(cdp.MaxMessage)
		s.ended <- s.relay.Serve(context.Background(), cdp.WebSocket(client), peer)
	}))
	t.Cleanup(srv.Close)
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	s.ws = ws
	return s
}

func (s *served) call(t *testing.T, id int, msg string) string {
	t.Helper()
	msg, _ = sjson.Set(msg, "id", id)
	if err := s.ws.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	_ = s.ws.SetReadDeadline(time.Now().Add(testutil.Guard))
	for {
		_, got, err := s.ws.ReadMessage()
		if err != nil {
			t.Fatalf("waiting for answer %d: %v", id, err)
		}
		if gjson.GetBytes(got, "id").Int() == int64(id) {
			return string(got)
		}
	}
}

// closed reads until the relay closes the client, and returns the close
// frame's code and reason.
func (s *served) closed(t *testing.T) (int, string, []string) {
	t.Helper()
	_ = s.ws.SetReadDeadline(time.Now().Add(testutil.Guard))
	var got []string
	for {
		_, msg, err := s.ws.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) {
				t.Fatalf("the connection ended without a close frame: %v (after %d messages)", err, len(got))
			}
			return ce.Code, ce.Text, got
		}
		got = append(got, string(msg))
	}
}

func firstPage(t *testing.T, conn *cdp.Conn) string {
	t.Helper()
	res, err := conn.Call(context.Background(), "", "Target.getTargets", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range gjson.GetBytes(res, "targetInfos").Array() {
		if ti.Get("type").String() == "page" {
			return ti.Get("targetId").String()
		}
	}
	t.Fatal("the browser has no page")
	return ""
}

// One message is always deliverable, however it compares with the queue's
// bound: an answer larger than MaxQueued (here a bound of 1 MiB, and a
// 3 MiB answer) reaches a client that reads.
func TestAnAnswerLargerThanTheQueueArrives(t *testing.T) {
	b := pipeBrowser(t)
	s := serveOn(t, b.Conn, cdp.PeerOptions{Mode: cdp.Page, Target: firstPage(t, b.Conn)}, func(r *cdp.Relay) { cdp.SetMaxQueued(r, 1<<20) })
	const n = 3 << 20
	ans := s.call(t, 1, fmt.Sprintf(`{"method":"Runtime.evaluate","params":{"expression":"'x'.repeat(%d)","returnByValue":true}}`, n))
	if v := gjson.Get(ans, "result.result.value").String(); len(v) != n {
		t.Fatalf("the answer arrived with %d bytes: %.200s", len(v), ans)
	}
}

// The browser closes right after answering (Browser.close): the client
// gets the answer, then a close frame that tells it to reconnect.
func TestTheLastAnswersArriveAndTheClientIsToldWhy(t *testing.T) {
	b := pipeBrowser(t)
	s := serveOn(t, b.Conn, cdp.PeerOptions{Mode: cdp.Browser}, nil)
	if err := s.ws.WriteMessage(websocket.TextMessage, []byte(`{"id":1,"method":"Browser.close"}`)); err != nil {
		t.Fatal(err)
	}
	code, reason, got := s.closed(t)
	if len(got) != 1 || gjson.Get(got[0], "id").Int() != 1 || gjson.Get(got[0], "error").Exists() {
		t.Fatalf("before the close frame the client got %q, want Browser.close's answer", got)
	}
	if code != websocket.CloseServiceRestart || !strings.Contains(reason, "reconnect to the same endpoint") {
		t.Fatalf("close frame %d %q", code, reason)
	}
	if err := <-s.ended; !errors.Is(err, cdp.ErrClosed) {
		t.Fatalf("Serve returned %v", err)
	}
}

// The relay's owner ends it (the proxy drops its clients when the browser
// behind it changes): the client is told so, with Close's reason or the
// one CloseWith gives.
func TestAClosedRelayTellsItsClientWhy(t *testing.T) {
	b := pipeBrowser(t)
	s := serveOn(t, b.Conn, cdp.PeerOptions{Mode: cdp.Browser}, nil)
	s.call(t, 1, `{"method":"Browser.getVersion"}`)
	s.relay.Close()
	code, reason, _ := s.closed(t)
	if code != websocket.CloseServiceRestart || !strings.Contains(reason, "stopped, restarted or replaced; reconnect to the same endpoint") {
		t.Fatalf("close frame %d %q", code, reason)
	}
	if err := <-s.ended; err != nil {
		t.Fatalf("Serve returned %v", err)
	}

	s = serveOn(t, b.Conn, cdp.PeerOptions{Mode: cdp.Browser}, nil)
	s.call(t, 1, `{"method":"Browser.getVersion"}`)
	long := "browser-coordinator: the coordinator is exiting " + strings.Repeat("and says so at length ", 10)
	s.relay.CloseWith(websocket.CloseGoingAway, long)
	code, reason, _ = s.closed(t)
	if code != websocket.CloseGoingAway || !strings.HasPrefix(long, reason) || len(reason) > 123 {
		t.Fatalf("close frame %d %q", code, reason)
	}
	<-s.ended
}

// A slow client never blocks the browser's other clients: one that stops
// reading is cut off once more than MaxQueued waits for it (here 2 MiB),
// while another client's calls go on, before and after.
func TestASlowClientIsCutOffAndOthersGoOn(t *testing.T) {
	b := pipeBrowser(t)
	page := firstPage(t, b.Conn)
	slow := serveOn(t, b.Conn, cdp.PeerOptions{Mode: cdp.Page, Target: page}, func(r *cdp.Relay) { cdp.SetMaxQueued(r, 2<<20) })
	other := serveOn(t, b.Conn, cdp.PeerOptions{Mode: cdp.Browser}, nil)
	other.call(t, 1, `{"method":"Browser.getVersion"}`)

	// 64 answers of 1 MiB that the slow client never reads: more than the
	// sockets between it and the relay hold, and more than the bound.
	for i := range 64 {
		if err := slow.ws.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(`{"id":%d,"method":"Runtime.evaluate","params":{"expression":"'x'.repeat(1<<20)","returnByValue":true}}`, i))); err != nil {
			break // cut off already
		}
	}
	id := 2
	for {
		other.call(t, id, `{"method":"Browser.getVersion"}`)
		id++
		select {
		case err := <-slow.ended:
			if err == nil || !strings.Contains(err.Error(), "did not read") || !strings.Contains(err.Error(), "MiB of CDP messages in time") {
				t.Fatalf("the slow client's relay ended with %v", err)
			}
			// The browser and the other client are none the worse.
			for range 5 {
				if ans := other.call(t, id, `{"method":"Browser.getVersion"}`); !strings.Contains(ans, "Chrome") {
					t.Fatalf("the other client after the cut: %s", ans)
				}
				id++
			}
			return
		case <-time.After(10 * time.Millisecond):
		}
		if id > 5000 {
			t.Fatal("the slow client was never cut off")
		}
	}
}

// A client that hangs up ends Serve: nothing of the relay outlives it.
func TestServeEndsWhenTheClientHangsUp(t *testing.T) {
	b := pipeBrowser(t)
	s := serveOn(t, b.Conn, cdp.PeerOptions{Mode: cdp.Browser}, nil)
	s.ws.Close()
	select {
	case <-s.ended:
	case <-time.After(testutil.Guard):
		t.Fatal("Serve still runs after its client hung up")
	}
}
