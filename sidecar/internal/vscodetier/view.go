package vscodetier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/tidwall/gjson"
)

// View is VS Code's browser view as CDP clients see it in Tier 2: the
// integrated browser's page target when there is one, else the Simple
// Browser's content iframe (a page from another site than the workbench is
// its own iframe target). Clients see it as the only page of a browser; VS
// Code's own windows are never shown to them.
//
// View follows VS Code's targets on a connection of its own and picks the
// view among them (probing pages: VS Code's windows are pages too). It
// shows the view as the only tab of a virtual browser (cdp.Virtual on a
// cdp.TargetHost, judged by Tier 2's policy, see policy.go), which is the
// proxy's connection (Browser): every client gets a session of its own on
// it, as on a launched browser. The View is also the coordinator's Pages
// (tab tools and currentUrl).
type View struct {
	endpoint *cdp.Endpoint
	conn     *cdp.Conn // to VS Code
	follow   *cdp.Follower
	words    remedy.Words // the coordinator's surface's, for what clients are told
	log      *slog.Logger

	version cdp.Version     // what VS Code's browser said it is
	host    *cdp.TargetHost // shows the view to the virtual browser
	browser *cdp.Conn       // the virtual browser, as the proxy's connection

	ctx    context.Context // ends with the View: probes run under it
	cancel context.CancelFunc
	probes sync.WaitGroup

	mu        sync.Mutex
	workbench map[string]bool // page target id → is a VS Code window (probed)
}

// NewView connects to VS Code's CDP endpoint and starts following its
// targets. words phrase the remedies in what CDP clients are told.
func NewView(ctx context.Context, e *cdp.Endpoint, words remedy.Words, log *slog.Logger) (*View, error) {
	v := &View{endpoint: e, follow: cdp.NewFollower(), words: words, log: log, workbench: map[string]bool{}}
	v.ctx, v.cancel = context.WithCancel(context.Background())
	conn, err := e.Dial(ctx, v.onEvent)
	if err != nil {
		v.cancel()
		return nil, err
	}
	v.conn = conn
	if v.version, err = cdp.GetVersion(ctx, conn); err != nil {
		v.Shutdown()
		return nil, err
	}
	v.host = cdp.NewTargetHost(cdp.TargetHostOptions{Conn: conn, Version: v.version, Event: v.event})
	virtual := cdp.NewVirtual(cdp.VirtualOptions{
		Host: v.host, Policy: v.command, Log: log,
		Words: cdp.VirtualWords{Browser: "VS Code's browser view", Backend: "Tier 2"},
	})
	v.browser = cdp.NewConn(virtual, cdp.Options{Logger: log})
	if err := v.follow.Follow(ctx, conn); err != nil {
		v.Shutdown()
		return nil, err
	}
	return v, nil
}

// Browser is the virtual browser whose only page is the view, for the
// proxy: every client gets a session of its own on it.
func (v *View) Browser() *cdp.Conn { return v.browser }

// show makes the view, as it is now, the virtual browser's only tab (or
// shows none).
func (v *View) show() {
	if t, ok := v.current(); ok {
		v.host.Show(t)
	} else {
		v.host.Show()
	}
}

// onEvent runs on the reading goroutine; probing a page is left to a
// goroutine of the View's. What it changes of the view is shown at once.
func (v *View) onEvent(m cdp.Message) {
	u := v.follow.HandleEvent(m)
	switch u.Kind {
	case "created", "changed":
		defer v.show()
	case "destroyed":
		v.mu.Lock()
		delete(v.workbench, u.Target.ID)
		v.mu.Unlock()
		v.show()
		return
	default:
		return
	}
	// A page is (re)probed when it appears and when its title or URL
	// changes (not when a session attaches, as the probe's own does): VS
	// Code's window builds its DOM after loading, then retitles itself.
	t := u.Target
	if t.Type == "page" && !isWorkbenchURL(t.URL) && (u.Kind == "created" || u.Prev.Title != t.Title || u.Prev.URL != t.URL) {
		v.probes.Add(1)
		go func() {
			defer v.probes.Done()
			v.probe(v.ctx, t.ID)
		}()
	}
}

// isWorkbenchURL: VS Code desktop windows load vscode-file://.
func isWorkbenchURL(u string) bool { return strings.HasPrefix(u, "vscode-file:") }

