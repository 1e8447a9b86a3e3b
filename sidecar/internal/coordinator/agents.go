package coordinator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdpproxy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/endpoint"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/tidwall/gjson"
)

// Many agents on one browser (--isolated).
//
// An agent is whoever works in the browser as one: an MCP session over HTTP
// with the browser MCP it drives, the coordinator's own MCP session over
// stdio with the browser MCPs wrapped beside it, a CDP client on its own.
// Without isolation every agent sees the whole browser (one profile, every
// tab). With it, each agent works in a browser context of its own
// (Target.createBrowserContext: its own tabs, cookies and storage), made on
// its first need and disposed when it leaves; the contexts its CDP clients
// create are its too, and go with it. Its tab tools, page tools and CDP
// clients all see those contexts and nothing else (cdp.Isolation, in the
// proxy).
//
// Who is an agent, and which endpoint names it:
//   - an agent made with NewAgent (an HTTP session) has a secret of its
//     own; its endpoint is the proxy's with that secret in place of the
//     coordinator's, and every client that comes through it is the agent's;
//   - the coordinator's own endpoint (the state file's, {cdp_endpoint} in
//     wrap) is the coordinator's own agent (Own) when it serves one MCP
//     session (stdio: the agent and its wrapped browser MCPs are one), or,
//     with IsolatedPerConnection (HTTP), a new agent for every WebSocket
//     that comes through it, disposed when the WebSocket closes.
//
// A browser that goes away takes the contexts with it: an agent's next need
// makes a new one in the next browser.

// Isolation says whether agents share the browser's profile.
type Isolation int

const (
	// Shared: every agent sees the whole browser (the default).
	Shared Isolation = iota
	// IsolatedOwn: every agent has browser contexts of its own; the
	// coordinator's own endpoint is one agent, its own (stdio).
	IsolatedOwn
	// IsolatedPerConnection: as IsolatedOwn, but every connection to the
	// coordinator's own endpoint is an agent of its own (HTTP: each MCP
	// session has an endpoint of its own).
	IsolatedPerConnection
)

// Agent is one agent of the coordinator (see above). Its tab methods are
// those of the Coordinator, seen from its contexts.
type Agent struct {
	c      *Coordinator
	secret string // its endpoint's secret; "" for the coordinator's own endpoint
	name   string // for the log

	mu     sync.Mutex // held while its context is made: one per browser
	on     *run       // the browser ctxs were made in
	ctxs   *cdp.AgentContexts
	closed bool
}

// agents are the coordinator's agents that have secrets of their own.
type agents struct {
	mu       sync.Mutex
	bySecret map[string]*Agent
	made     int // agents made so far, for their names
}

// Own is the coordinator's own agent: its stdio session and the clients of
// its own endpoint (see Isolation); without isolation, the whole browser.
func (c *Coordinator) Own() *Agent { return c.own }

// Isolated reports whether agents work in browser contexts of their own.
func (c *Coordinator) Isolated() bool { return c.cfg.Isolation != Shared }

// NewAgent makes an agent with an endpoint of its own (an MCP session over
// HTTP), named for the log; Close it when it leaves. Without isolation it
// is the coordinator's own agent, whose Close does nothing.
func (c *Coordinator) NewAgent(name string) *Agent {
	if !c.Isolated() {
		return c.own
	}
	a := &Agent{c: c, secret: randomToken(), name: name}
	c.agents.mu.Lock()
	if c.agents.bySecret == nil {
		c.agents.bySecret = map[string]*Agent{}
	}
	c.agents.bySecret[a.secret] = a
	c.agents.mu.Unlock()
	return a
}

// IsAgent implements cdpproxy.Agents.
func (c *Coordinator) IsAgent(secret string) bool {
	return c.agent(secret) != nil
}

func (c *Coordinator) agent(secret string) *Agent {
	c.agents.mu.Lock()
	defer c.agents.mu.Unlock()
	return c.agents.bySecret[secret]
}

