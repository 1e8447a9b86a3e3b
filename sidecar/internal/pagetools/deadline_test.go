package pagetools

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

// A page-tool call has a deadline of its own (callMax: two navigations, a
// settle and a dialog's answer), which ends it with a clear ErrTimedOut
// on a page that never settles, however long its caller would wait. The
// Config is small so that the deadline is seconds (and turning the Network
// domain off afterwards, which a renderer busy for good never answers,
// gives up soon: whether it went off is not what this tests); the test's
// only clock is testutil.Guard, as the failure guard of a call that hangs.
func TestACallOnAPageThatNeverSettlesEndsAtItsDeadline(t *testing.T) {
	b := startBrowser(t)
	s := serveSite(t)
	// A server that takes a request and never answers it: the navigation
	// a submit starts never finishes.
	var mu sync.Mutex
	var got []string
	release := make(chan struct{})
	never := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.RequestURI())
		mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(never.Close)
	t.Cleanup(func() { close(release) })
	cfg := Config{NavTimeout: time.Second, SettleMax: time.Second, dialogWait: time.Second, networkOffMax: 100 * time.Millisecond}

	for _, tc := range []struct{ name, body string }{
		// The submit starts a navigation the server never answers.
		{"navigation", `<form action="` + never.URL + `/sent"><label>Message <input name="message"></label><button>Send message</button></form>`},
		// The submit handler keeps the page's one thread busy for good:
		// the renderer answers nothing any more.
		{"busy", `<form id="f"><label>Message <input name="message"></label><button>Send message</button></form>
<script>document.getElementById('f').addEventListener('submit', (e) => { e.preventDefault(); for (;;) {} });</script>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := b.newTab(t, s.page(tc.name+".html", `<!doctype html><title>Contact</title><h1>Contact</h1>`+tc.body), cfg)
			tb.waitTools("send_message")
			type outcome struct {
				res *Result
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				// No deadline from the caller: only the call's own ends it.
				res, err := tb.eng.Call(context.Background(), "send_message", map[string]any{"message": "hello"})
				done <- outcome{res, err}
			}()
			var o outcome
			select {
			case o = <-done:
			case <-time.After(testutil.Guard):
				t.Fatalf("the call on a page that never settles had no answer after %v: it has no deadline of its own (callMax is %v)", testutil.Guard, tb.eng.callMax())
			}
			if !errors.Is(o.err, ErrTimedOut) || !strings.Contains(o.err.Error(), "deadline") || !strings.Contains(o.err.Error(), "look at the page") {
				t.Fatalf("the call answered %v, %v; want ErrTimedOut that says the deadline ran out and what to do", o.res, o.err)
			}
			if tc.name == "navigation" {
				mu.Lock()
				defer mu.Unlock()
				want := "/sent?" + url.Values{"message": {"hello"}}.Encode()
				if len(got) != 1 || got[0] != want {
					t.Fatalf("the server received %v, want the submit's navigation %s (the case under test)", got, want)
				}
			}
		})
	}
}
