package coordinator

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/version"
)

// Status is a snapshot of the coordinator, as tools and the control API
// report it. The CDP endpoint is shown with its secret left out: the state
// file (mode 0600) is where a program of this user finds it.
type Status struct {
	State       State          `json:"state"`
	Backend     string         `json:"backend"`
	Browser     *state.Browser `json:"browser,omitempty"`
	ProxyPort   int            `json:"proxyPort"`
	CDPEndpoint string         `json:"cdpEndpoint"`
	WSEndpoint  string         `json:"wsEndpoint"`
	CurrentURL  string         `json:"currentUrl,omitempty"`
	Connections int            `json:"connections"`
	LastError   string         `json:"lastError,omitempty"` // what went wrong; LastErr's remedies are the surface's to say
	LastErr     error          `json:"-"`
	Fallback    string         `json:"fallback,omitempty"`
	PID         int            `json:"pid"`
	Workspace   string         `json:"workspace"`
	StateFile   string         `json:"stateFile"`
	StartedAt   time.Time      `json:"startedAt"`
	Uptime      string         `json:"uptime"`
	Version     string         `json:"version"`
	VSCode      *VSCodeStatus  `json:"vscode,omitempty"`

	// Everyday says what is connected of the user's own browser (backend
	// everyday, running).
	Everyday *state.Everyday `json:"everyday,omitempty"`

	// Agent is the asking agent's own part, when it has an endpoint of its
	// own (--isolated: an MCP session over HTTP; see agents.go).
	Agent *AgentStatus `json:"agent,omitempty"`

	// Waiting says what a start under way waits for (a remote service
	// starting a browser, a slot in its queue).
	Waiting string `json:"waiting,omitempty"`
}

// Status reports where the coordinator is.
func (c *Coordinator) Status() Status {
	m := c.read()
	s := Status{
		State:       m.state,
		Backend:     state.BackendTier1,
		ProxyPort:   c.proxy.Port(),
		CDPEndpoint: c.proxy.Endpoints().Redacted().HTTP(),
		WSEndpoint:  c.proxy.Endpoints().Redacted().WS(),
		Connections: c.proxy.Connections(),
		Fallback:    m.fallback,
		PID:         os.Getpid(),
		Workspace:   c.workspace,
		StateFile:   c.statePath,
		StartedAt:   c.started,
		Uptime:      time.Since(c.started).Round(time.Second).String(),
		Version:     version.Get().Version,
		VSCode:      m.vscode,
	}
	if m.lastErr != nil {
		s.LastError, s.LastErr = m.lastErr.Error(), m.lastErr
	}
	s.Backend = m.source.Kind
	if w, ok := m.source.Connector.(backend.Waiter); ok && m.state == Launching {
		s.Waiting = w.Waiting()
	}
	if m.cur != nil {
		s.Backend = m.cur.kind
		if m.cur.pages != nil {
			s.CurrentURL = m.cur.pages.CurrentURL()
		}
	}
	if m.last != nil {
		b := *m.last
		if m.cur == nil {
			b.PID = 0 // not running
		}
		s.Browser = &b
	}
	if m.cur != nil {
		if r, ok := m.cur.conn.(backend.Reporter); ok {
			// Outside the machine's lock (read copied it): the everyday
			// connection has a lock of its own.
			b, e := r.Everyday()
			s.Browser, s.Everyday = &b, e
		}
	}
	return s
}

// stateFile is what the state file says: the status with the real
// endpoints (the secret in them) and the control token.
func (c *Coordinator) stateFile(s Status) state.File {
	return state.File{
		PID:          s.PID,
		ProxyPort:    s.ProxyPort,
		ProxySecret:  c.proxy.Secret(),
		CDPEndpoint:  c.proxy.Endpoint(),
		WSEndpoint:   c.proxy.WSEndpoint(),
		Backend:      s.Backend,
		Browser:      s.Browser,
		Everyday:     s.Everyday,
		State:        string(s.State),
		CurrentURL:   s.CurrentURL,
		Workspace:    s.Workspace,
		ControlToken: c.token,
		StartedAt:    s.StartedAt,
		Version:      s.Version,
	}
}

// publish writes the state file from the current status.
func (c *Coordinator) publish() error {
	c.publishMu.Lock()
	defer c.publishMu.Unlock()
	if c.read().closed {
		return nil // Close removes the file; never write it back
	}
	f := c.stateFile(c.Status())
	return state.Write(c.statePath, &f)
}

// publishSoon asks for a state file write without waiting for it; bursts
// of page events coalesce into one write.
func (c *Coordinator) publishSoon() {
	select {
	case c.dirty <- struct{}{}:
	default:
	}
}

func (c *Coordinator) publisher() {
	defer c.work.Done()
	for {
		select {
		case <-c.dirty:
			c.publishQuietly()
		case <-c.ctx.Done():
			return
		}
	}
}

func (c *Coordinator) publishQuietly() {
	if err := c.publish(); err != nil {
		c.log.Warn("could not update the state file", "path", c.statePath, "err", err)
	}
}

// randomToken is 128 random bits in hex: the control token, the proxy's
// secret (a URL path segment).
func randomToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// events fans events out to subscribers. A subscriber that does not keep up
// loses events (each channel has room for 64): events say "look again",
// and the status says what is.
type events struct {
	mu     sync.Mutex
	subs   map[chan Event]struct{}
	closed bool
}

// Subscribe returns a channel of events and a function that ends the
// subscription. The channel closes when the coordinator does.
func (c *Coordinator) Subscribe() (<-chan Event, func()) {
	e := &c.events
	ch := make(chan Event, 64)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		close(ch)
		return ch, func() {}
	}
	if e.subs == nil {
		e.subs = map[chan Event]struct{}{}
	}
	e.subs[ch] = struct{}{}
	return ch, func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if _, ok := e.subs[ch]; ok {
			delete(e.subs, ch)
			close(ch)
		}
	}
}

func (e *events) emit(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

func (e *events) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for ch := range e.subs {
		close(ch)
	}
	e.subs = nil
}