// isWorkbenchDOM answers, once the document is parsed, whether a page is a
// VS Code window: desktop and web workbenches build .monaco-workbench, and
// web ones (code-server, vscode.dev) carry their configuration in a meta tag
// from the first byte, before any script runs.
const isWorkbenchDOM = `new Promise(done => {
  const check = () => done({url: location.href,
    workbench: !!document.querySelector('.monaco-workbench, #vscode-workbench-web-configuration')});
  document.readyState === 'loading' ? addEventListener('DOMContentLoaded', check) : check();
})`

// probe asks a page whether it is a VS Code window (web builds serve the
// workbench over http, so the URL does not tell) and records the answer.
// A page still showing its initial empty document, or navigating while it
// is asked, gives no answer: it is no candidate until asked again, when its
// target info changes.
func (v *View) probe(ctx context.Context, id string) (isWorkbench, known bool) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	t, _ := v.follow.Get(id)
	session, err := v.attach(ctx, id)
	if err != nil {
		return false, false
	}
	defer v.detach(session)
	out, err := v.conn.Call(ctx, session, "Runtime.evaluate", map[string]any{
		"expression": isWorkbenchDOM, "awaitPromise": true, "returnByValue": true})
	if err != nil {
		return false, false
	}
	var r struct {
		Result struct {
			Value struct {
				URL       string `json:"url"`
				Workbench bool   `json:"workbench"`
			} `json:"value"`
		} `json:"result"`
	}
	if json.Unmarshal(out, &r) != nil || (r.Result.Value.URL == "about:blank" && t.URL != "about:blank") {
		return false, false
	}
	isWorkbench = r.Result.Value.Workbench
	v.mu.Lock()
	v.workbench[id] = isWorkbench
	v.mu.Unlock()
	if t, ok := v.follow.Get(id); ok && v.candidate(t) {
		v.follow.Touch(id)
	} else {
		v.follow.Demote(id)
	}
	v.show()
	return isWorkbench, true
}

// attach opens a session of the View's own on a target; detach ends it.
func (v *View) attach(ctx context.Context, id string) (session string, err error) {
	res, err := v.conn.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": id, "flatten": true})
	if err != nil {
		return "", err
	}
	return gjson.GetBytes(res, "sessionId").String(), nil
}

func (v *View) detach(session string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = v.conn.Call(ctx, "", "Target.detachFromTarget", map[string]any{"sessionId": session})
}

// candidate: can t be the browser view?
func (v *View) candidate(t cdp.Target) bool {
	switch t.Type {
	case "page":
		if !mayBeView(t) {
			return false
		}
		v.mu.Lock()
		isWorkbench, probed := v.workbench[t.ID]
		v.mu.Unlock()
		return probed && !isWorkbench
	case "iframe":
		// VS Code's own frames are webviews (vscode-webview://); a frame of
		// another site is a browser view, also once it navigated to
		// about:blank or a data: URL.
		u, err := url.Parse(t.URL)
		if err != nil {
			return false
		}
		switch u.Scheme {
		case "http", "https", "file", "about", "data", "blob":
			return true
		}
	}
	return false
}

// mayBeView: a page that is not VS Code's window, DevTools or the
// browser's own by its URL (the probe tells the rest).
func mayBeView(t cdp.Target) bool {
	return !isWorkbenchURL(t.URL) && !strings.HasPrefix(t.URL, "devtools:") && !strings.HasPrefix(t.URL, "chrome:")
}

// current picks the view: an integrated browser page before a Simple
// Browser iframe, the most recently active first.
func (v *View) current() (cdp.Target, bool) {
	for _, kind := range []string{"page", "iframe"} {
		if t, ok := v.follow.Latest(func(t cdp.Target) bool { return t.Type == kind && v.candidate(t) }); ok {
			return t, true
		}
	}
	return cdp.Target{}, false
}

// cleanURL drops the query parameters the Simple Browser adds to bust caches.
func cleanURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return raw
	}
	q := u.Query()
	if q.Get("vscodeBrowserReqId") == "" {
		return raw
	}
	q.Del("vscodeBrowserReqId")
	q.Del("id")
	u.RawQuery = q.Encode()
	return u.String()
}

// Current is the view now, if one is open.
func (v *View) Current() (cdp.Target, bool) { return v.current() }

