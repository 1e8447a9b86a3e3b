package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdpproxy"
)

// The coordinator keeps its own CDP connection to the browser (straight to
// it, not through the proxy, so DropConnections never cuts it) to follow
// the pages: which one is in front (currentUrl in the state file, for
// previews) and the tab tools. For a browser it did not start, the same
// connection tells when the browser goes away.

// Tab is one page target.
type Tab struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	URL   string `json:"url"`
	Front bool   `json:"front"`
}

// ErrNoTab is returned for a tab id that is not an open page.
var ErrNoTab = errors.New("no such tab")

// pages follows the page targets of one browser. It connects in the
// background: a launch is ready when the browser answers, and connecting
// plus Target.setDiscoverTargets costs Chromium tens of milliseconds while it
// is still starting up; the tab tools wait for it.
type pages struct {
	onChange func() // the front page's URL changed
	ready    chan struct{}
	lost     chan struct{} // closed when the connection ends (or never came)
	conn     *cdp.Conn     // set before ready is closed
	err      error         // set before ready is closed

	start     func()
	startOnce sync.Once
	lostOnce  sync.Once

	mu     sync.Mutex
	closed bool
	tabs   map[string]Tab
	order  []string // page ids, most recently active last
}

func (p *pages) markLost() { p.lostOnce.Do(func() { close(p.lost) }) }

// followPages starts following the pages of the browser behind b; a lazy
// follower connects on the first tab tool, and is lost only once it was
// connected (or at Shutdown).
func followPages(ctx context.Context, b cdpproxy.Backend, onChange func(), lazy bool) *pages {
	p := &pages{onChange: onChange, ready: make(chan struct{}), lost: make(chan struct{}), tabs: make(map[string]Tab)}
	p.start = func() { go p.connect(ctx, b) }
	if !lazy {
		p.startOnce.Do(p.start)
	}
	return p
}

func (p *pages) connect(ctx context.Context, b cdpproxy.Backend) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := b.DialCDP(ctx, p.onEvent)
	if err == nil {
		_, err = conn.Call(ctx, "", "Target.setDiscoverTargets", map[string]any{"discover": true})
	}
	p.mu.Lock()
	if err == nil && p.closed {
		err = errors.New("the browser stopped")
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		p.err = fmt.Errorf("cannot follow the browser's tabs: %w", err)
		p.mu.Unlock()
		close(p.ready)
		p.markLost()
		return
	}
	p.conn = conn
	p.mu.Unlock()
	close(p.ready)
	<-conn.Done()
	p.markLost()
}

// wait returns once the follower is connected, or why it is not.
func (p *pages) wait(ctx context.Context) error {
	p.startOnce.Do(p.start)
	select {
	case <-p.ready:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pages) Lost() <-chan struct{} { return p.lost }

func (p *pages) Shutdown() {
	p.mu.Lock()
	p.closed = true
	conn := p.conn
	p.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
	p.startOnce.Do(func() {}) // a lazy follower that never started never will
	select {
	case <-p.ready:
	default:
		if conn == nil {
			p.markLost() // never connected: nothing else will say it is gone
		}
	}
}

type targetInfo struct {
	TargetID string `json:"targetId"`
	Type     string `json:"type"`
	Title    string `json:"title"`
	URL      string `json:"url"`
}

// onEvent runs on the CDP reading goroutine: it must not block.
func (p *pages) onEvent(m cdp.Message) {
	switch m.Method {
	case "Target.targetCreated", "Target.targetInfoChanged", "Target.targetDestroyed":
	default:
		return
	}
	var ev struct {
		TargetInfo targetInfo `json:"targetInfo"`
		TargetID   string     `json:"targetId"`
	}
	if json.Unmarshal(m.Params, &ev) != nil {
		return
	}
	p.mu.Lock()
	before := p.frontURLLocked()
	if m.Method == "Target.targetDestroyed" {
		delete(p.tabs, ev.TargetID)
		p.order = slices.DeleteFunc(p.order, func(id string) bool { return id == ev.TargetID })
	} else if t := ev.TargetInfo; t.Type == "page" {
		prev, known := p.tabs[t.TargetID]
		p.tabs[t.TargetID] = Tab{ID: t.TargetID, Title: t.Title, URL: t.URL}
		// A new page, or a page that navigated, is where the work is.
		if !known || prev.URL != t.URL {
			p.touchLocked(t.TargetID)
		}
	}
	changed := p.frontURLLocked() != before
	p.mu.Unlock()
	if changed && p.onChange != nil {
		p.onChange()
	}
}

func (p *pages) touchLocked(id string) {
	p.order = append(slices.DeleteFunc(p.order, func(o string) bool { return o == id }), id)
}

func (p *pages) frontLocked() string {
	if len(p.order) == 0 {
		return ""
	}
	return p.order[len(p.order)-1]
}

func (p *pages) frontURLLocked() string { return p.tabs[p.frontLocked()].URL }

// CurrentURL is the URL of the page in front.
func (p *pages) CurrentURL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.frontURLLocked()
}

// Tabs lists the open pages, the one in front marked.
func (p *pages) Tabs(ctx context.Context) ([]Tab, error) {
	if err := p.wait(ctx); err != nil {
		return nil, err
	}
	res, err := p.conn.Call(ctx, "", "Target.getTargets", nil)
	if err != nil {
		return nil, err
	}
	var got struct {
		TargetInfos []targetInfo `json:"targetInfos"`
	}
	if err := json.Unmarshal(res, &got); err != nil {
		return nil, err
	}
	p.mu.Lock()
	front := p.frontLocked()
	p.mu.Unlock()
	tabs := []Tab{}
	for _, t := range got.TargetInfos {
		if t.Type == "page" {
			tabs = append(tabs, Tab{ID: t.TargetID, Title: t.Title, URL: t.URL, Front: t.TargetID == front})
		}
	}
	return tabs, nil
}

// Open opens url in a new page; with focus it is brought to the front.
func (p *pages) Open(ctx context.Context, url string, focus bool) (Tab, error) {
	if err := p.wait(ctx); err != nil {
		return Tab{}, err
	}
	res, err := p.conn.Call(ctx, "", "Target.createTarget", map[string]any{"url": url, "background": !focus})
	if err != nil {
		return Tab{}, err
	}
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := json.Unmarshal(res, &created); err != nil {
		return Tab{}, err
	}
	if focus {
		return p.Focus(ctx, created.TargetID)
	}
	return Tab{ID: created.TargetID, URL: url}, nil
}

// Focus brings a page to the front.
func (p *pages) Focus(ctx context.Context, id string) (Tab, error) {
	if err := p.wait(ctx); err != nil {
		return Tab{}, err
	}
	if _, err := p.conn.Call(ctx, "", "Target.activateTarget", map[string]any{"targetId": id}); err != nil {
		return Tab{}, fmt.Errorf("%w %q: %v", ErrNoTab, id, err)
	}
	p.mu.Lock()
	before := p.frontURLLocked()
	p.touchLocked(id)
	t := p.tabs[id]
	changed := p.frontURLLocked() != before
	p.mu.Unlock()
	if changed && p.onChange != nil {
		p.onChange()
	}
	t.ID, t.Front = id, true
	return t, nil
}

// Close closes a page.
func (p *pages) Close(ctx context.Context, id string) error {
	if err := p.wait(ctx); err != nil {
		return err
	}
	if _, err := p.conn.Call(ctx, "", "Target.closeTarget", map[string]any{"targetId": id}); err != nil {
		return fmt.Errorf("%w %q: %v", ErrNoTab, id, err)
	}
	return nil
}
