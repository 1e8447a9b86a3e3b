//go:build unix

package launcher

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// debuggingFlag: the browser talks CDP on file descriptors 3 (it reads) and
// 4 (it writes), and listens on no port.
const debuggingFlag = "--remote-debugging-pipe"

// link is the connection being set up between launch and ready.
type link struct {
	toBrowser, fromBrowser *os.File     // our ends
	browserIn, browserOut  *os.File     // the browser's ends, fd 3 and 4
	stderrLine             func(string) // nothing to learn from stderr here
}

func prepareConnection(cmd *exec.Cmd, _ string) (*link, error) {
	in, toBrowser, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromBrowser, out, err := os.Pipe()
	if err != nil {
		in.Close()
		toBrowser.Close()
		return nil, err
	}
	enlarge(toBrowser, fromBrowser)
	cmd.ExtraFiles = []*os.File{in, out} // fd 3 and 4
	return &link{toBrowser: toBrowser, fromBrowser: fromBrowser, browserIn: in, browserOut: out}, nil
}

// started: the browser holds its own copies of its ends; ours must close,
// or reading would never see the browser go.
func (l *link) started() {
	l.browserIn.Close()
	l.browserOut.Close()
}

// abandon closes our ends of a connection that will never run.
func (l *link) abandon() {
	l.toBrowser.Close()
	l.fromBrowser.Close()
}

func (l *link) connect(context.Context, <-chan struct{}, <-chan time.Time, *slog.Logger) (*cdp.Conn, error) {
	return cdp.NewConn(cdp.Pipe(l.fromBrowser, l.toBrowser), cdp.Options{}), nil
}
