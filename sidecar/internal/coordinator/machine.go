package coordinator

import (
	"context"
	"fmt"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// The state machine: the one place that knows the lifecycle. All mutable
// state is one machine value, changed only through update, which checks
// the invariants after every change; the machine's tests drive it with
// fake connectors (machine_test.go).

// State is where the browser is in its lifecycle.
type State string

const (
	Idle      State = "idle"      // no browser yet; the first need starts one
	Launching State = "launching" // a start is under way; needs wait for it
	Running   State = "running"   // the browser answers CDP behind the proxy
	Stopped   State = "stopped"   // stopped on request; the next need starts one again
	Crashed   State = "crashed"   // went away on its own; the next need starts one again
)

// machine is everything about the coordinator that changes. Only update
// changes it.
type machine struct {
	state    State
	cur      *run    // what runs now
	flight   *flight // the start in progress, shared by every need
	opts     Options // what the next launch uses
	source   *Source // what the next start brings up (launching, unless set)
	fallback string  // why the source's browser was replaced by a launched one
	lastErr  error
	last     *state.Browser
	closed   bool
	launches int // starts so far (tests check the single flight)
	vscode   *VSCodeStatus
}

// check is the machine's invariants; a violation is a bug.
func (m *machine) check() {
	switch {
	case (m.state == Running) != (m.cur != nil):
		panic(fmt.Sprintf("coordinator: state %s with a current backend: %v (Running ⇔ a current backend)", m.state, m.cur != nil))
	case (m.state == Launching) != (m.flight != nil):
		panic(fmt.Sprintf("coordinator: state %s with a start in flight: %v (Launching ⇔ a flight)", m.state, m.flight != nil))
	case m.closed && m.state != Stopped:
		panic(fmt.Sprintf("coordinator: closed in state %s", m.state))
	}
}

// update applies change to the machine and checks the invariants.
func (c *Coordinator) update(change func(m *machine)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	change(&c.m)
	c.m.check()
}

// read returns a copy of the machine.
func (c *Coordinator) read() machine {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m
}

// flight is one start that any number of needs wait for.
type flight struct {
	done   chan struct{}
	err    error
	prev   State              // where a failed start returns to
	cancel context.CancelFunc // stops the start
	// takenBack says why the machine let go of the start (under c.mu):
	// ErrStopped (a stop, or Close) or errSuperseded (the source changed).
	takenBack error
}

// takeBack detaches the start in flight and the current backend from the
// machine (their owner ends them), and sets the state to final; m is c.m,
// locked. It returns what the caller must end.
func takeBack(m *machine, final State) (*flight, *run) {
	f, b := m.flight, m.cur
	m.flight, m.cur = nil, nil
	if f != nil {
		f.takenBack = ErrStopped
		if final != Stopped {
			f.takenBack = errSuperseded
		}
	}
	if f != nil || b != nil || m.state == Running || m.state == Launching {
		m.state = final
	}
	return f, b
}
