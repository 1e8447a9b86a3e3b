package mcpserver

import (
	"strings"
	"sync"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/childmcp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
)

type fakeChild struct {
	mu sync.Mutex
	st childmcp.Status
}

func (f *fakeChild) Status() childmcp.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st
}

func (f *fakeChild) set(st childmcp.Status) {
	f.mu.Lock()
	f.st = st
	f.mu.Unlock()
}

// withChild is a session with coordinator_status reporting child; it needs
// no browser (nothing here launches one).
func withChild(t *testing.T, child ChildReporter) *session {
	t.Helper()
	s, err := Build(newCoordinator(t, coordinator.Options{}), Options{PageTools: PageToolsOff, Child: child})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return open(t, s.MCP)
}

func TestStatusReportsTheChildMCP(t *testing.T) {
	child := &fakeChild{st: childmcp.Status{Command: "npx @playwright/mcp --cdp-endpoint=http://127.0.0.1:1", State: childmcp.Running, PID: 42, Tools: 25}}
	s := withChild(t, child)
	res := s.call("coordinator_status", nil) // checked against the output schema
	st := structured[struct {
		coordinator.Status
		Child childmcp.Status `json:"child"`
	}](t, res)
	if st.Child != child.Status() || st.State != coordinator.Idle {
		t.Fatalf("status: %+v", st)
	}
	if !strings.Contains(text(res), "Child MCP: npx @playwright/mcp --cdp-endpoint=http://127.0.0.1:1 — running (pid 42), 25 tools listed, 0 restarts") {
		t.Errorf("text: %s", text(res))
	}
	for _, tool := range s.listTools() {
		if tool.Name == "coordinator_status" && strings.Contains(tool.Description, "missing") {
			t.Errorf("a running child is reported missing: %s", tool.Description)
		}
	}

	child.set(childmcp.Status{Command: "npx @playwright/mcp", State: childmcp.Exited, Tools: 25, Restarts: 1, LastError: "the child MCP exited: signal: killed"})
	res = s.call("coordinator_status", nil)
	if !strings.Contains(text(res), "the next call of one of its tools starts it again") || !strings.Contains(text(res), "signal: killed") {
		t.Errorf("text of an exited child: %s", text(res))
	}
}

func TestAChildThatNeverStartedIsExplainedInToolsList(t *testing.T) {
	child := &fakeChild{st: childmcp.Status{Command: "no-such-mcp", State: childmcp.Failed, LastError: `exec: "no-such-mcp": executable file not found in $PATH`}}
	s := withChild(t, child)
	var desc string
	for _, tool := range s.listTools() {
		if tool.Name == "coordinator_status" {
			desc = tool.Description
		}
	}
	if !strings.Contains(desc, "child MCP (no-such-mcp) are missing") || !strings.Contains(desc, "executable file not found") {
		t.Errorf("coordinator_status description: %s", desc)
	}
	res := s.call("coordinator_status", nil)
	if res.IsError || !strings.Contains(text(res), "it never started") {
		t.Errorf("status: %s", text(res))
	}
	// The coordinator's own tools still work.
	if res := s.call("coordinator_list_browsers", nil); res.IsError {
		t.Errorf("coordinator_list_browsers: %s", text(res))
	}
}
