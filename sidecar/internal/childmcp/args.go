package childmcp

import (
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/wrap"
)

// CommandLine is the child's command line in single-entry mode: the
// {cdp_endpoint}, {cdp_port} and {ws_endpoint} templates filled in from the
// coordinator's stable proxy endpoint (as `wrap` does). A command with an
// endpoint flag (wrap.EndpointFlags) already has its endpoint and is left
// alone: appending --cdp-endpoint would only confuse it (chrome-devtools-mcp
// rejects unknown flags). Any other command gets --cdp-endpoint=<endpoint>
// appended (Playwright MCP's flag).
func CommandLine(argv []string, f state.File) []string {
	switch {
	case wrap.HasTemplate(argv[1:]):
		return append(argv[:1:1], wrap.Expand(argv[1:], f)...)
	case wrap.NamesEndpoint(argv[1:]):
		return argv
	}
	return append(argv[:len(argv):len(argv)], "--cdp-endpoint="+f.CDPURL())
}
