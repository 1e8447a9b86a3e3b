// Package childmcp runs the child MCP server of single-entry mode
// (`browser-coordinator --mcp CMD ARGS…`) and serves its tools next to the
// coordinator's own.
//
// The child runs in a process group of its own (a kill-on-close Job object
// on Windows), so an `npx` tree ends with it. The coordinator is its MCP
// client over stdio (mcp-go's client and transport); its stderr goes to ours,
// its stdout is only the MCP stream. Tool schemas, results, errors, progress
// and log notifications and cancellation pass through unchanged: requests and
// results travel as raw JSON, never through mcp-go's typed structures, which
// drop what they do not model. A child that dies is started again by the next
// call, and that call goes through.
package childmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Config configures a Child.
type Config struct {
	Command []string  // the child's command line, CDP endpoint already filled in (required)
	Dir     string    // working directory; "" means ours
	Env     []string  // added to our environment
	Stderr  io.Writer // the child's stderr; nil means ours (the fd is inherited)
	// StartTimeout bounds spawn → initialize → tools/list; 0 means 60 s
	// (an `npx` that downloads its package first needs a while).
	StartTimeout time.Duration
	// StopTimeout is how long a child gets to exit after its stdin closes
	// before its process group is killed; 0 means 3 s.
	StopTimeout time.Duration
	// Secret, if set, is left out wherever the command line is shown
	// (status, logs): the CDP endpoint in it carries the proxy's secret.
	Secret string
	Logger *slog.Logger
}

// State is where the child is.
type State string

const (
	Starting State = "starting" // being started (the first time or again)
	Running  State = "running"  // initialized, serving calls
	Exited   State = "exited"   // died after running; the next call starts it again
	Failed   State = "failed"   // the last start failed; the next call tries again
)

// Status is the child's state, as coordinator_status shows it.
type Status struct {
	Command   string `json:"command"`
	State     State  `json:"state"`
	PID       int    `json:"pid,omitempty"`
	Tools     int    `json:"tools"` // as many as the child listed; a clashing name is not served
	Restarts  int    `json:"restarts"`
	LastError string `json:"lastError,omitempty"`
}

// Tool is one tool as the child listed it, byte for byte.
type Tool struct {
	Name string
	Raw  json.RawMessage
}

// ErrClosed is returned once the child has been closed.
var ErrClosed = errors.New("the child MCP is shutting down")

// Child supervises the child MCP: it starts it, starts it again after it
// died, and routes its notifications.
type Child struct {
	cfg    Config
	log    *slog.Logger
	ctx    context.Context // ends when Close begins: a start in progress gives up
	cancel context.CancelFunc

	mu       sync.Mutex
	conn     *conn
	flight   *flight // the start in progress
	state    State
	lastErr  string
	restarts int
	ran      bool   // a start has succeeded before
	tools    []Tool // from the first successful start
	closed   bool
	bg       sync.WaitGroup // closing dead connections

	onNotify atomic.Pointer[func(mcp.JSONRPCNotification)]
	progress sync.Map // our progress token → func(params map[string]any)
	tokens   atomic.Int64
}

type flight struct {
	done chan struct{}
	err  error
}

// New prepares a child; nothing runs until Start or the first Call.
func New(cfg Config) *Child {
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 60 * time.Second
	}
	if cfg.StopTimeout <= 0 {
		cfg.StopTimeout = 3 * time.Second
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if len(cfg.Command) > 0 {
		cfg.Env = append(besideCommand(cfg.Command[0], os.Getenv("PATH")), cfg.Env...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Child{cfg: cfg, log: cfg.Logger, ctx: ctx, cancel: cancel, state: Starting}
}

// OnNotification sets where the child's notifications go, other than the
// progress of calls (see TrackProgress).
func (c *Child) OnNotification(f func(mcp.JSONRPCNotification)) { c.onNotify.Store(&f) }

// Start starts the child and fetches its tools. It returns the tools, or why
// the child could not start; either way later calls try again.
func (c *Child) Start(ctx context.Context) ([]Tool, error) {
	if len(c.cfg.Command) == 0 {
		return nil, errors.New("childmcp: no command")
	}
	if _, err := c.connection(ctx); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.tools), nil
}

// Capabilities returns what the running child advertised, if it runs.
func (c *Child) Capabilities() (mcp.ServerCapabilities, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil || c.conn.init == nil {
		return mcp.ServerCapabilities{}, false
	}
	return c.conn.init.Capabilities, true
}

// Status reports where the child is.
func (c *Child) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Status{Command: c.shown(), State: c.state, Tools: len(c.tools), Restarts: c.restarts, LastError: c.lastErr}
	if c.conn != nil && c.state == Running {
		s.PID = c.conn.proc.pid
	}
	return s
}

// Call sends a request to the child (tools/call, logging/setLevel) and
// returns its raw result. A child that is not running is started first, and
// so is one found dead when the request goes out: the request then goes to
// the new child. A child that dies after it got the request is started
// again by the next call, but a tool call is not sent twice: it may have
// acted before the child died (a click, a form sent), and a call that
// crashed the child would likely crash the next one too. The agent is told
// and decides. A JSON-RPC error of the child is an *RPCError.
func (c *Child) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	repeatable := method != string(mcp.MethodToolsCall)
	for attempt := 0; ; attempt++ {
		conn, err := c.connection(ctx)
		if err != nil {
			return nil, err
		}
		res, err := conn.request(ctx, method, params)
		if !errors.Is(err, errLost) {
			return res, err
		}
		c.noteLost(conn)
		switch {
		case attempt == 0 && ctx.Err() == nil && (repeatable || errors.Is(err, errNotSent)):
			c.log.Warn("the child MCP died before it answered; starting it again and sending the request to the new one", "method", method)
			continue
		case !repeatable:
			return nil, fmt.Errorf("the child MCP exited during this call (%s), so it may or may not have acted: "+
				"check the page before repeating the call; the child starts again on the next call", c.Status().LastError)
		default:
			return nil, fmt.Errorf("the child MCP exited during the request (%s); it starts again on the next call", c.Status().LastError)
		}
	}
}

