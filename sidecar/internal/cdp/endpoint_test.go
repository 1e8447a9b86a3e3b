package cdp_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
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
