package pagetools

import "context"

// The page's own requests a call starts (fetch and XHR: what a page shows
// the answers of, as an API explorer its response), followed while the
// call runs so that its settle waits for their answers, as Playwright MCP
// waits for the requests an action started. The Network domain is on only
// during a call.

// netState is the requests followed during a call.
type netState struct {
	on       bool
	inflight map[string]struct{}
}

type requestEvent struct {
	RequestID string `json:"requestId"`
	Type      string `json:"type"`
}

// watchNetwork turns on the Network domain for a call; off undoes it. A
// session that refuses it (a policy, an old browser) only loses the wait.
func (e *Engine) watchNetwork(ctx context.Context) (off func()) {
	e.mu.Lock()
	e.net = netState{on: true, inflight: map[string]struct{}{}}
	e.mu.Unlock()
	if _, err := e.sess.Call(ctx, "Network.enable", map[string]any{}); err != nil {
		e.locked(func() { e.net = netState{} })
		return func() {}
	}
	return func() {
		e.locked(func() { e.net = netState{} })
		// Off even when the call's context ended: the engine's own.
		_, _ = e.sess.Call(e.ctx, "Network.disable", nil)
	}
}

// onRequest follows one request of the page (Network.requestWillBeSent).
func (e *Engine) onRequest(ev requestEvent) {
	if ev.Type != "Fetch" && ev.Type != "XHR" {
		return
	}
	e.locked(func() {
		if e.net.on {
			e.net.inflight[ev.RequestID] = struct{}{}
		}
	})
}

// onRequestDone: a request was answered or failed.
func (e *Engine) onRequestDone(ev requestEvent) {
	e.locked(func() { delete(e.net.inflight, ev.RequestID) })
}

// requestsPending: requests the call started are still unanswered.
func (e *Engine) requestsPending() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.net.inflight) > 0
}