// ErrNoView says there is no browser view and how to get one (the surface
// adds its way to open a tab).
var ErrNoView = remedy.Sentinel("no browser view is open in VS Code: run \"Simple Browser: Show\" (or open the integrated browser) in VS Code", remedy.OpenTab)

// errViewGone: the View's connection to VS Code closed (VS Code quit, or
// the coordinator moved to another backend); it will never find a view.
var errViewGone = errors.New("the connection to VS Code's CDP port is closed")

// waitView returns the view, waiting up to d for one to appear.
func (v *View) waitView(ctx context.Context, d time.Duration) (cdp.Target, error) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		changed := v.follow.Changed()
		if t, ok := v.current(); ok {
			return t, nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return cdp.Target{}, ErrNoView
		case <-ctx.Done():
			return cdp.Target{}, ctx.Err()
		case <-v.conn.Done():
			return cdp.Target{}, errViewGone
		}
	}
}

// ensureView returns the view, opening the Simple Browser at openURL when
// none is open. The targets are known once discovery has started; a page
// is probed (once more, for the view: VS Code's window must never be
// handed out), and while one gives no answer yet (it is loading, on a busy
// machine for seconds) it is asked again when the targets change or after
// a pause, for a while: a view that loads is no reason to open another.
func (v *View) ensureView(ctx context.Context, openURL string) (cdp.Target, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		changed := v.follow.Changed()
		t, isView := v.current()
		asked, answered := t, false
		switch {
		case isView && t.Type != "page":
			return t, nil
		case isView:
			isWorkbench, known := v.probe(ctx, t.ID)
			if known && !isWorkbench {
				return t, nil
			}
			answered = known // a VS Code window after all: it is no candidate now
		default:
			var unknown bool
			if asked, unknown = v.unprobed(); !unknown {
				return v.openView(ctx, openURL) // none: open one
			}
			_, answered = v.probe(ctx, asked.ID)
		}
		if answered {
			continue
		}
		if time.Now().After(deadline) {
			if !isView {
				return v.openView(ctx, openURL)
			}
			return cdp.Target{}, fmt.Errorf("VS Code's browser view (%s) does not answer; try again once it has loaded", cleanURL(asked.URL))
		}
		select {
		case <-changed:
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return cdp.Target{}, ctx.Err()
		case <-v.conn.Done():
			return cdp.Target{}, errViewGone
		}
	}
}

// unprobed is a page that may be the view, whose probe has not answered.
func (v *View) unprobed() (cdp.Target, bool) {
	pages := v.follow.Targets(func(t cdp.Target) bool { return t.Type == "page" && mayBeView(t) })
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, t := range pages {
		if _, probed := v.workbench[t.ID]; !probed {
			return t, true
		}
	}
	return cdp.Target{}, false
}

// openView opens the Simple Browser at openURL and waits for it.
func (v *View) openView(ctx context.Context, openURL string) (cdp.Target, error) {
	if openURL == "" {
		openURL = "about:blank"
	}
	if err := v.openSimpleBrowser(ctx, openURL); err != nil {
		return cdp.Target{}, fmt.Errorf("%w (opening one failed: %v)", ErrNoView, err)
	}
	return v.waitView(ctx, 15*time.Second)
}

// parentPage finds the VS Code window that holds an iframe view, from VS
// Code's /json/list (each iframe names its page as parentId).
func (v *View) parentPage(ctx context.Context, iframe string) (string, error) {
	var list []struct{ ID, ParentID string }
	if err := v.endpoint.GetJSON(ctx, "/json/list", &list); err != nil {
		return "", err
	}
	for _, t := range list {
		if t.ID == iframe && t.ParentID != "" {
			return t.ParentID, nil
		}
	}
	return "", fmt.Errorf("the window that holds VS Code's browser view is not known")
}

// The view as backend.Pages.

// Tabs lists the one tab clients have in Tier 2.
func (v *View) Tabs(ctx context.Context) ([]backend.Tab, error) {
	t, ok := v.Current()
	if !ok {
		return []backend.Tab{}, nil
	}
	return []backend.Tab{{ID: t.ID, Title: t.Title, URL: cleanURL(t.URL), Front: true}}, nil
}

