package cdpproxy

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
	"github.com/gorilla/websocket"
)

// fakeService stands in for a remote browser service (Browserless,
// Browserbase): TLS, a token header, and only a WebSocket, which it
// relays to a real browser.
func fakeService(t *testing.T, browserWS string) *httptest.Server {
	t.Helper()
	up := websocket.Upgrader{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/session" {
			http.NotFound(w, r)
			return
		}
		client, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		browser, _, err := websocket.DefaultDialer.Dial(browserWS, nil)
		if err != nil {
			client.Close()
			return
		}
		relay := func(dst, src *websocket.Conn) {
			for {
				kind, data, err := src.ReadMessage()
				if err != nil || dst.WriteMessage(kind, data) != nil {
					dst.Close()
					src.Close()
					return
				}
			}
		}
		go relay(browser, client)
		relay(client, browser)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestWebSocketOnlyServiceWithTLSAndToken(t *testing.T) {
	b := testbrowser.Launch(t, "")
	svc := fakeService(t, "ws://"+b.Addr()+b.WSPath)
	pool := svc.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	backend := Backend{Endpoint: &cdp.Endpoint{
		Addr:      strings.TrimPrefix(svc.URL, "https://"),
		TLS:       true,
		WSPath:    "/session",
		Header:    http.Header{"Authorization": {"Bearer k"}},
		NoHTTP:    true,
		TLSConfig: &tls.Config{RootCAs: pool},
	}}
	p := listen(t, static(backend))
	ctx := context.Background()

	var version map[string]string
	getJSON(t, p.Endpoint()+"/json/version", &version)
	if !strings.Contains(version["Browser"], "Chrome") || version["webSocketDebuggerUrl"] != p.WSEndpoint() {
		t.Fatalf("synthesized /json/version = %v", version)
	}
	var list []map[string]string
	getJSON(t, p.Endpoint()+"/json/list", &list)
	var page string
	for _, target := range list {
		if target["type"] == "page" {
			page = target["webSocketDebuggerUrl"]
		}
	}
	if !strings.HasPrefix(page, fmt.Sprintf("ws://127.0.0.1:%d/%s/devtools/page/", p.Port(), secret)) {
		t.Fatalf("synthesized /json/list = %v", list)
	}

	// A page-level client, served over the service's browser WebSocket.
	c, err := cdp.Dial(ctx, page, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Call(ctx, "", "Runtime.evaluate", map[string]any{"expression": "20+22", "returnByValue": true})
	if err != nil || !strings.Contains(string(res), "42") {
		t.Fatalf("evaluate on the emulated page connection: %s %v", res, err)
	}
	// Events of the page reach the page-level client, without a session id.
	events := make(chan cdp.Message, 16)
	c2, err := cdp.Dial(ctx, page, func(m cdp.Message) { events <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := c2.Call(ctx, "", "Runtime.enable", nil); err != nil {
		t.Fatal(err)
	}
	if ev := <-events; ev.Method != "Runtime.executionContextCreated" || ev.SessionID != "" {
		t.Fatalf("first event %s (session %q)", ev.Method, ev.SessionID)
	}

	// The browser endpoint is tunnelled with the token and TLS.
	bc, err := cdp.Dial(ctx, p.WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	if _, err := bc.Call(ctx, "", "Browser.getVersion", nil); err != nil {
		t.Fatal(err)
	}
	// /json/new opens a page through CDP.
	req, _ := http.NewRequest(http.MethodPut, p.Endpoint()+"/json/new?about:blank%23new", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created map[string]string
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if created["id"] == "" || created["url"] != "about:blank#new" {
		t.Fatalf("/json/new = %v", created)
	}
	resp, _ = http.Get(p.Endpoint() + "/json/protocol")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "a WebSocket only") {
		t.Fatalf("/json/protocol: %s %s", resp.Status, body)
	}
}

func TestServiceRefusesWithoutToken(t *testing.T) {
	b := testbrowser.Launch(t, "")
	svc := fakeService(t, "ws://"+b.Addr()+b.WSPath)
	pool := svc.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	p := listen(t, static(Backend{Endpoint: &cdp.Endpoint{Addr: strings.TrimPrefix(svc.URL, "https://"), TLS: true, WSPath: "/session", NoHTTP: true, TLSConfig: &tls.Config{RootCAs: pool}}}))
	resp, err := http.Get(p.Endpoint() + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "401") {
		t.Fatalf("got %s %s", resp.Status, body)
	}
}
