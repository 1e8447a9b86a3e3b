//go:build unix

package coordinator

import (
	"context"
	"syscall"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// Kept apart from coordinator_test.go: it kills a process group
// (syscall.Kill), which Windows has not, and go vet checks every OS.

func TestACallRightAfterACrashWaitsForTheRelaunch(t *testing.T) {
	// Kill the browser from outside, then call through the proxy at once:
	// the call must reach the relaunched browser, not fail on the dead one.
	c := newCoordinator(t, Config{})
	ctx := context.Background()
	for round := range 20 {
		s, err := c.Ensure(ctx)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if err := syscall.Kill(-s.Browser.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
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
