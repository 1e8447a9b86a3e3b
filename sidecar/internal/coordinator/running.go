package coordinator

import (
	"context"
	"fmt"
	"strconv"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// What the page tools' focus (package pagefocus) asks of the browser that
// runs now, without ever starting one: following the tab in front must not
// bring back a browser that was stopped.

// running is the current backend, if one runs.
func (c *Coordinator) running() (*run, error) {
	m := c.read()
	if m.state != Running || m.cur == nil {
		return nil, ErrNotRunning
	}
	return m.cur, nil
}

// Disconnected says why the browser that runs now cannot be worked in
// (an error wrapping ErrDisconnected), or nil: connected, or none runs.
func (c *Coordinator) Disconnected() error {
	b, err := c.running()
	if err != nil {
		return nil
	}
	r, ok := b.conn.(backend.Reporter)
	if !ok {
		return nil
	}
	// Outside the machine's lock: the everyday connection has its own.
	_, e := r.Everyday()
	if e == nil || e.Connected {
		return nil
	}
	return fmt.Errorf("%w: %s; nothing in it can be seen until it reconnects, and work resumes by itself when it does: "+
		"keep your browser open with the Browser Coordinator extension enabled (opening a tab wakes an extension the browser stopped)", ErrDisconnected, e.Reason)
}

// RunningTabs lists the open pages of the browser that runs now;
// ErrNotRunning when none does.
func (c *Coordinator) RunningTabs(ctx context.Context) ([]Tab, error) { return c.own.RunningTabs(ctx) }

// RunningTabs lists the agent's open pages in the browser that runs now.
func (a *Agent) RunningTabs(ctx context.Context) ([]Tab, error) {
	b, err := a.c.running()
	if err != nil {
		return nil, err
	}
	p, err := a.pagesOn(ctx, b)
	if err != nil {
		return nil, err
	}
	return p.Tabs(ctx)
}

// AttachRunningTab is AttachTab on the browser that runs now;
// ErrNotRunning when none does.
func (c *Coordinator) AttachRunningTab(ctx context.Context, tabID string, onEvent func(cdp.Message)) (*TabSession, error) {
	return c.own.AttachRunningTab(ctx, tabID, onEvent)
}

// AttachRunningTab is the agent's AttachTab on the browser that runs now.
func (a *Agent) AttachRunningTab(ctx context.Context, tabID string, onEvent func(cdp.Message)) (*TabSession, error) {
	b, err := a.c.running()
	if err != nil {
		return nil, err
	}
	return a.attachOn(ctx, b, tabID, onEvent)
}

// BackendKey names the backend that runs now ("" when none does): it
// differs for every start, so a restart or a switch of backend shows as a
// new key.
func (c *Coordinator) BackendKey() string {
	m := c.read()
	if m.state != Running {
		return ""
	}
	// Running has no start in flight: the current backend is the latest start's.
	return strconv.Itoa(m.launches)
}
