package pagetools

import "context"

// The page's own requests a call starts (fetch and XHR: what a page shows
// the answers of, as an API explorer its response), followed while the
// call runs so that its settle waits for their answers, as Playwright MCP
// waits for the requests an action started. The Network domain is on only
// during a call; the requests are in tabState.requests (events.go).

// watchNetwork turns on the Network domain for a call; off undoes it. A
// session that refuses it (a policy, an old browser) only loses the wait.
func (e *Engine) watchNetwork(ctx context.Context) (off func()) {
	e.locked(func() { e.tab.requests = map[string]bool{} })
	if _, err := e.sess.Call(ctx, "Network.enable", map[string]any{}); err != nil {
		e.locked(func() { e.tab.requests = nil })
		return func() {}
	}
	return func() {
		e.locked(func() { e.tab.requests = nil })
		// Off even when the call's context ended: the engine's own, with
		// a bound of its own. A renderer that is busy for good (a script
		// that never returns) answers nothing, and the call's answer must
		// not wait for it; left on, the domain only sends events that are
		// no longer followed (requests is nil).
		ctx, cancel := context.WithTimeout(e.ctx, e.cfg.networkOffMax)
		defer cancel()
		_, _ = e.sess.Call(ctx, "Network.disable", nil)
	}
}

// requestsPending: requests the call started are still unanswered.
func (e *Engine) requestsPending() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.tab.requests) > 0
}
