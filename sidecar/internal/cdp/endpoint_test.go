package cdp_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"
)

func TestGetJSON(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/json/version" || r.URL.RawQuery != "token=t" || r.Header.Get("Authorization") != "Bearer b" {
			http.Error(w, "wrong request "+r.URL.String(), http.StatusForbidden)
			return
		}
		fmt.Fprint(w, `{"Browser":"Chrome/1"}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	e := cdp.Endpoint{Addr: strings.TrimPrefix(srv.URL, "http://"), Query: "token=t", Header: http.Header{"Authorization": {"Bearer b"}}}
	for range 5 {
		var v struct{ Browser string }
		if err := e.GetJSON(context.Background(), "/json/version", &v); err != nil || v.Browser != "Chrome/1" {
			t.Fatalf("GetJSON: %+v %v", v, err)
		}
	}
	// The browser keeps connections alive: requests must reuse them, not
	// leave one open per request.
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for 5 requests", n)
	}
	if err := e.GetJSON(context.Background(), "/json/nothing", new(any)); err == nil {
		t.Fatal("GetJSON on a 403 succeeded")
	}
}

func TestProbeRefusesBadURLsAndSaysWhatAnswers(t *testing.T) {
	for _, bad := range []string{"", "127.0.0.1:9222", "ftp://127.0.0.1:1", "http://"} {
		if _, err := cdp.Probe(context.Background(), bad, nil); err == nil || errors.Is(err, cdp.ErrUnreachable) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := cdp.Probe(context.Background(), "http://127.0.0.1:1", nil); !errors.Is(err, cdp.ErrUnreachable) {
		t.Errorf("a dead port: %v", err)
	}
	if got := cdp.Redact("wss://u:p@svc.example/x?token=secret"); strings.Contains(got, "secret") || strings.Contains(got, "u:p") {
		t.Errorf("Redact kept credentials: %s", got)
	}
}

// An endpoint's credentials (a service token in the query, user:password)
// reach no error: errors go to status, logs, fallback reasons and the
// proxy's answers.
func TestErrorsNeverShowTheEndpointsCredentials(t *testing.T) {
	const secret = "SEKRET"
	ctx := context.Background()
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	t.Cleanup(forbidden.Close)
	fAddr := strings.TrimPrefix(forbidden.URL, "http://")
	refused := cdp.Endpoint{Addr: "127.0.0.1:1", Query: "token=" + secret, WSPath: "/devtools/browser/x?token=" + secret}
	cases := map[string]func() error{
		"Probe http, refused": func() error { _, err := cdp.Probe(ctx, "http://127.0.0.1:1/?token="+secret, nil); return err },
		"Probe http, user:password": func() error {
			_, err := cdp.Probe(ctx, "http://user:"+secret+"@127.0.0.1:1/", nil)
			return err
		},
		"Probe http, 403": func() error { _, err := cdp.Probe(ctx, forbidden.URL+"/?token="+secret, nil); return err },
		"Probe ws, refused": func() error {
			_, err := cdp.Probe(ctx, "ws://127.0.0.1:1/devtools/browser/x?token="+secret, nil)
			return err
		},
		"Probe wss, refused": func() error { _, err := cdp.Probe(ctx, "wss://u:"+secret+"@127.0.0.1:1/x", nil); return err },
		"Probe ws, 403": func() error {
			_, err := cdp.Probe(ctx, "ws://"+fAddr+"/devtools/browser/x?token="+secret, nil)
			return err
		},
		"Dial, refused": func() error {
			_, err := cdp.Dial(ctx, "ws://127.0.0.1:1/devtools/browser/x?token="+secret, nil)
			return err
		},
		"GetJSON, refused": func() error { return refused.GetJSON(ctx, "/json/version", new(any)) },
		"Do, refused": func() error {
			req, err := refused.Request(ctx, http.MethodGet, "/json/list", "client="+secret, nil)
			if err != nil {
				return err
			}
			_, err = refused.Do(req)
			return err
		},
		"DialWS, refused": func() error { _, err := refused.DialWS(ctx); return err },
		"Request, a bad URL": func() error {
			_, err := cdp.Endpoint{Addr: "127.0.0.1:1\x7f", Query: "token=" + secret}.Request(ctx, http.MethodGet, "/json", "", nil)
			return err
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			err := f()
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("the error shows the secret: %v", err)
			}
		})
	}
}

// user:password in an endpoint's URL is sent as Basic authorization, over
// HTTP and over the WebSocket, and shown nowhere; with an Authorization
// header as well, the URL is refused.
func TestURLCredentialsBecomeBasicAuthorization(t *testing.T) {
	const want = "Basic dTpwQHNz" // u:p@ss
	var seen []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != want {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/json/version" {
			fmt.Fprintf(w, `{"Browser":"Chrome/1","webSocketDebuggerUrl":"ws://%s/devtools/browser/b"}`, r.Host)
			return
		}
		ws, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		_, cmd, err := ws.ReadMessage()
		if err != nil {
			return
		}
		_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"id":`+gjson.GetBytes(cmd, "id").Raw+`,"result":{"product":"Chrome/2"}}`))
		_, _, _ = ws.ReadMessage()
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	ctx := context.Background()

	e, err := cdp.Probe(ctx, "http://u:p%40ss@"+host+"/", nil)
	if err != nil || e.Product != "Chrome/1" {
		t.Fatalf("http with user:password: %+v %v", e, err)
	}
	conn, err := e.Dial(ctx, nil) // the WebSocket carries them too
	if err != nil {
		t.Fatalf("dial the probed endpoint: %v", err)
	}
	conn.Close()
	if e, err = cdp.Probe(ctx, "ws://u:p%40ss@"+host+"/devtools/browser/b", nil); err != nil || e.Product != "Chrome/2" {
		t.Fatalf("ws with user:password: %+v %v", e, err)
	}
	conn, err = cdp.Dial(ctx, "ws://u:p%40ss@"+host+"/devtools/browser/b", nil)
	if err != nil {
		t.Fatalf("Dial with user:password: %v", err)
	}
	conn.Close()
	mu.Lock()
	for _, s := range seen {
		if !strings.HasSuffix(s, want) {
			t.Errorf("a request without the credentials: %q", s)
		}
	}
	mu.Unlock()

	_, err = cdp.Probe(ctx, "http://u:p%40ss@"+host+"/", http.Header{"Authorization": {"Bearer b"}})
	if err == nil || !strings.Contains(err.Error(), "give one of them") || strings.Contains(err.Error(), "p@ss") {
		t.Fatalf("user:password and an Authorization header: %v", err)
	}
}
