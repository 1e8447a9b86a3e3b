package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/gorilla/websocket"
)

// connector opens sessions on the service.
type connector struct {
	s       service
	timeout time.Duration // a start's bound, for messages

	mu      sync.Mutex
	waiting string // what the start under way waits for ("" when none is)
}

// Waiting says what the start under way waits for: the service starting
// a browser, or a slot in its queue.
func (k *connector) Waiting() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.waiting
}

func (k *connector) wait(what string) {
	k.mu.Lock()
	k.waiting = what
	k.mu.Unlock()
}

// Connect opens a session: one WebSocket, one browser on the service. o's
// URL, if any, is its first page; the rest of o is a launch's.
func (k *connector) Connect(ctx context.Context, o backend.Options) (backend.Connection, error) {
	k.wait("a session at " + k.s.shown + " (the service starts a browser for it)")
	defer k.wait("")
	// While the handshake waits, ask the service whether it is full: the
	// session then waits in its queue, which status should say. The
	// question opens no session.
	asked, ask := context.WithCancel(ctx)
	var load pressure
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if p, err := k.s.pressure(asked); err == nil {
			load = p
			if p.full() {
				k.wait(fmt.Sprintf("a slot at %s, where the session is queued (%s)", k.s.shown, p))
			}
		}
	}()
	ws, err := k.s.dial(ctx)
	ask()
	wg.Wait()
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil, ctx.Err() // taken back (a stop): nothing to say
	}
	if err != nil {
		return nil, k.refusal(ctx, err, load)
	}
	// What the browser says of its pages, for firstPage only: a session
	// opened without a first page decodes no event of its own.
	var opts cdp.Options
	pages := make(chan cdp.Target, 64)
	if o.URL != "" {
		opts.OnEvent = func(m cdp.Message) { notePage(m, pages) }
	}
	conn := cdp.NewConn(cdp.WebSocket(ws), opts)
	v, err := cdp.GetVersion(ctx, conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("the browser service at %s opened a session whose browser did not answer: %w", k.s.shown, err)
	}
	if o.URL != "" {
		if err := firstPage(ctx, conn, o.URL, pages); err != nil {
			conn.Close()
			return nil, fmt.Errorf("the browser service's session: open %s: %w", o.URL, err)
		}
	}
	return &session{s: k.s, conn: conn, version: v}, nil
}

// dial opens the session's WebSocket. A handshake the service holds (its
// queue) waits until ctx ends; leaving closes the connection, and the
// service drops the session it had queued.
func (s service) dial(ctx context.Context) (*websocket.Conn, error) {
	// The dialer heeds ctx's deadline, not its cancellation (a stop): the
	// connection is closed under it instead.
	var (
		mu sync.Mutex
		nc net.Conn
	)
	tcp := func(ctx context.Context, _, _ string) (net.Conn, error) {
		c, err := s.e.DialTCP(ctx)
		mu.Lock()
		nc = c
		mu.Unlock()
		return c, err
	}
	cut := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if nc != nil {
			nc.Close()
		}
	})
	d := websocket.Dialer{NetDialContext: tcp, ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10}
	if s.e.TLS {
		// The TLS handshake is DialTCP's; the dialer must not add one.
		d.NetDialTLSContext, d.NetDialContext = d.NetDialContext, nil
	}
	ws, resp, err := d.DialContext(ctx, s.e.BrowserURL(), s.e.Header.Clone())
	if !cut() {
		if ws != nil {
			ws.Close()
		}
		return nil, ctx.Err()
	}
	if err != nil && resp != nil {
		return nil, &refused{status: resp.StatusCode, text: resp.Status}
	}
	return ws, err
}

// refused is the service's answer instead of a session.
type refused struct {
	status int
	text   string // "429 Too Many Requests"
}

func (r *refused) Error() string { return "the service answered " + r.text }

// refusal says why a session did not open, in words and as an error
// callers can test.
func (k *connector) refusal(ctx context.Context, err error, load pressure) error {
	// The dialer ends at ctx's deadline on its own (an i/o timeout), a
	// moment before ctx says so.
	deadline, bounded := ctx.Deadline()
	expired := ctx.Err() != nil || (bounded && !time.Now().Before(deadline))
	var r *refused
	if expired || (errors.As(err, &r) && r.status == http.StatusTooManyRequests) {
		// What the service's load is now, when it refused or the start
		// gave up: the answer asked for at the start may be missing or old.
		ask, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if now, err := k.s.pressure(ask); err == nil {
			load = now
		}
		cancel()
	}
	switch {
	case errors.As(err, &r) && r.status == http.StatusTooManyRequests:
		return errorf(ErrAtCapacity, "the browser service at %s is at capacity: it refused a session (%s; %s); "+
			"stop a browser you no longer need on it (another coordinator's), or raise its limits (CONCURRENT, QUEUED); the next need asks again",
			k.s.shown, r.text, load.orFull())
	case errors.As(err, &r) && (r.status == http.StatusUnauthorized || r.status == http.StatusForbidden):
		return fmt.Errorf("the browser service at %s refused the token (%s): set %s to a token it accepts, and restart the coordinator", k.s.shown, r.text, TokenEnv)
	case errors.As(err, &r):
		return fmt.Errorf("the browser service at %s refused a session: it answered %s", k.s.shown, r.text)
	case expired && load.full():
		return remedy.With(errorf(ErrQueued, "the browser service at %s queued the session and had no slot for it within %s (%s): the start was given up, and the service drops the session; "+
			"stop a browser you no longer need on it", k.s.shown, k.timeout, load), remedy.ServiceTimeout)
	case expired:
		return remedy.With(fmt.Errorf("the browser service at %s did not open a session within %s", k.s.shown, k.timeout), remedy.ServiceTimeout)
	}
	return errorf(backend.ErrUnreachable, "the browser service at %s does not answer (%v): is it running, and is the address right? The next need tries again", k.s.shown, err)
}

