package cdp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
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
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
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

// A client that hangs up ends Serve: nothing of the relay outlives it.
func TestServeEndsWhenTheClientHangsUp(t *testing.T) {
	browser := fakeBrowser(t)
	served := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := cdp.Dial(r.Context(), browser, nil)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		relay := cdp.NewRelay(nil)
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
		served <- relay.Serve(context.Background(), cdp.WebSocket(client), peer)
	}))
	defer srv.Close()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve still runs after its client hung up")
	}
}