// connectionAgent is the agent of one connection to the coordinator's own
// endpoint (IsolatedPerConnection).
func (c *Coordinator) connectionAgent() *Agent {
	c.agents.mu.Lock()
	c.agents.made++
	n := c.agents.made
	c.agents.mu.Unlock()
	return &Agent{c: c, name: fmt.Sprintf("CDP connection %d", n)}
}

// Endpoints are the agent's CDP endpoints (see package endpoint).
func (a *Agent) Endpoints() endpoint.Proxy {
	e := a.c.proxy.Endpoints()
	if a.secret != "" {
		e.Secret = a.secret
	}
	return e
}

// Own reports whether a is the coordinator's own agent.
func (a *Agent) Own() bool { return a == a.c.own }

// Coordinator is the coordinator the agent works in.
func (a *Agent) Coordinator() *Coordinator { return a.c }

// Close ends the agent: its contexts are disposed (their tabs closed, their
// cookies gone) and its endpoint lets no one in any more. The
// coordinator's own agent is never closed.
func (a *Agent) Close() {
	if a.Own() {
		return
	}
	a.c.agents.mu.Lock()
	delete(a.c.agents.bySecret, a.secret)
	a.c.agents.mu.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	a.closed = true
	a.disposeLocked()
}

// disposeLocked disposes the agent's contexts in the browser that runs, if
// they are there; a.mu held.
func (a *Agent) disposeLocked() {
	b, ctxs := a.on, a.ctxs
	a.on, a.ctxs = nil, nil
	if b == nil || b.isGone() || ctxs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(a.c.ctx, 10*time.Second)
	defer cancel()
	caller, err := b.caller(ctx)
	if err != nil {
		return
	}
	for _, id := range append(ctxs.Made(), ctxs.Base()) {
		if _, err := caller.Call(ctx, "", "Target.disposeBrowserContext", map[string]string{"browserContextId": id}); err != nil {
			a.c.log.Debug("an agent's browser context could not be disposed", "agent", a.name, "context", id, "err", err)
		}
	}
	a.c.log.Info("agent left: its browser context was disposed", "agent", a.name, "contexts", len(ctxs.Made())+1)
}

// ErrAgentGone: the agent's session ended (its endpoint is no longer served).
var ErrAgentGone = errors.New("this agent has left (its MCP session ended): start a new session")

// contexts are the agent's contexts in b, made on first need.
func (a *Agent) contexts(ctx context.Context, b *run) (*cdp.AgentContexts, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, ErrAgentGone
	}
	if a.on == b && a.ctxs != nil {
		return a.ctxs, nil
	}
	if !b.isolates() {
		return nil, errCannotIsolate(b)
	}
	caller, err := b.caller(ctx)
	if err != nil {
		return nil, err
	}
	// disposeOnDetach: a browser the coordinator lets go of (attach mode)
	// drops the context with the coordinator's connection.
	res, err := caller.Call(ctx, "", "Target.createBrowserContext", map[string]any{"disposeOnDetach": true})
	if err != nil {
		return nil, fmt.Errorf("make a browser context for %s: %w", a.name, err)
	}
	a.on, a.ctxs = b, cdp.NewAgentContexts(gjson.GetBytes(res, "browserContextId").String())
	a.c.log.Debug("agent's browser context made", "agent", a.name, "context", a.ctxs.Base())
	return a.ctxs, nil
}

// known are the agent's contexts in b if they were made there (nil
// otherwise): for what must not wait or make anything.
func (a *Agent) known(b *run) *cdp.AgentContexts {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.on != b {
		return nil
	}
	return a.ctxs
}

// isolates: the backend can give agents contexts of their own — a
// launched browser, a service's session (one browser for every agent of
// the coordinator: its contexts cost the fleet nothing more), or one
// attached to (if it allows contexts: creating one says). VS Code's
// browser view is one page; the everyday browser shows tabs, not contexts.
func (b *run) isolates() bool {
	return b.kind == state.BackendTier1 || b.kind == state.BackendService || b.kind == state.BackendAttach
}

func errCannotIsolate(b *run) error {
	return fmt.Errorf("--isolated: %s cannot give each agent a browser context of its own (%s); the coordinator is started with --isolated, so it serves no agent here", b.describe, b.kind)
}

