//go:build unix

package launcher

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pipepair"
)

// debuggingFlag: the browser talks CDP on file descriptors 3 (it reads) and
// 4 (it writes), and listens on no port.
const debuggingFlag = "--remote-debugging-pipe"

// link is the connection being set up between launch and ready: the
// browser's ends of the pipes are its fd 3 and 4.
type link struct {
	pipes      *pipepair.Pair
	stderrLine func(string) // nothing to learn from stderr here
}

func prepareConnection(cmd *exec.Cmd, _ string) (*link, error) {
	p, err := pipepair.New()
	if err != nil {
		return nil, err
	}
	enlarge(p.ToChild, p.FromChild)
	cmd.ExtraFiles = []*os.File{p.ChildIn, p.ChildOut} // fd 3 and 4
	return &link{pipes: p}, nil
}

// started: the browser holds its own copies of its ends; ours must close,
// or reading would never see the browser go.
func (l *link) started() { l.pipes.CloseChildEnds() }

// abandon closes our ends of a connection that will never run.
func (l *link) abandon() { l.pipes.CloseOurs() }

func (l *link) connect(context.Context, <-chan struct{}, <-chan time.Time, *slog.Logger) (*cdp.Conn, error) {
	return cdp.NewConn(cdp.Pipe(l.pipes.FromChild, l.pipes.ToChild), cdp.Options{}), nil
}
