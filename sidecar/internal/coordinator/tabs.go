package coordinator

import (
	"context"
	"errors"
)

// The tab tools work on the current backend's pages, starting a browser
// first if none is there.

func (c *Coordinator) withPages(ctx context.Context) (Pages, error) {
	b, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	if b.pages == nil {
		return nil, errors.New("this browser has no tabs the coordinator can follow")
	}
	return b.pages, nil
}

// Tabs lists the open pages, the one in front marked.
func (c *Coordinator) Tabs(ctx context.Context) ([]Tab, error) {
	p, err := c.withPages(ctx)
	if err != nil {
		return nil, err
	}
	return p.Tabs(ctx)
}

// OpenTab opens url in a new page; with focus it is brought to the front.
func (c *Coordinator) OpenTab(ctx context.Context, url string, focus bool) (Tab, error) {
	p, err := c.withPages(ctx)
	if err != nil {
		return Tab{}, err
	}
	if url == "" {
		url = "about:blank"
	}
	return p.Open(ctx, url, focus)
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