// said is an error in words of its own that callers test by kind
// (errors.Is).
type said struct {
	kind error
	text string
}

func (e *said) Error() string { return e.text }
func (e *said) Unwrap() error { return e.kind }

func errorf(kind error, format string, a ...any) error {
	return &said{kind: kind, text: fmt.Sprintf(format, a...)}
}

// pressure is the service's load (Browserless's /pressure).
type pressure struct {
	Running       int `json:"running"`
	Queued        int `json:"queued"`
	MaxConcurrent int `json:"maxConcurrent"`
	MaxQueued     int `json:"maxQueued"`
}

func (s service) pressure(ctx context.Context) (pressure, error) {
	var got struct {
		Pressure pressure `json:"pressure"`
	}
	err := s.e.GetJSON(ctx, "/pressure", &got)
	return got.Pressure, err
}

// full: every slot is taken, so a new session waits in the queue.
func (p pressure) full() bool { return p.MaxConcurrent > 0 && p.Running >= p.MaxConcurrent }

func (p pressure) String() string {
	return fmt.Sprintf("%d of %d sessions running, %d of %d queued", p.Running, p.MaxConcurrent, p.Queued, p.MaxQueued)
}

// orFull is what a refusal says of the load: the figures, when the
// service gave them.
func (p pressure) orFull() string {
	if p.MaxConcurrent == 0 {
		return "its sessions and its queue are all taken"
	}
	return p.String()
}

// notePage passes a page's creation, or any target's end, to firstPage;
// news it has no room for is dropped (discovery ends with firstPage).
func notePage(m cdp.Message, pages chan<- cdp.Target) {
	var ev struct {
		TargetInfo cdp.Target `json:"targetInfo"`
		TargetID   string     `json:"targetId"`
	}
	if (m.Method != "Target.targetCreated" && m.Method != "Target.targetDestroyed") || json.Unmarshal(m.Params, &ev) != nil {
		return
	}
	if m.Method == "Target.targetDestroyed" {
		ev.TargetInfo = cdp.Target{ID: ev.TargetID, Type: "destroyed"}
	} else if !cdp.IsPage(ev.TargetInfo) {
		return
	}
	select {
	case pages <- ev.TargetInfo:
	default:
	}
}

// startupWait bounds the wait for the browser's startup page: a service
// whose browsers open none gets its first page after it. (A browser the
// service starts on a machine at a load of 40 opened it 10 s and more
// after its endpoint answered.)
const startupWait = 30 * time.Second

// firstPage makes url the session's first page, in place of the browser's
// startup page (about:blank). A browser the service has just started may
// answer before it opened that page (on a busy machine, well before): the
// first page it announces is waited for, so that it is closed, not left
// beside the new one.
func firstPage(ctx context.Context, conn *cdp.Conn, url string, news <-chan cdp.Target) error {
	if _, err := conn.Call(ctx, "", "Target.setDiscoverTargets", map[string]any{"discover": true}); err != nil {
		return err
	}
	// The coordinator follows targets on its own, from a browser that
	// does not discover them yet.
	defer conn.Call(context.WithoutCancel(ctx), "", "Target.setDiscoverTargets", map[string]any{"discover": false}) //nolint:errcheck
	var startup cdp.Target
	wait := time.After(startupWait)
	for startup.ID == "" {
		select {
		case t := <-news: // the pages that exist are announced at once
			if cdp.IsPage(t) {
				startup = t
			}
		case <-wait:
			_, err := conn.Call(ctx, "", "Target.createTarget", map[string]any{"url": url})
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if _, err := conn.Call(ctx, "", "Target.createTarget", map[string]any{"url": url}); err != nil {
		return err
	}
	if startup.URL != "about:blank" && startup.URL != "" {
		return nil // a page of the service's own: kept
	}
	if _, err := conn.Call(ctx, "", "Target.closeTarget", map[string]any{"targetId": startup.ID}); err != nil {
		return nil // gone already
	}
	// Closed once the browser says so: the coordinator's first look at
	// the targets must not find it.
	for {
		select {
		case t := <-news:
			if t.Type == "destroyed" && t.ID == startup.ID {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// session is one browser on the service: a WebSocket the coordinator
// holds. Closing it ends the browser and frees the slot.
type session struct {
	s       service
	conn    *cdp.Conn
	version cdp.Version
}

func (x *session) Conn() *cdp.Conn         { return x.conn }
func (x *session) Endpoint() *cdp.Endpoint { return nil }
func (x *session) Version() cdp.Version    { return x.version }
func (x *session) Done() <-chan struct{}   { return x.conn.Done() }

// Close closes the WebSocket: the service ends the browser.
func (x *session) Close(context.Context) error { return x.conn.Close() }

func (x *session) Browser() state.Browser {
	return state.Browser{Type: backend.ProductType(x.version.Product), Path: x.s.shown, Version: backend.ProductVersion(x.version.Product)}
}

// Gone says why the session ended: the service went away, or it ended
// the session (its own time limit).
func (x *session) Gone() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := x.s.pressure(ctx); err != nil {
		return errorf(backend.ErrUnreachable, "lost the session: the browser service at %s does not answer now (%v); the next need opens a new session", x.s.shown, err)
	}
	return fmt.Errorf("the browser service at %s ended the session (its time limit for a session?); the next need opens a new one", x.s.shown)
}
