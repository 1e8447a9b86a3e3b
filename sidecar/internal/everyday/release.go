package everyday

import (
	"context"
	"errors"
	"fmt"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
)

// CloseAgentTabs closes the tabs the agent opened (through this Conn, or
// through a page the agent opened) that the user did not keep: what
// letting go of the user's browser on purpose means, before Close. The
// user's tabs, shared or not, the tabs the user kept (the popup's "Keep
// this tab") and the tabs another coordinator of the same folder opened
// (it sees them as agent tabs too, and works in them) stay. It reports how
// many tabs it closed; while the extension is disconnected it closes none
// and says why.
func (c *Conn) CloseAgentTabs(ctx context.Context) (int, error) {
	l := c.currentLink()
	if l == nil {
		return 0, errors.New(notConnected(c.Status()))
	}
	own := c.ownTabs()
	closed := 0
	var errs []error
	for _, id := range c.b.AgentTabs() {
		if !own[id] {
			continue
		}
		done := make(chan error, 1)
		l.request(body("closeTab", "tabId", id), func(_ nativemsg.Fields, err error) { done <- err })
		select {
		case err := <-done:
			if err != nil {
				errs = append(errs, fmt.Errorf("close tab %d: %w", id, err))
				continue
			}
			closed++
		case <-ctx.Done():
			return closed, fmt.Errorf("closing the agent's tabs: %w", ctx.Err())
		}
	}
	return closed, errors.Join(errs...)
}
