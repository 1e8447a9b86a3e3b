//go:build hoptrace

package everyday

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// The bench's hop trace: each hop's times (ns since the epoch), written as
// JSON to $BROWSER_COORDINATOR_HOPTRACE (and cleared) on SIGUSR1.
var hopTrace struct {
	mu sync.Mutex
	t  [hopPoints][]int64
	// what passed, when BROWSER_COORDINATOR_HOPTRACE_TEXT is set: each
	// mark's point, time and the message's first bytes
	text []string
}

var (
	hopOn   = os.Getenv("BROWSER_COORDINATOR_HOPTRACE") != "" // nowhere to write: nothing kept
	hopText = os.Getenv("BROWSER_COORDINATOR_HOPTRACE_TEXT") != ""
)

func hop(p hopPoint, msg []byte) {
	if !hopOn {
		return
	}
	now := time.Now().UnixNano()
	hopTrace.mu.Lock()
	hopTrace.t[p] = append(hopTrace.t[p], now)
	if hopText {
		hopTrace.text = append(hopTrace.text, fmt.Sprintf("%d %d %.160s", p, now, msg))
	}
	hopTrace.mu.Unlock()
}

func init() {
	if !hopOn {
		return
	}
	path := os.Getenv("BROWSER_COORDINATOR_HOPTRACE")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		for range sig {
			hopTrace.mu.Lock()
			b, _ := json.Marshal(hopTrace.t)
			if hopText {
				b, _ = json.Marshal(hopTrace.text)
			}
			hopTrace.t = [hopPoints][]int64{}
			hopTrace.text = nil
			hopTrace.mu.Unlock()
			_ = os.WriteFile(path+".tmp", b, 0o600)
			_ = os.Rename(path+".tmp", path)
		}
	}()
}
