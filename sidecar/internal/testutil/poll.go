package testutil

import (
	"context"
	"testing"
	"time"
)

// Guard bounds a wait that only a failure makes long. It is generous on
// purpose: a busy machine (a CI runner beside other work) must never fail a
// test by being slow; a correct run never waits for it.
const Guard = 2 * time.Minute

// Poll waits until cond holds, looking again every few milliseconds, for a
// state that nothing announces (what a page's script returns, a browser's
// own bookkeeping); it fails the test after Guard. Where an event, a file
// or a message says the state changed, wait for that instead.
func Poll(t testing.TB, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	guard := time.After(Guard)
	for !cond() {
		select {
		case <-tick.C:
		case <-guard:
			t.Fatalf("%s: still not so after %v", what, Guard)
		}
	}
}

// Context is a context that ends after Guard, or with the test: for calls
// that wait on real work (a browser launching behind a proxy's handshake).
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), Guard)
	t.Cleanup(cancel)
	return ctx
}
