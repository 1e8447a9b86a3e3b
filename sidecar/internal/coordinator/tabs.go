package coordinator

import (
	"context"
	"errors"
	"fmt"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// The tab tools work on the current backend's pages, starting a browser
// first if none is there: the pages an agent sees (agents.go; the
// Coordinator's own methods are its own agent's).

func (a *Agent) withPages(ctx context.Context) (backend.Pages, error) {
	b, err := a.c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	return a.pagesOn(ctx, b)
}

// onNextIfGone runs f on the current backend's pages; when the browser
// went away under it (it crashed a moment before), f runs again on the next
// one, as a call that came a moment later would. Only for what does not
// name a tab: a tab of the browser that went is gone with it.
func onNextIfGone[T any](ctx context.Context, a *Agent, f func(backend.Pages) (T, error)) (T, error) {
	const attempts = 3
	for attempt := 1; ; attempt++ {
		p, err := a.withPages(ctx)
		if err != nil {
			var zero T
			return zero, err
		}
		v, err := f(p)
		if err == nil || attempt == attempts || !errors.Is(err, cdp.ErrClosed) || ctx.Err() != nil {
			return v, err
		}
	}
}

// Tabs lists the open pages, the one in front marked. While the browser
// that runs cannot be seen (the user's own, its extension away) it
// answers why (ErrDisconnected), never an empty list.
func (c *Coordinator) Tabs(ctx context.Context) ([]Tab, error) { return c.own.Tabs(ctx) }

// Tabs lists the agent's open pages, the one in front marked.
func (a *Agent) Tabs(ctx context.Context) ([]Tab, error) {
	return onNextIfGone(ctx, a, func(p backend.Pages) ([]Tab, error) {
		tabs, err := p.Tabs(ctx)
		if err == nil {
			err = a.c.Disconnected() // away (now, or while listing): the list says nothing
		}
		if err != nil {
			return nil, err
		}
		return tabs, nil
	})
}

// OpenTab opens url in a new page; with focus it is brought to the front.
// A URL CheckOpen refuses opens nothing.
func (c *Coordinator) OpenTab(ctx context.Context, url string, focus bool) (Tab, error) {
	return c.own.OpenTab(ctx, url, focus)
}

// OpenTab opens url in a new page of the agent's.
func (a *Agent) OpenTab(ctx context.Context, url string, focus bool) (Tab, error) {
	if url == "" {
		url = "about:blank"
	}
	if err := a.c.CheckOpen(url); err != nil {
		return Tab{}, err
	}
	return onNextIfGone(ctx, a, func(p backend.Pages) (Tab, error) { return p.Open(ctx, url, focus) })
}

// CheckOpen refuses a URL the coordinator opens in no backend: a file: URL,
// unless Config.Reach allows local files (the error wraps a
// *reach.FileError). Whatever opens a tab or loads a page for the agent
// asks it first.
func (c *Coordinator) CheckOpen(url string) error {
	if err := c.cfg.Reach.CheckFile(url); err != nil {
		return &BadRequestError{err: fmt.Errorf("url %s refused: %w", url, err)}
	}
	return nil
}

// FocusTab brings a page to the front.
func (c *Coordinator) FocusTab(ctx context.Context, id string) (Tab, error) {
	return c.own.FocusTab(ctx, id)
}

// FocusTab brings one of the agent's pages to the front.
func (a *Agent) FocusTab(ctx context.Context, id string) (Tab, error) {
	p, err := a.withPages(ctx)
	if err != nil {
		return Tab{}, err
	}
	return p.Focus(ctx, id)
}

// CloseTab closes a page.
func (c *Coordinator) CloseTab(ctx context.Context, id string) error { return c.own.CloseTab(ctx, id) }

// CloseTab closes one of the agent's pages.
func (a *Agent) CloseTab(ctx context.Context, id string) error {
	p, err := a.withPages(ctx)
	if err != nil {
		return err
	}
	return p.Close(ctx, id)
}

// AttachTab attaches a session of the coordinator's own to the tab with
// this id (a page, or VS Code's browser view), starting a browser first if
// none is there. The session's events reach onEvent, decoded, on the
// connection's reading goroutine: it must not block.
func (c *Coordinator) AttachTab(ctx context.Context, tabID string, onEvent func(cdp.Message)) (*TabSession, error) {
	return c.own.AttachTab(ctx, tabID, onEvent)
}

// AttachTab attaches a session of the coordinator's own to one of the
// agent's tabs.
func (a *Agent) AttachTab(ctx context.Context, tabID string, onEvent func(cdp.Message)) (*TabSession, error) {
	b, err := a.c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	return a.attachOn(ctx, b, tabID, onEvent)
}

// attachOn attaches to tab tabID of b, when it is one of the agent's.
func (a *Agent) attachOn(ctx context.Context, b *run, tabID string, onEvent func(cdp.Message)) (*TabSession, error) {
	if a.c.Isolated() {
		p, err := a.pagesOn(ctx, b)
		if err != nil {
			return nil, err
		}
		if err := p.(scopedPages).check(ctx, tabID); err != nil {
			return nil, err
		}
	}
	return b.attachTab(ctx, tabID, onEvent)
}

func (b *run) attachTab(ctx context.Context, tabID string, onEvent func(cdp.Message)) (*TabSession, error) {
	o := cdp.PeerOptions{Mode: cdp.Page, Target: tabID, OnEvent: onEvent}
	if conn := b.proxy.Conn; conn != nil {
		peer, err := conn.Open(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", ErrNoTab, tabID, err)
		}
		return backend.NewTabSession(peer, nil), nil
	}
	if b.proxy.Endpoint == nil {
		return nil, errors.New("this browser has no tabs the coordinator can attach to")
	}
	conn, err := b.proxy.Endpoint.Dial(ctx, nil)
	if err != nil {
		return nil, err
	}
	peer, err := conn.Open(ctx, o)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w %q: %v", ErrNoTab, tabID, err)
	}
	return backend.NewTabSession(peer, conn), nil
}

// FrontTab is the tab in front (the one the agent, the child MCP or the
// user worked in last), without starting a browser.
func (c *Coordinator) FrontTab() (Tab, bool) { return c.own.FrontTab() }

// FrontTab is the agent's tab in front, without starting a browser or
// making its contexts.
func (a *Agent) FrontTab() (Tab, bool) {
	m := a.c.read()
	if m.cur == nil || m.cur.pages == nil {
		return Tab{}, false
	}
	if !a.c.Isolated() {
		return m.cur.pages.Front()
	}
	p, ok := m.cur.pages.(*pages)
	ctxs := a.known(m.cur)
	if !ok || ctxs == nil {
		return Tab{}, false
	}
	return scopedPages{p: p, ctxs: ctxs}.Front()
}
