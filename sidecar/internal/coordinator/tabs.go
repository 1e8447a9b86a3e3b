package coordinator

import (
	"context"
	"errors"
	"fmt"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// The tab tools work on the current backend's pages, starting a browser
// first if none is there.

func (c *Coordinator) withPages(ctx context.Context) (backend.Pages, error) {
	b, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	if b.pages == nil {
		return nil, errors.New("this browser has no tabs the coordinator can follow")
	}
	return b.pages, nil
}

// onNextIfGone runs f on the current backend's pages; when the browser
// went away under it (it crashed a moment before), f runs again on the next
// one, as a call that came a moment later would. Only for what does not
// name a tab: a tab of the browser that went is gone with it.
func onNextIfGone[T any](ctx context.Context, c *Coordinator, f func(backend.Pages) (T, error)) (T, error) {
	const attempts = 3
	for attempt := 1; ; attempt++ {
		p, err := c.withPages(ctx)
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
func (c *Coordinator) Tabs(ctx context.Context) ([]Tab, error) {
	return onNextIfGone(ctx, c, func(p backend.Pages) ([]Tab, error) {
		tabs, err := p.Tabs(ctx)
		if err == nil {
			err = c.Disconnected() // away (now, or while listing): the list says nothing
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
	if url == "" {
		url = "about:blank"
	}
	if err := c.CheckOpen(url); err != nil {
		return Tab{}, err
	}
	return onNextIfGone(ctx, c, func(p backend.Pages) (Tab, error) { return p.Open(ctx, url, focus) })
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
	p, err := c.withPages(ctx)
	if err != nil {
		return Tab{}, err
	}
	return p.Focus(ctx, id)
}

// CloseTab closes a page.
func (c *Coordinator) CloseTab(ctx context.Context, id string) error {
	p, err := c.withPages(ctx)
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
	b, err := c.ensure(ctx)
	if err != nil {
		return nil, err
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
func (c *Coordinator) FrontTab() (Tab, bool) {
	m := c.read()
	if m.cur == nil || m.cur.pages == nil {
		return Tab{}, false
	}
	return m.cur.pages.Front()
}
