package childmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pipepair"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/version"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// errLost means the connection to the child broke (it exited, or closed its
// stdout) before the answer came.
var errLost = errors.New("the child MCP's connection was lost")

// errNotSent is an errLost where the request never reached the child: the
// connection was known to be gone, or the request was never written.
var errNotSent = fmt.Errorf("%w before the request reached it", errLost)

// countingWriter counts the writes that went through, and keeps the size
// of the last one: the transport writes each message in one Write, so a
// request whose write did not go through, or still sits unread in the pipe
// after the child died, never reached the child. (The transport may refuse
// before writing or find no reader; both look alike in its errors.)
type countingWriter struct {
	w      *os.File
	mu     sync.Mutex
	writes int
	last   int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.w.Write(p)
	if err == nil {
		c.writes++
		c.last = n
	}
	return n, err
}

func (c *countingWriter) Close() error { return c.w.Close() }

func (c *countingWriter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

// reached says whether a request sent when count() was before may have
// reached the child: written, and read from the pipe (when that is known).
// Another message written meanwhile makes it unknowable: yes.
func (c *countingWriter) reached(before int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.writes - before {
	case 0:
		return false
	case 1:
		n, ok := unread(c.w)
		return !ok || n < c.last
	}
	return true
}

// RPCError is a JSON-RPC error the child answered with.
type RPCError struct {
	Code    int
	Message string
}

func (e *RPCError) Error() string { return e.Message }

// conn is one running child process and the MCP client session to it.
// Requests go out as raw JSON-RPC over mcp-go's stdio transport so that
// results come back byte for byte; mcp-go's client does the handshake and
// answers the child's own requests (ping).
type conn struct {
	proc   *process
	stdin  *countingWriter // our end of the child's stdin
	stdout *os.File        // our end of the child's stdout
	tr     *transport.Stdio
	client *client.Client
	init   *mcp.InitializeResult
	log    *slog.Logger

	seq       atomic.Int64
	lost      chan struct{} // closed when the child exited or the stream broke
	watched   chan struct{} // closed once watch has dealt with the leader's exit
	loseOnce  sync.Once
	closeOnce sync.Once
	stopOut   sync.Once

	garbageMu sync.Mutex
	garbage   []string // the first lines of non-JSON-RPC output, for error messages
	dropped   int
}

// dial starts the child and completes the MCP handshake within ctx.
func dial(ctx context.Context, cfg *Config, onNotify func(mcp.JSONRPCNotification)) (*conn, error) {
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Env = append(os.Environ(), cfg.Env...)
	cmd.Stderr = cfg.Stderr
	cmd.WaitDelay = time.Second // a stderr copier must not wait for grandchildren
	pipes, err := pipepair.New()
	if err != nil {
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = pipes.ChildIn, pipes.ChildOut
	p, err := spawn(cmd)
	pipes.CloseChildEnds()
	if err != nil {
		pipes.CloseOurs()
		return nil, fmt.Errorf("start the child MCP %s: %w", quote(cfg.Command), err)
	}
	c := &conn{proc: p, stdin: &countingWriter{w: pipes.ToChild}, stdout: pipes.FromChild, log: cfg.Logger.With("child", p.pid), lost: make(chan struct{}), watched: make(chan struct{})}
	go c.watch(cfg.StopTimeout)

	c.tr = transport.NewIO(newStdoutFilter(pipes.FromChild, c.onGarbage), c.stdin, nil)
	//lint:ignore SA1019 the child MCPs (Playwright MCP, chrome-devtools-mcp) speak the protocol versions with the initialize handshake
	c.client = client.NewClient(c.tr, client.WithLegacyProtocolOnly())
	c.client.OnNotification(onNotify)
	// The transport answers the child's requests (ping) under this context:
	// it must live as long as the connection, not as long as the start.
	if err := c.client.Start(context.Background()); err != nil {
		c.close(0)
		return nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "browser-coordinator", Version: version.Get().Version}
	c.init, err = c.client.Initialize(ctx, req)
	if err != nil {
		err = c.startError(ctx, "answer initialize", err)
		c.close(0)
		return nil, err
	}
	return c, nil
}

// watch follows the leader: when it exits, the rest of its tree goes too,
// and once the stream has had a moment to deliver what the child wrote last,
// our end of stdout closes so that nothing waits on a grandchild that
// escaped the group and still holds it.
func (c *conn) watch(grace time.Duration) {
	<-c.proc.exited
	c.proc.kill()
	c.markLost()
	time.AfterFunc(grace, c.closeStdout)
	close(c.watched)
}

func (c *conn) markLost() { c.loseOnce.Do(func() { close(c.lost) }) }

func (c *conn) closeStdout() { c.stopOut.Do(func() { c.stdout.Close() }) }

func (c *conn) alive() bool {
	select {
	case <-c.lost:
		return false
	default:
		return true
	}
}

func (c *conn) onGarbage(line []byte) {
	c.garbageMu.Lock()
	c.dropped++
	n := c.dropped
	if len(c.garbage) < 3 {
		c.garbage = append(c.garbage, truncate(string(line), 200))
	}
	c.garbageMu.Unlock()
	if n <= 5 {
		c.log.Warn("the child MCP wrote a line to stdout that is not JSON-RPC; ignored (stdout is the MCP stream, logs belong on stderr)",
			"line", truncate(string(line), 200))
	} else if n%1000 == 0 {
		c.log.Warn("the child MCP keeps writing non-JSON-RPC lines to stdout", "ignored", n)
	}
}

// startError explains why the child did not get through step.
func (c *conn) startError(ctx context.Context, step string, err error) error {
	var why string
	select {
	case <-c.proc.exited:
		why = "it exited at once (" + exitText(c.proc.err) + ")"
	case <-time.After(time.Second):
		// Alive: it hung, or its stream broke.
		if ctx.Err() != nil {
			why = "it did not " + step + " in time"
		} else {
			why = err.Error()
		}
	}
	c.garbageMu.Lock()
	if len(c.garbage) > 0 {
		why += fmt.Sprintf("; it wrote %d line(s) to stdout that are not JSON-RPC, e.g. %q", c.dropped, c.garbage[0])
	}
	c.garbageMu.Unlock()
	return fmt.Errorf("the child MCP did not %s: %s", step, why)
}

// request sends one JSON-RPC request with params passed through as they
// are (json.RawMessage stays raw) and returns the raw result. When ctx ends
// first the child is told with notifications/cancelled.
func (c *conn) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if !c.alive() {
		return nil, errNotSent
	}
	id := mcp.NewRequestId(fmt.Sprintf("bc-%d", c.seq.Add(1)))
	writes := c.stdin.count()
	resp, err := c.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params})
	if err != nil {
		if ctx.Err() != nil {
			c.cancel(id, ctx.Err())
			return nil, ctx.Err()
		}
		c.markLost()
		if !c.stdin.reached(writes) {
			return nil, fmt.Errorf("%w: %v", errNotSent, err)
		}
		return nil, fmt.Errorf("%w: %v", errLost, err)
	}
	if resp.Error != nil {
		return nil, &RPCError{Code: resp.Error.Code, Message: resp.Error.Message}
	}
	return resp.Result, nil
}

