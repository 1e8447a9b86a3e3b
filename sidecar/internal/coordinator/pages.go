package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// The coordinator follows the pages of the browser on a session of its own
// (a browser session on a connection it holds, or a connection of its own to
// a TCP endpoint; never through the proxy, so DropConnections never cuts
// it): which one is in front (currentUrl in the state file, for previews)
// and the tab tools. For a browser it did not start, the same connection
// tells when the browser goes away.

// pages follows the page targets of one browser. It connects in the
// background: a launch is ready when the browser answers, and attaching plus
// Target.setDiscoverTargets costs Chromium tens of milliseconds while it is
// still starting up; the tab tools wait for it.
type pages struct {
	follow *cdp.Follower
	ready  chan struct{}
	lost   chan struct{} // closed when the connection ends (or never came)
	caller cdp.Caller    // set before ready is closed
	err    error         // set before ready is closed
	close  func()        // ends the session or connection; set with caller

	start     func()
	startOnce sync.Once
	lostOnce  sync.Once
	wg        sync.WaitGroup // the connecting goroutine

	mu     sync.Mutex
	closed bool
}

func (p *pages) markLost() { p.lostOnce.Do(func() { close(p.lost) }) }

// followPages starts following the pages of the browser on conn (through a
// browser session of its own) or at e (through a connection of its own);
// a lazy follower connects on the first tab tool, and is lost only once it
// was connected (or at Shutdown).
func followPages(ctx context.Context, conn *cdp.Conn, e *cdp.Endpoint, lazy bool) *pages {
	p := &pages{follow: cdp.NewFollower(), ready: make(chan struct{}), lost: make(chan struct{})}
	p.start = func() {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.connect(ctx, conn, e)
		}()
	}
	if !lazy {
		p.startOnce.Do(p.start)
	}
	return p
}

func (p *pages) connect(ctx context.Context, conn *cdp.Conn, e *cdp.Endpoint) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	onEvent := func(m cdp.Message) { p.follow.HandleEvent(m) }
	var (
		caller cdp.Caller
		done   <-chan struct{}
		closer func()
		err    error
	)
	if conn != nil {
		var peer *cdp.Peer
		if peer, err = conn.Open(ctx, cdp.PeerOptions{Mode: cdp.Browser, OnEvent: onEvent}); err == nil {
			caller, done, closer = peer, peer.Done(), peer.Close
		}
	} else {
		var own *cdp.Conn
		if own, err = e.Dial(ctx, onEvent); err == nil {
			caller, done, closer = own, own.Done(), func() { own.Close() }
		}
	}
	if err == nil {
		err = p.follow.Follow(ctx, caller)
	}
	p.mu.Lock()
	if err == nil && p.closed {
		err = errors.New("the browser stopped")
	}
	if err != nil {
		if closer != nil {
			closer()
		}
		p.err = fmt.Errorf("cannot follow the browser's tabs: %w", err)
		p.mu.Unlock()
		close(p.ready)
		p.markLost()
		return
	}
	p.caller, p.close = caller, closer
	p.mu.Unlock()
	close(p.ready)
	<-done
	p.markLost()
}

// activity is a browser that says which tab it brought to the front, where
// CDP does not (the everyday browser: the user clicked a tab).
type activity interface {
	// Activations receives (coalesced) at each tab brought to the front.
	Activations() <-chan struct{}
	// Active is that tab's page target id ("" when none).
	Active() string
}

// followActivity makes the tab a brings to the front the page in front,
// until the follower's connection ends.
func (p *pages) followActivity(a activity) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			select {
			case <-a.Activations():
				if id := a.Active(); id != "" {
					p.follow.Touch(id)
				}
			case <-p.lost:
				return
			}
		}
	}()
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

// Lost is closed when the follower's connection ends.
func (p *pages) Lost() <-chan struct{} { return p.lost }

func (p *pages) Changed() <-chan struct{} { return p.follow.Changed() }

func (p *pages) Shutdown() {
	p.mu.Lock()
	p.closed = true
	closer := p.close
	p.mu.Unlock()
	if closer != nil {
		closer()
	}
	p.startOnce.Do(func() {}) // a lazy follower that never started never will
	select {
	case <-p.ready:
	default:
		if closer == nil {
			p.markLost() // never connected: nothing else will say it is gone
		}
	}
	p.wg.Wait()
}

