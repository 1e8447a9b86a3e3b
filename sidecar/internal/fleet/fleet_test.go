package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

// The real service (Browserless) is driven end to end in
// scripts/e2e/browser-service.test.mjs. Here: how a URL is read, and how
// each answer of a service becomes an error, against a stand-in that
// answers as Browserless does (429 with its queue full, 401, a handshake
// held while queued, /pressure).

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

func TestURLs(t *testing.T) {
	for _, c := range []struct {
		cfg          Config
		addr, wsPath string
		tls          bool
	}{
		{Config{URL: "https://chrome.example.com"}, "chrome.example.com:443", "/?timeout=0", true},
		{Config{URL: "wss://chrome.example.com/chromium?stealth=true"}, "chrome.example.com:443", "/chromium?stealth=true&timeout=0", true},
		{Config{URL: "http://10.0.0.5:3000/"}, "10.0.0.5:3000", "/?timeout=0", false},
		{Config{URL: "ws://10.0.0.5:3000?timeout=60000"}, "10.0.0.5:3000", "/?timeout=60000", false},
		{Config{URL: "ws://10.0.0.5:3000?timeout=60000", Session: 5 * time.Minute}, "10.0.0.5:3000", "/?timeout=300000", false},
	} {
		s, err := parse(c.cfg)
		if err != nil {
			t.Errorf("%s: %v", c.cfg.URL, err)
			continue
		}
		if s.e.Addr != c.addr || s.e.WSPath != c.wsPath || s.e.TLS != c.tls || strings.Contains(s.shown, "?") {
			t.Errorf("%s: %+v shown %s", c.cfg.URL, s.e, s.shown)
		}
	}
}

func TestACredentialInTheURLIsRefusedUnsaid(t *testing.T) {
	for _, u := range []string{"https://svc.example?token=s3cr3t", "wss://svc.example/?apiKey=s3cr3t", "https://me:s3cr3t@svc.example"} {
		_, err := Source(Config{URL: u})
		if err == nil || !strings.Contains(err.Error(), TokenEnv) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"svc.example:3000", "ftp://svc.example", "://"} {
		if _, err := Source(Config{URL: u}); err == nil {
			t.Errorf("%s: accepted", u)
		}
	}
}

// standIn answers the session route with status (0: hold the handshake
// until the client leaves, as a queue does) and /pressure with load. held
// says a handshake is being held, left that its client went.
func standIn(t *testing.T, status int, load pressure) (url string, held, left <-chan struct{}) {
	t.Helper()
	holding := make(chan struct{}, 1)
	gone := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/pressure" {
			fmt.Fprintf(w, `{"pressure":{"running":%d,"queued":%d,"maxConcurrent":%d,"maxQueued":%d}}`, load.Running, load.Queued, load.MaxConcurrent, load.MaxQueued)
			return
		}
		if status != 0 {
			http.Error(w, http.StatusText(status), status)
			return
		}
		select {
		case holding <- struct{}{}:
		default: // told once is enough
		}
		<-r.Context().Done()
		gone <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, holding, gone
}

func connect(t *testing.T, url, token string, ctx context.Context) error {
	t.Helper()
	src, err := Source(Config{URL: url, Token: token, StartTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Connector.Connect(ctx, backend.Options{})
	return err
}

func TestAFullServiceIsAtCapacity(t *testing.T) {
	url, _, _ := standIn(t, http.StatusTooManyRequests, pressure{Running: 2, Queued: 1, MaxConcurrent: 2, MaxQueued: 1})
	err := connect(t, url, "tok", context.Background())
	if !errors.Is(err, ErrAtCapacity) || !strings.Contains(err.Error(), "2 of 2 sessions running, 1 of 1 queued") {
		t.Fatalf("%v", err)
	}
}

func TestARefusedTokenNamesTheVariable(t *testing.T) {
	url, _, _ := standIn(t, 0, pressure{})
	err := connect(t, url, "wrong", context.Background())
	if err == nil || !strings.Contains(err.Error(), "refused the token") || !strings.Contains(err.Error(), TokenEnv) || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("%v", err)
	}
}

func TestAServiceThatIsNotThereIsUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	if err := connect(t, url, "tok", context.Background()); !errors.Is(err, backend.ErrUnreachable) || !strings.Contains(err.Error(), "does not answer") {
		t.Fatalf("%v", err)
	}
}

// A start that runs out of time while the service queues it says so, with
// the remedy, and leaves: the service sees the connection go.
func TestAStartThatOutlastsTheQueueGivesUp(t *testing.T) {
	url, _, left := standIn(t, 0, pressure{Running: 1, MaxConcurrent: 1, MaxQueued: 1})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := connect(t, url, "tok", ctx)
	if !errors.Is(err, ErrQueued) || len(remedy.Of(err)) != 1 || remedy.Of(err)[0].Kind != remedy.ServiceTimeout {
		t.Fatalf("%v (remedies %v)", err, remedy.Of(err))
	}
	select {
	case <-left:
	case <-time.After(testutil.Guard):
		t.Fatal("the queued connection was left open")
	}
}

// A stop cancels a start the service holds in its queue: the dialer heeds
// only deadlines, so the connection is closed under it.
func TestAStopEndsAQueuedStart(t *testing.T) {
	url, held, left := standIn(t, 0, pressure{Running: 1, MaxConcurrent: 1, MaxQueued: 1})
	ctx, cancel := context.WithCancel(context.Background())
	k := func() *connector {
		src, err := Source(Config{URL: url, Token: "tok"})
		if err != nil {
			t.Fatal(err)
		}
		return src.Connector.(*connector)
	}()
	done := make(chan error, 1)
	go func() {
		_, err := k.Connect(ctx, backend.Options{})
		done <- err
	}()
	testutil.Poll(t, "the start to say it is queued", func() bool {
		select {
		case err := <-done:
			t.Fatalf("the start ended before the stop: %v", err)
		default:
		}
		return strings.Contains(k.Waiting(), "queued") // once /pressure said the service is full
	})
	// The stop comes once the service holds the session's handshake (a
	// stop before the connection is made leaves nothing to close: on a
	// busy machine the test waited for good for a client that never came).
	select {
	case <-held:
	case <-time.After(testutil.Guard):
		t.Fatal("the session's handshake never reached the service")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%v", err)
		}
	case <-time.After(testutil.Guard):
		t.Fatal("a stop did not end the queued start")
	}
	select {
	case <-left:
	case <-time.After(testutil.Guard):
		t.Fatal("the service never saw the queued connection go")
	}
	if k.Waiting() != "" {
		t.Fatalf("still waiting: %q", k.Waiting())
	}
}
