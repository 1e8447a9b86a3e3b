package everyday

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/userbrowser"
)

// extensionIDForTest is the extension's id, fixed by its manifest key.
const extensionIDForTest = userbrowser.ExtensionID

// cdpClient speaks raw CDP over a Conn, as the coordinator's core does.
type cdpClient struct {
	t    testing.TB
	conn *Conn

	mu      sync.Mutex
	next    int64
	pending map[int64]chan cdpMsg
	events  []cdpMsg
	signal  chan struct{}
	done    chan struct{}
}

type cdpMsg struct {
	ID     int64           `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// openConn opens a Conn for folder on state and a client reading it; both
// end with the test (Close first, then the reader).
func openConn(t testing.TB, state, folder string) *cdpClient {
	t.Helper()
	level := slog.LevelWarn
	if os.Getenv("BROWSER_COORDINATOR_DEBUG") != "" {
		level = slog.LevelDebug
	}
	conn, err := Open(Options{StateDir: state, Folder: folder, Version: "test",
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))})
	if err != nil {
		t.Fatal(err)
	}
	c := &cdpClient{t: t, conn: conn, pending: map[int64]chan cdpMsg{}, signal: make(chan struct{}, 1), done: make(chan struct{})}
	go func() { // ends when the Conn closes; the cleanup waits for it
		defer close(c.done)
		for {
			raw, err := conn.ReadMessage()
			if err != nil {
				return
			}
			var m cdpMsg
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Errorf("the Conn produced a message that is not JSON: %s", raw)
				continue
			}
			c.mu.Lock()
			if m.Method == "" {
				ch := c.pending[m.ID]
				delete(c.pending, m.ID)
				c.mu.Unlock()
				if ch != nil {
					ch <- m
				} else {
					t.Errorf("an answer nobody asked for: %s", raw)
				}
				continue
			}
			c.events = append(c.events, m)
			c.mu.Unlock()
			select {
			case c.signal <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		conn.Close()
		<-c.done
	})
	return c
}

func (c *cdpClient) call(sessionID, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan cdpMsg, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": orEmpty(params), "sessionId": sessionID})
	if err := c.conn.WriteMessage(context.Background(), msg); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, errors.New(m.Error.Message)
		}
		return m.Result, nil
	case <-time.After(testutil.Guard):
		return nil, fmt.Errorf("%s: no answer in 30 s", method)
	}
}

func (c *cdpClient) must(sessionID, method string, params any) json.RawMessage {
	c.t.Helper()
	r, err := c.call(sessionID, method, params)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return r
}

// waitFor waits for an event that match accepts, among those received
// since the last take; it returns it and forgets the events before it.
func (c *cdpClient) waitFor(d time.Duration, what string, match func(cdpMsg) bool) cdpMsg {
	c.t.Helper()
	wait := max(d, testutil.Guard) // d is what it takes on a quiet machine; a busy one gets the guard
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		for i, m := range c.events {
			if match(m) {
				c.events = c.events[i+1:]
				c.mu.Unlock()
				return m
			}
		}
		c.mu.Unlock()
		select {
		case <-c.signal:
		case <-deadline.C:
			c.mu.Lock()
			var seen []string
			for _, m := range c.events {
				seen = append(seen, m.Method+"@"+m.SessionID)
			}
			c.mu.Unlock()
			c.t.Fatalf("no %s within %s; events: %v", what, wait, seen)
		}
	}
}

// has reports whether an event that match accepts has arrived (and
// keeps the events).
func (c *cdpClient) has(match func(cdpMsg) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.events {
		if match(m) {
			return true
		}
	}
	return false
}

func event(method, sessionID string) func(cdpMsg) bool {
	return func(m cdpMsg) bool { return m.Method == method && m.SessionID == sessionID }
}

func (c *cdpClient) pageTargets(sessionID string) []targetInfo {
	var r struct{ TargetInfos []targetInfo }
	_ = json.Unmarshal(c.must(sessionID, "Target.getTargets", nil), &r)
	return r.TargetInfos
}

// attach attaches a flat session to targetID from sessionID.
func (c *cdpClient) attach(sessionID, targetID string) string {
	c.t.Helper()
	var r struct{ SessionID string }
	_ = json.Unmarshal(c.must(sessionID, "Target.attachToTarget", map[string]any{"targetId": targetID, "flatten": true}), &r)
	if r.SessionID == "" {
		c.t.Fatal("attachToTarget gave no session")
	}
	return r.SessionID
}

// eval evaluates expr in a page session and returns its value.
func (c *cdpClient) eval(sessionID, expr string) (json.RawMessage, error) {
	raw, err := c.call(sessionID, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		return nil, err
	}
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct{ Text string }
	}
	_ = json.Unmarshal(raw, &r)
	if r.ExceptionDetails != nil {
		return nil, errors.New(r.ExceptionDetails.Text)
	}
	return r.Result.Value, nil
}

func (c *cdpClient) evalString(sessionID, expr string) string {
	c.t.Helper()
	v, err := c.eval(sessionID, expr)
	if err != nil {
		c.t.Fatalf("evaluate %s: %v", expr, err)
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		c.t.Fatalf("evaluate %s gave %s, not a string", expr, v)
	}
	return s
}

type targetInfo = userbrowser.Target

func orEmpty(p any) any {
	if p == nil {
		return struct{}{}
	}
	return p
}