// cancel tells the child to stop working on request id, off the caller's path.
func (c *conn) cancel(id mcp.RequestId, why error) {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled),
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": why.Error()}},
	}}
	go func() {
		ctx, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = c.tr.SendNotification(ctx, n)
	}()
}

// notify sends a notification to the child, best effort.
func (c *conn) notify(method string, params map[string]any) {
	ctx, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	_ = c.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: method, Params: mcp.NotificationParams{AdditionalFields: params}}})
}

// listTools fetches every page of the child's tools/list, each tool as the
// child sent it.
func (c *conn) listTools(ctx context.Context) ([]Tool, error) {
	var tools []Tool
	var cursor string
	for page := 0; ; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := c.request(ctx, string(mcp.MethodToolsList), params)
		if err != nil {
			return nil, err
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("the child MCP's tools/list result is not valid: %w", err)
		}
		for _, t := range res.Tools {
			var named struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(t, &named); err != nil || named.Name == "" {
				return nil, fmt.Errorf("the child MCP listed a tool without a name: %s", truncate(string(t), 200))
			}
			tools = append(tools, Tool{Name: named.Name, Raw: t})
		}
		if res.NextCursor == "" || res.NextCursor == cursor || page > 1000 {
			return tools, nil
		}
		cursor = res.NextCursor
	}
}

// close ends the session: stdin closes (an MCP server's cue to exit); after
// grace the whole tree is killed. It returns once the child is reaped.
func (c *conn) close(grace time.Duration) {
	c.closeOnce.Do(func() {
		c.markLost()
		_ = c.tr.Close() // closes stdin; a request still waiting gets ErrTransportClosed
		select {
		case <-c.proc.exited:
		case <-time.After(grace):
			c.log.Debug("the child MCP did not exit after stdin closed; killing its process group")
		}
		c.proc.kill()
		// watch reaps the leader and kills what it left behind in its group.
		select {
		case <-c.watched:
		case <-time.After(10 * time.Second):
			c.log.Error("the child MCP's process survived a kill; giving up on it")
			return
		}
		c.closeStdout()
		c.proc.group.Release()
	})
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

func quote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\"'") {
			a = fmt.Sprintf("%q", a)
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
