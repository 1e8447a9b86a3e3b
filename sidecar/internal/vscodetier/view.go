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
// View follows VS Code's targets on a connection of its own, and serves as
// the proxy's Filter (what clients see) and the coordinator's Pages (tab
// tools and currentUrl).
type View struct {
	endpoint *cdp.Endpoint
	conn     *cdp.Conn
	follow   *cdp.Follower
	words    remedy.Words // the coordinator's surface's, for what clients are told
	log      *slog.Logger

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
	if err := v.follow.Follow(ctx, conn); err != nil {
		v.Shutdown()
		return nil, err
	}
	return v, nil
}

// onEvent runs on the reading goroutine; probing a page is left to a
// goroutine of the View's.
func (v *View) onEvent(m cdp.Message) {
	u := v.follow.HandleEvent(m)
	switch u.Kind {
	case "created", "changed":
	case "destroyed":
		v.mu.Lock()
		delete(v.workbench, u.Target.ID)
		v.mu.Unlock()
		return
	default:
		return
	}
	t := u.Target
	v.mu.Lock()
	_, probed := v.workbench[t.ID]
	v.mu.Unlock()
	// A page is (re)probed when it appears and when it changes: VS Code's
	// window builds its DOM after loading, then retitles itself.
	if t.Type == "page" && !isWorkbenchURL(t.URL) && (!probed || u.Prev.Title != t.Title || u.Prev.URL != t.URL) {
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
		if isWorkbenchURL(t.URL) || strings.HasPrefix(t.URL, "devtools:") || strings.HasPrefix(t.URL, "chrome:") {
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
// none is open.
func (v *View) ensureView(ctx context.Context, openURL string) (cdp.Target, error) {
	// Targets arrive right after discovery starts, and pages are probed:
	// give a view that exists a moment to be known. A page is probed once
	// more before a client gets it: VS Code's window must never be handed out.
	deadline := time.Now().Add(10 * time.Second)
	for {
		t, err := v.waitView(ctx, 500*time.Millisecond)
		if err == ErrNoView {
			break // none yet: open one
		}
		if err != nil {
			return cdp.Target{}, err
		}
		if t.Type != "page" {
			return t, nil
		}
		changed := v.follow.Changed()
		isWorkbench, known := v.probe(ctx, t.ID)
		if known && !isWorkbench {
			return t, nil
		}
		if known {
			continue // a VS Code window after all: it is no candidate now
		}
		// No answer (the page is loading or navigating): ask again when a
		// view changes or after a pause, for a while.
		if time.Now().After(deadline) {
			return cdp.Target{}, fmt.Errorf("VS Code's browser view (%s) does not answer; try again once it has loaded", cleanURL(t.URL))
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
	if openURL == "" {
		openURL = "about:blank"
	}
	if err := v.openSimpleBrowser(ctx, openURL); err != nil {
		return cdp.Target{}, fmt.Errorf("%w (opening one failed: %v)", ErrNoView, err)
	}
	return v.waitView(ctx, 15*time.Second)
}

// Visible implements cdpproxy.Filter: the view, opened if needed.
func (v *View) Visible(ctx context.Context) ([]string, error) {
	t, err := v.ensureView(ctx, "")
	if err != nil {
		return nil, v.words.Phrased(err) // the proxy tells its client
	}
	return []string{t.ID}, nil
}

// Refusal implements cdpproxy.Filter for the /json endpoints that change the browser.
func (v *View) Refusal(path string) string {
	p := strings.TrimSuffix(path, "/")
	switch {
	case p == "/json/new":
		return v.refuseNewWindow()
	case strings.HasPrefix(p, "/json/close/"):
		return refuseClose
	case strings.HasPrefix(p, "/json/activate/"):
		if t, ok := v.Current(); !ok || t.ID != strings.TrimPrefix(p, "/json/activate/") {
			return "only VS Code's browser view can be activated"
		}
	}
	return ""
}

// Policy implements cdpproxy.Filter: every client goes through a policy
// that shows it the view and nothing else.
func (v *View) Policy(ctx context.Context, page string) (cdp.Policy, error) {
	t, err := v.ensureView(ctx, "")
	if err != nil {
		return nil, v.words.Phrased(err)
	}
	if page != "" && page != t.ID {
		return nil, fmt.Errorf("target %s is not VS Code's browser view; in Tier 2 that is the only page (see /json/list)", page)
	}
	return newViewPolicy(v, t.ID, t.Type == "iframe"), nil
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

// Shutdown closes the connection and waits for the probes.
func (v *View) Shutdown() {
	v.cancel()
	if v.conn != nil {
		v.conn.Close()
	}
	v.probes.Wait()
}

const (
	refuseNewWindow = "in Tier 2 the agent works in VS Code's browser view, its only page: opening new windows or tabs is refused; navigate the page instead"
	refuseClose     = "in Tier 2 nothing a client does may close VS Code or its browser view: closing targets is refused"
	refuseReshape   = "in Tier 2 nothing a client does may close or reshape VS Code: %s is refused"
	// A browser-level command outside browserLevel (policy.go).
	refuseBrowserLevel = "in Tier 2 the browser is VS Code: %s without a sessionId would reach all of VS Code, and is refused; send it on the page's session (attach to the page from Target.getTargets, or connect to its webSocketDebuggerUrl from /json/list)"
)

// refuseNewWindow and refuseBrowserLevel end with the way to a browser of
// the coordinator's own, in the surface's words.
func (v *View) refuseNewWindow() string {
	return v.words.Phrase(refuseNewWindow, []remedy.Remedy{{Kind: remedy.OwnBrowser}})
}

func (v *View) refuseBrowserLevel(method string) string {
	return v.words.Phrase(fmt.Sprintf(refuseBrowserLevel, method), []remedy.Remedy{{Kind: remedy.OwnBrowser}})
}