// caller is the coordinator's own CDP connection to the backend's browser
// (its tab follower's), for what it does on the browser's behalf.
func (b *run) caller(ctx context.Context) (cdp.Caller, error) {
	p, ok := b.pages.(*pages)
	if !ok {
		return nil, errCannotIsolate(b)
	}
	if err := p.wait(ctx); err != nil {
		return nil, err
	}
	return p.caller, nil
}

// isolation is the proxy's cdpproxy.Isolation for one backend.
type isolation struct {
	c *Coordinator
	b *run
}

func (i isolation) Join(ctx context.Context, secret string) (*cdp.AgentContexts, func(), error) {
	a, perConnection := i.agentFor(secret)
	if a == nil {
		return nil, nil, ErrAgentGone
	}
	ctxs, err := a.contexts(ctx, i.b)
	if err != nil {
		if perConnection {
			a.Close()
		}
		return nil, nil, err
	}
	if perConnection {
		return ctxs, a.Close, nil
	}
	return ctxs, func() {}, nil
}

func (i isolation) Peek(ctx context.Context, secret string) (*cdp.AgentContexts, error) {
	if secret == "" && i.c.cfg.Isolation == IsolatedPerConnection {
		return nil, nil // a request has no contexts of its own
	}
	a, _ := i.agentFor(secret)
	if a == nil {
		return nil, ErrAgentGone
	}
	return a.contexts(ctx, i.b)
}

// agentFor is the agent of a client with this secret ("" for the
// coordinator's own endpoint): an agent of its own for a connection to
// the own endpoint with IsolatedPerConnection (perConnection).
func (i isolation) agentFor(secret string) (a *Agent, perConnection bool) {
	switch {
	case secret != "":
		return i.c.agent(secret), false
	case i.c.cfg.Isolation == IsolatedPerConnection:
		return i.c.connectionAgent(), true
	}
	return i.c.own, false
}

// proxyBackend is what the proxy serves of b: with isolation, every client
// in its agent's contexts; a backend that cannot isolate then serves no one.
func (c *Coordinator) proxyBackend(b *run) (cdpproxy.Backend, error) {
	if !c.Isolated() {
		return b.proxy, nil
	}
	if !b.isolates() {
		return cdpproxy.Backend{}, errCannotIsolate(b)
	}
	p := b.proxy
	p.Isolation = isolation{c: c, b: b}
	return p, nil
}

// The agent's view of the tabs: with isolation, the pages of its contexts.

// pagesOn are the tabs the agent sees in b.
func (a *Agent) pagesOn(ctx context.Context, b *run) (backend.Pages, error) {
	if b.pages == nil {
		return nil, errors.New("this browser has no tabs the coordinator can follow")
	}
	if !a.c.Isolated() {
		return b.pages, nil
	}
	ctxs, err := a.contexts(ctx, b)
	if err != nil {
		return nil, err
	}
	return scopedPages{p: b.pages.(*pages), ctxs: ctxs}, nil // isolates: b.pages is a follower
}

// scopedPages are the pages of one agent's contexts.
type scopedPages struct {
	p    *pages
	ctxs *cdp.AgentContexts
}

func (s scopedPages) page(t cdp.Target) bool { return cdp.IsPage(t) && s.ctxs.Has(t.BrowserContextID) }

func (s scopedPages) Tabs(ctx context.Context) ([]Tab, error) { return s.p.tabsWhere(ctx, s.page) }

func (s scopedPages) Open(ctx context.Context, url string, focus bool) (Tab, error) {
	return s.p.openIn(ctx, url, focus, s.ctxs.Base())
}

func (s scopedPages) Focus(ctx context.Context, id string) (Tab, error) {
	if err := s.check(ctx, id); err != nil {
		return Tab{}, err
	}
	return s.p.Focus(ctx, id)
}

func (s scopedPages) Close(ctx context.Context, id string) error {
	if err := s.check(ctx, id); err != nil {
		return err
	}
	return s.p.Close(ctx, id)
}