func (p *pages) front() (cdp.Target, bool) { return p.follow.Latest(cdp.IsPage) }

// Front is the page in front.
func (p *pages) Front() (Tab, bool) { return p.frontWhere(cdp.IsPage) }

// frontWhere is the page in front among those match accepts.
func (p *pages) frontWhere(match func(cdp.Target) bool) (Tab, bool) {
	t, ok := p.follow.Latest(match)
	if !ok {
		return Tab{}, false
	}
	return Tab{ID: t.ID, Title: t.Title, URL: t.URL, Front: true, OpenerID: t.OpenerID, Activated: p.follow.Activated(t.ID)}, true
}

// CurrentURL is the URL of the page in front.
func (p *pages) CurrentURL() string {
	t, _ := p.front()
	return t.URL
}

// Tabs lists the open pages, the one in front marked.
func (p *pages) Tabs(ctx context.Context) ([]Tab, error) { return p.tabsWhere(ctx, cdp.IsPage) }

// tabsWhere lists the open pages match accepts, the one in front among
// them marked.
func (p *pages) tabsWhere(ctx context.Context, match func(cdp.Target) bool) ([]Tab, error) {
	if err := p.wait(ctx); err != nil {
		return nil, err
	}
	res, err := p.caller.Call(ctx, "", "Target.getTargets", nil)
	if err != nil {
		return nil, err
	}
	var got struct {
		TargetInfos []cdp.Target `json:"targetInfos"`
	}
	if err := json.Unmarshal(res, &got); err != nil {
		return nil, err
	}
	front, _ := p.follow.Latest(match)
	tabs := []Tab{}
	for _, t := range got.TargetInfos {
		if match(t) {
			tabs = append(tabs, Tab{ID: t.ID, Title: t.Title, URL: t.URL, Front: t.ID == front.ID, OpenerID: t.OpenerID})
		}
	}
	return tabs, nil
}

// Open opens url in a new page; with focus it is brought to the front.
func (p *pages) Open(ctx context.Context, url string, focus bool) (Tab, error) {
	return p.openIn(ctx, url, focus, "")
}

// openIn opens url in a new page of a browser context ("" for the
// default one).
func (p *pages) openIn(ctx context.Context, url string, focus bool, browserContext string) (Tab, error) {
	if err := p.wait(ctx); err != nil {
		return Tab{}, err
	}
	held := func(string) {}
	if !focus {
		// Opened in the background: the tab in front stays in front.
		held = p.follow.Background()
	}
	params := map[string]any{"url": url, "background": !focus}
	if browserContext != "" {
		params["browserContextId"] = browserContext
	}
	res, err := p.caller.Call(ctx, "", "Target.createTarget", params)
	if err != nil {
		held("")
		return Tab{}, err
	}
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := json.Unmarshal(res, &created); err != nil {
		held("")
		return Tab{}, err
	}
	held(created.TargetID)
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
	if _, err := p.caller.Call(ctx, "", "Target.activateTarget", map[string]any{"targetId": id}); err != nil {
		return Tab{}, tabError(id, err)
	}
	p.follow.Touch(id)
	t, _ := p.follow.Get(id)
	return Tab{ID: id, Title: t.Title, URL: t.URL, Front: true}, nil
}

// tabError says why a command naming tab id failed: the browser went away
// (its tabs with it), or there is no such tab.
func tabError(id string, err error) error {
	if errors.Is(err, cdp.ErrClosed) {
		return fmt.Errorf("tab %q: the browser went away, and its tabs with it (list the tabs again): %w", id, err)
	}
	return fmt.Errorf("%w %q: %v", ErrNoTab, id, err)
}

// Close closes a page.
func (p *pages) Close(ctx context.Context, id string) error {
	if err := p.wait(ctx); err != nil {
		return err
	}
	if _, err := p.caller.Call(ctx, "", "Target.closeTarget", map[string]any{"targetId": id}); err != nil {
		return tabError(id, err)
	}
	// Gone for whoever asks next (the tab in front, page tools' focus),
	// before the browser's event arrives.
	p.follow.Forget(id)
	return nil
}