// Notify sends a notification to the child if it runs.
func (c *Child) Notify(method string, params map[string]any) {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn != nil && conn.alive() {
		conn.notify(method, params)
	}
}

// TrackProgress returns a progress token to send to the child; the child's
// notifications/progress for it go to f until untrack is called.
func (c *Child) TrackProgress(f func(params map[string]any)) (token string, untrack func()) {
	token = fmt.Sprintf("bc-progress-%d", c.tokens.Add(1))
	c.progress.Store(token, f)
	return token, func() { c.progress.Delete(token) }
}

func (c *Child) notification(n mcp.JSONRPCNotification) {
	if n.Method == string(mcp.MethodNotificationProgress) {
		if token, ok := n.Params.AdditionalFields["progressToken"].(string); ok {
			if f, ok := c.progress.Load(token); ok {
				f.(func(map[string]any))(n.Params.AdditionalFields)
			}
		}
		return
	}
	if f := c.onNotify.Load(); f != nil {
		(*f)(n)
	}
}

// connection returns the running connection, starting the child if none
// runs; concurrent callers share one start.
func (c *Child) connection(ctx context.Context) (*conn, error) {
	c.mu.Lock()
	for {
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClosed
		}
		if c.conn != nil && c.conn.alive() {
			conn := c.conn
			c.mu.Unlock()
			return conn, nil
		}
		if c.conn != nil {
			// Died between calls, and nobody noticed yet.
			if c.state == Running {
				c.lastErr = "the child MCP exited: " + lostReason(c.conn, 0)
			}
			c.retireLocked(c.conn)
		}
		f := c.flight
		if f == nil {
			f = &flight{done: make(chan struct{})}
			c.flight = f
			if c.ran {
				c.restarts++
			}
			c.state = Starting
			go c.start(f)
		}
		c.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if f.err != nil {
			return nil, f.err
		}
		c.mu.Lock()
	}
}

// start runs one start: spawn, handshake, tools/list.
func (c *Child) start(f *flight) {
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.StartTimeout)
	defer cancel()
	began := time.Now()
	conn, err := dial(ctx, &c.cfg, c.notification)
	var tools []Tool
	if err == nil {
		tools, err = conn.listTools(ctx)
		if err != nil {
			err = conn.startError(ctx, "list its tools", err)
			conn.close(0)
		}
	}

	c.mu.Lock()
	c.flight = nil
	f.err = err
	switch {
	case c.closed: // Close cut the start short, or it finished too late
		f.err = ErrClosed
		if err == nil {
			c.retireLocked(conn)
		}
	case err != nil:
		c.state, c.lastErr = Failed, err.Error()
		c.log.Error("the child MCP could not start", "command", c.shown(), "err", err)
	default:
		c.conn, c.state = conn, Running
		if !c.ran {
			c.tools = tools
		} else if !sameNames(tools, c.tools) {
			c.log.Warn("the child MCP lists other tools than at its first start; still serving the first list")
		}
		c.ran = true
		c.log.Info("child MCP running", "command", c.shown(), "pid", conn.proc.pid, "tools", len(tools), "took", time.Since(began).Round(time.Millisecond))
		go c.follow(conn)
	}
	c.mu.Unlock()
	close(f.done)
}

// follow notes the child's death when it happens between calls.
func (c *Child) follow(conn *conn) {
	<-conn.lost
	c.noteLost(conn)
}

func (c *Child) noteLost(conn *conn) {
	why := lostReason(conn, 100*time.Millisecond)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != conn || c.closed || c.state != Running {
		return
	}
	c.state, c.lastErr = Exited, "the child MCP exited: "+why
	c.log.Warn("the child MCP exited; it starts again on the next call", "pid", conn.proc.pid, "exit", why)
}

// lostReason says why conn broke, waiting up to wait for the exit status.
func lostReason(conn *conn, wait time.Duration) string {
	select {
	case <-conn.proc.exited:
		return exitText(conn.proc.err)
	case <-time.After(wait):
		return "its stdout closed"
	}
}

// retireLocked closes a dead connection in the background. c.mu is held.
func (c *Child) retireLocked(conn *conn) {
	if c.conn == conn {
		c.conn = nil
	}
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		conn.close(0)
	}()
}

// Close stops the child (stdin closes, then its group is killed) and waits
// until it is reaped.
func (c *Child) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.cancel()
	conn, f := c.conn, c.flight
	c.conn = nil
	c.mu.Unlock()
	if f != nil {
		<-f.done // start retires a connection it finishes after Close
	}
	if conn != nil {
		conn.close(c.cfg.StopTimeout)
	}
	c.bg.Wait()
	return nil
}

func sameNames(a, b []Tool) bool {
	return slices.EqualFunc(a, b, func(x, y Tool) bool { return x.Name == y.Name })
}

// shown is the command line for status and logs, the secret left out.
func (c *Child) shown() string {
	q := quote(c.cfg.Command)
	if c.cfg.Secret != "" {
		q = strings.ReplaceAll(q, c.cfg.Secret, "<secret>")
	}
	return q
}