// check: tab id is one of the agent's (the follower knows the targets it
// heard of; one it has not heard of yet is asked about).
func (s scopedPages) check(ctx context.Context, id string) error {
	t, ok := s.p.follow.Get(id)
	if !ok {
		if err := s.p.wait(ctx); err != nil {
			return err
		}
		res, err := s.p.caller.Call(ctx, "", "Target.getTargetInfo", map[string]string{"targetId": id})
		if err != nil {
			return tabError(id, err)
		}
		t = cdp.Target{Type: gjson.GetBytes(res, "targetInfo.type").String(), BrowserContextID: gjson.GetBytes(res, "targetInfo.browserContextId").String()}
	}
	if !s.page(t) {
		return fmt.Errorf("%w %q", ErrNoTab, id)
	}
	return nil
}

func (s scopedPages) CurrentURL() string {
	t, _ := s.p.follow.Latest(s.page)
	return t.URL
}

func (s scopedPages) Front() (Tab, bool)       { return s.p.frontWhere(s.page) }
func (s scopedPages) Changed() <-chan struct{} { return s.p.Changed() }
func (s scopedPages) Shutdown()                {} // the follower is the backend's

// proxyAgents are the agents the proxy lets in by their secrets: none
// without isolation.
func (c *Coordinator) proxyAgents() cdpproxy.Agents {
	if !c.Isolated() {
		return nil
	}
	return c
}

// Reset starts the agent afresh: its contexts are disposed (their tabs
// closed, their cookies and storage gone) and its own is a new, empty one;
// its CDP clients stay connected and find themselves in the new one. What
// stopping or restarting the browser is for one agent of many: the browser
// runs on for the others.
func (a *Agent) Reset(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return ErrAgentGone
	}
	b, ctxs := a.on, a.ctxs
	if b == nil || ctxs == nil || b.isGone() {
		return nil // nothing made yet, or gone with its browser
	}
	caller, err := b.caller(ctx)
	if err != nil {
		return err
	}
	res, err := caller.Call(ctx, "", "Target.createBrowserContext", map[string]any{"disposeOnDetach": true})
	if err != nil {
		return fmt.Errorf("make a new browser context for %s: %w", a.name, err)
	}
	for _, id := range ctxs.Replace(gjson.GetBytes(res, "browserContextId").String()) {
		if _, err := caller.Call(ctx, "", "Target.disposeBrowserContext", map[string]string{"browserContextId": id}); err != nil {
			a.c.log.Debug("an agent's browser context could not be disposed", "agent", a.name, "context", id, "err", err)
		}
	}
	a.c.log.Info("agent started afresh: its browser contexts were disposed", "agent", a.name)
	return nil
}

// AgentStatus is what an agent of an isolated coordinator is shown of
// itself: where its CDP clients connect (its own endpoints, with their
// secret: they reach its contexts only) and its context.
type AgentStatus struct {
	CDPEndpoint    string `json:"cdpEndpoint"`
	WSEndpoint     string `json:"wsEndpoint"`
	BrowserContext string `json:"browserContextId,omitempty"`
}

// Status is the coordinator's status, with the agent's own part when it
// has an endpoint of its own.
func (a *Agent) Status() Status {
	s := a.c.Status()
	if a.secret == "" {
		return s
	}
	e := a.Endpoints()
	s.Agent = &AgentStatus{CDPEndpoint: e.HTTP(), WSEndpoint: e.WS()}
	if m := a.c.read(); m.cur != nil {
		if ctxs := a.known(m.cur); ctxs != nil {
			s.Agent.BrowserContext = ctxs.Base()
		}
		if p, ok := m.cur.pages.(*pages); ok {
			ctxs := a.known(m.cur)
			s.CurrentURL = ""
			if ctxs != nil {
				s.CurrentURL = scopedPages{p: p, ctxs: ctxs}.CurrentURL()
			}
		}
	}
	return s
}

// BackendKey, Disconnected and Subscribe are the coordinator's, for those
// that follow an agent's tabs (pagefocus).
func (a *Agent) BackendKey() string                        { return a.c.BackendKey() }
func (a *Agent) Disconnected() error                       { return a.c.Disconnected() }
func (a *Agent) Subscribe() (<-chan backend.Event, func()) { return a.c.Subscribe() }
