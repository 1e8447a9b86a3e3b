package launcher

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"strconv"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// debuggingFlag: on Windows Chromium reads its pipe from the C runtime's file
// descriptors 3 and 4, which Go cannot hand to a child; the browser listens on
// a loopback port instead (port 0: a fixed port that is taken makes it bind
// [::1] silently), and the coordinator opens one WebSocket to it. Not tested
// here (no Windows); the README says the port is open while it runs.
const debuggingFlag = "--remote-debugging-port=0"

type link struct {
	listening  chan endpoint
	portFile   chan endpoint
	stopWatch  func()
	stderrLine func(string)
}

func prepareConnection(_ *exec.Cmd, userDataDir string) (*link, error) {
	l := &link{listening: make(chan endpoint, 1), portFile: make(chan endpoint, 1)}
	// Watched before the spawn so that the file's creation cannot be missed.
	l.stopWatch = watchActivePort(userDataDir, l.portFile)
	found := false
	l.stderrLine = func(line string) {
		if ep, ok := parseListening(line); ok && !found {
			found = true
			l.listening <- ep
		}
	}
	return l, nil
}

func (l *link) started() {}

func (l *link) abandon() { l.stopWatch() }

func (l *link) connect(ctx context.Context, exited <-chan struct{}, deadline <-chan time.Time, _ *slog.Logger) (*cdp.Conn, error) {
	defer l.stopWatch()
	var ep endpoint
	select {
	case ep = <-l.listening:
	case ep = <-l.portFile:
	case <-exited:
		return nil, ErrExited
	case <-deadline:
		return nil, ErrTimeout
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	conn, err := cdp.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(ep.port)+ep.path, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to the browser's port %d: %w", ep.port, err)
	}
	return conn, nil
}
