package procgroup

import (
	"os/exec"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func TestKillEndsTheWholeGroup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	// A leader with a child of its own: both go with one Kill.
	cmd := exec.Command("sh", "-c", "sleep 60 & echo $!; wait")
	out, _ := cmd.StdoutPipe()
	started := make(chan *Group, 1)
	done := make(chan error, 1)
	go func() {
		LockThread()
		g, err := Start(cmd)
		if err != nil {
			done <- err
			return
		}
		started <- g
		done <- cmd.Wait()
	}()
	var g *Group
	select {
	case g = <-started:
	case err := <-done:
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	var child int
	for _, c := range string(buf[:n]) {
		if c >= '0' && c <= '9' {
			child = child*10 + int(c-'0')
		}
	}
	if !proc.Alive(child) {
		t.Fatalf("grandchild %d not running", child)
	}
	g.Kill()
	<-done
	g.Release()
	testutil.WaitExit(t, child, testutil.Guard) // the leader's child went with it
}
