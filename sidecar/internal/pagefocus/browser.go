package pagefocus

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
)

// Browser is what the tracker needs of the coordinator. None of it starts
// a browser: page tools follow the browser that runs, they never bring one
// back.
type Browser interface {
	// FrontTab is the tab in front, known without asking the browser.
	FrontTab() (backend.Tab, bool)
	// RunningTabs lists the open tabs (backend.ErrNotRunning: none runs).
	RunningTabs(ctx context.Context) ([]backend.Tab, error)
	// AttachTab attaches a session of the coordinator's own to a tab; its
	// events reach onEvent on the connection's reading goroutine.
	AttachTab(ctx context.Context, tabID string, onEvent func(method string, params json.RawMessage)) (Session, error)
	// BackendKey names the running backend; "" when none runs.
	BackendKey() string
	// Disconnected says why the browser that runs cannot be worked in now
	// (the user's own browser while its extension is away), or nil.
	Disconnected() error
	// Subscribe follows the coordinator's events (PagesChanged, StateChanged).
	Subscribe() (<-chan backend.Event, func())
}

// Session is a CDP session on one tab, the tracker's to close.
type Session interface {
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
	// Done is closed when the session ends under its owner (its connection
	// went).
	Done() <-chan struct{}
	Close()
}

// Engine is what the tracker uses of a page-tools engine
// (*pagetools.Engine; a fake in tests).
type Engine interface {
	HandleEvent(method string, params json.RawMessage)
	Start(ctx context.Context) error
	Tools() []pagetools.Tool
	Changed() <-chan struct{}
	Page() (url, title string)
	View() pagetools.View
	Discover(ctx context.Context) ([]pagetools.Tool, error)
	CallOn(ctx context.Context, doc pagetools.Document, name string, args map[string]any) (*pagetools.Result, error)
	Dialog() (pagetools.Dialog, bool)
	HandleDialog(ctx context.Context, accept bool, promptText *string) (*pagetools.Result, error)
	Close(ctx context.Context) error
}

// NewEngine makes the real engine.
func NewEngine(sess pagetools.Session, cfg pagetools.Config) Engine { return pagetools.New(sess, cfg) }

// Running is what the tracker asks of the coordinator (a
// *coordinator.Coordinator): the browser that runs now, never starting one.
type Running interface {
	FrontTab() (backend.Tab, bool)
	RunningTabs(ctx context.Context) ([]backend.Tab, error)
	AttachRunningTab(ctx context.Context, tabID string, onEvent func(cdp.Message)) (*backend.TabSession, error)
	BackendKey() string
	Disconnected() error
	Subscribe() (<-chan backend.Event, func())
}

// Coordinator is c as a Browser.
func Coordinator(c Running) Browser { return coord{c} }

type coord struct{ c Running }

func (k coord) FrontTab() (backend.Tab, bool) { return k.c.FrontTab() }
func (k coord) RunningTabs(ctx context.Context) ([]backend.Tab, error) {
	return k.c.RunningTabs(ctx)
}
func (k coord) BackendKey() string                        { return k.c.BackendKey() }
func (k coord) Disconnected() error                       { return k.c.Disconnected() }
func (k coord) Subscribe() (<-chan backend.Event, func()) { return k.c.Subscribe() }
func (k coord) AttachTab(ctx context.Context, tabID string, onEvent func(string, json.RawMessage)) (Session, error) {
	s, err := k.c.AttachRunningTab(ctx, tabID, func(m cdp.Message) { onEvent(m.Method, m.Params) })
	if err != nil {
		return nil, err
	}
	return s, nil
}

// lateSession is the engine's session: the engine is made before the tab
// is attached (so that no event of the new session is missed), and the
// session is set once it exists.
type lateSession struct {
	mu   sync.Mutex
	sess Session
}

func (l *lateSession) set(s Session) {
	l.mu.Lock()
	l.sess = s
	l.mu.Unlock()
}

func (l *lateSession) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	l.mu.Lock()
	s := l.sess
	l.mu.Unlock()
	if s == nil {
		return nil, errors.New("page tools: the tab is not attached yet")
	}
	return s.Call(ctx, method, params)
}
