//go:build unix

package coordinator

import (
	"io"
	"net/http"
	"syscall"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func TestACallRightAfterACrashWaitsForTheRelaunch(t *testing.T) {
	// Kill the browser from outside, then call through the proxy at once
	// (a WebSocket client, /json/list on odd rounds, coordinator_open_tab's
	// OpenTab on every third): the call must reach the relaunched browser,
	// not fail on the dead one.
	c := newCoordinator(t, Config{})
	for round := range 20 {
		ctx := testutil.Context(t) // each round's dial may wait for a launch: long on a busy machine
		s, err := c.Ensure(ctx)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if err := syscall.Kill(-s.Browser.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if round%3 == 2 {
			if _, err := c.OpenTab(ctx, "about:blank", false); err != nil {
				t.Fatalf("round %d: opening a tab right after the crash: %v", round, err)
			}
		}
		if round%2 == 1 {
			resp, err := http.Get(c.Proxy().Endpoint() + "/json/list")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("round %d: /json/list right after the crash: %s %s", round, resp.Status, body)
			}
		}
		conn, err := cdp.Dial(ctx, c.Proxy().WSEndpoint(), nil)
		if err != nil {
			t.Fatalf("round %d: connecting right after the crash: %v", round, err)
		}
		if _, err := conn.Call(ctx, "", "Browser.getVersion", nil); err != nil {
			t.Fatalf("round %d: a call right after the crash: %v", round, err)
		}
		conn.Close()
		if st := c.Status(); st.State != Running || st.Browser.PID == s.Browser.PID {
			t.Fatalf("round %d: %+v", round, st)
		}
	}
}
