package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/childmcp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ChildReporter is what coordinator_status asks about the child MCP of
// single-entry mode (a *childmcp.Child).
type ChildReporter interface {
	Status() childmcp.Status
}

// childNote is a tool filter: while the child is not serving its tools
// because it failed to start, coordinator_status's description in
// tools/list says so, which is where an agent looks for its tools.
func childNote(child ChildReporter) server.ToolFilterFunc {
	return func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
		st := child.Status()
		if st.State != childmcp.Failed || st.Tools > 0 {
			return tools
		}
		out := make([]mcp.Tool, len(tools))
		for i, t := range tools {
			if t.Name == "coordinator_status" {
				t.Description = fmt.Sprintf("NOTE: the browser automation tools of the child MCP (%s) are missing: %s. "+
					"Fix the command given after --mcp and restart this MCP server. ", st.Command, st.LastError) + t.Description
			}
			out[i] = t
		}
		return out
	}
}

func renderChild(s childmcp.Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Child MCP: %s — %s", s.Command, s.State)
	if s.PID != 0 {
		fmt.Fprintf(&b, " (pid %d)", s.PID)
	}
	fmt.Fprintf(&b, ", %d tools listed, %d restarts", s.Tools, s.Restarts)
	switch {
	case s.State == childmcp.Failed && s.Tools == 0:
		b.WriteString("; it never started, so none of its tools are served: fix the command after --mcp and restart this MCP server")
	case s.State == childmcp.Exited || s.State == childmcp.Failed:
		b.WriteString("; the next call of one of its tools starts it again")
	}
	if s.LastError != "" {
		fmt.Fprintf(&b, "\nChild MCP last error: %s", s.LastError)
	}
	return b.String()
}