// Open shows url in VS Code's browser view: the view navigates there, or the
// Simple Browser opens at it when no view is open. Tier 2 has one page.
func (v *View) Open(ctx context.Context, u string, _ bool) (backend.Tab, error) {
	if t, ok := v.Current(); ok {
		if err := v.navigate(ctx, t.ID, u); err != nil {
			return backend.Tab{}, err
		}
		return backend.Tab{ID: t.ID, URL: u, Front: true}, nil
	}
	if cdp.IsBlank(u) {
		return backend.Tab{}, fmt.Errorf("%w (%w)", ErrNoView, backend.ErrNeedsURL)
	}
	t, err := v.ensureView(ctx, u)
	if err != nil {
		return backend.Tab{}, err
	}
	return backend.Tab{ID: t.ID, Title: t.Title, URL: cleanURL(t.URL), Front: true}, nil
}

func (v *View) navigate(ctx context.Context, id, u string) error {
	session, err := v.attach(ctx, id)
	if err != nil {
		return err
	}
	defer v.detach(session)
	_, err = v.conn.Call(ctx, session, "Page.navigate", map[string]any{"url": u})
	return err
}

// Focus accepts the view's id.
func (v *View) Focus(ctx context.Context, id string) (backend.Tab, error) {
	if t, ok := v.Current(); ok && t.ID == id {
		return backend.Tab{ID: t.ID, Title: t.Title, URL: cleanURL(t.URL), Front: true}, nil
	}
	return backend.Tab{}, fmt.Errorf("%w %q: in Tier 2 VS Code's browser view is the only tab", backend.ErrNoTab, id)
}

// Close refuses: the view is VS Code's.
func (v *View) Close(context.Context, string) error {
	return errors.New("browser-coordinator: " + refuseClose)
}

// CurrentURL is the view's page.
func (v *View) CurrentURL() string {
	t, ok := v.current()
	if !ok {
		return ""
	}
	return cleanURL(t.URL)
}

// Front is the view, the one tab.
func (v *View) Front() (backend.Tab, bool) {
	t, ok := v.current()
	if !ok {
		return backend.Tab{}, false
	}
	return backend.Tab{ID: t.ID, Title: t.Title, URL: cleanURL(t.URL), Front: true}, true
}

// Changed is closed at the next change of VS Code's targets.
func (v *View) Changed() <-chan struct{} { return v.follow.Changed() }

// Lost is closed when the connection to VS Code ends (VS Code quit).
func (v *View) Lost() <-chan struct{} { return v.conn.Done() }

// Shutdown ends the virtual browser (its clients are told the browser
// went away), closes the connection to VS Code and waits for the probes.
func (v *View) Shutdown() {
	v.cancel()
	if v.host != nil {
		v.host.Shutdown()
	}
	v.conn.Close() // what the virtual browser waits for on VS Code ends
	if v.browser != nil {
		v.browser.Close()
	}
	v.probes.Wait()
}

const (
	refuseNewWindow = "in Tier 2 the agent works in VS Code's browser view, its only page: opening new windows or tabs is refused; navigate the page instead"
	refuseClose     = "in Tier 2 nothing a client does may close VS Code or its browser view: closing targets is refused"
	refuseReshape   = "in Tier 2 nothing a client does may close or reshape VS Code: %s is refused"
	// A browser-level command outside browserLevel (policy.go).
	refuseBrowserLevel = "in Tier 2 the browser is VS Code: %s without a sessionId would reach all of VS Code, and is refused; send it on the page's session (attach to the page from Target.getTargets, or connect to its webSocketDebuggerUrl from /json/list)"
	// A Target command on the view's session outside onPage (policy.go).
	refuseTarget = "in Tier 2 the view's session reaches its own frames and workers (Target.setAutoAttach) and nothing else of VS Code: %s is refused; find the page from a browser session (Target.getTargets)"
)

// refuseNewWindow and refuseBrowserLevel end with the way to a browser of
// the coordinator's own, in the surface's words.
func (v *View) refuseNewWindow() string {
	return v.words.Phrase(refuseNewWindow, []remedy.Remedy{{Kind: remedy.OwnBrowser}})
}

func (v *View) refuseBrowserLevel(method string) string {
	return v.words.Phrase(fmt.Sprintf(refuseBrowserLevel, method), []remedy.Remedy{{Kind: remedy.OwnBrowser}})
}
