package vscodetier

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/portowner"
)

// probe checks that port is this user's (on Linux: its listening socket's
// owner) and answers /json/version with a browser endpoint.
func probe(ctx context.Context, port int) error {
	if err := portowner.Mine(port); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := cdp.Probe(ctx, "http://127.0.0.1:"+strconv.Itoa(port), nil); err != nil {
		return fmt.Errorf("does not answer as a CDP endpoint (%v)", err)
	}
	return nil
}
