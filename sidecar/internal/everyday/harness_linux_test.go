package everyday

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

// The integration tests run the real pieces (package testutil/userbrowser):
// the sidecar binary built from this tree as the native host, the browser
// extension built by `npm run build`, and Debian's Chromium started as a
// user would start it, with no debugging port.

func TestMain(m *testing.M) {
	os.Exit(testutil.Main(m))
}

// ctxT is a context that ends with the test, bounded: d is what the wait
// takes on a quiet machine, and a busy one gets testutil.Guard.
func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), max(d, testutil.Guard))
	t.Cleanup(cancel)
	return ctx
}
