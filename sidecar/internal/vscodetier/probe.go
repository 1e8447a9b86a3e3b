package vscodetier

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/portowner"
)

var probeClient = &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 2 * time.Second}

// probe checks that port is this user's (on Linux: its listening socket's
// owner) and answers /json/version with a browser endpoint.
func probe(ctx context.Context, port int) error {
	if err := portowner.Mine(port); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+"/json/version", nil)
	if err != nil {
		return err
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return fmt.Errorf("does not answer /json/version")
	}
	defer resp.Body.Close()
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&v) != nil || v.WS == "" {
		return fmt.Errorf("answers, but not as a CDP endpoint")
	}
	return nil
}
