package childmcp

import (
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/wrap"
)

// endpointFlags name a CDP endpoint on the command lines of the browser
// MCPs people run: Playwright MCP's --cdp-endpoint, chrome-devtools-mcp's
// --browserUrl / --browser-url / --wsEndpoint. A child given one of them
// already has its endpoint; appending --cdp-endpoint would only confuse it
// (chrome-devtools-mcp rejects unknown flags).
var endpointFlags = []string{"--cdp-endpoint", "--browserUrl", "--browser-url", "--wsEndpoint", "--ws-endpoint"}

// CommandLine is the child's command line in single-entry mode: the
// {cdp_endpoint}, {cdp_port} and {ws_endpoint} templates filled in from the
// coordinator's stable proxy endpoint (as `wrap` does), or, when the command
// has neither a template nor an endpoint flag, --cdp-endpoint=<endpoint>
// appended (Playwright MCP's flag).
func CommandLine(argv []string, f state.File) []string {
	for _, a := range argv[1:] {
		for _, t := range wrap.Templates {
			if strings.Contains(a, t) {
				return append(argv[:1:1], wrap.Expand(argv[1:], f)...)
			}
		}
	}
	for _, a := range argv[1:] {
		name, _, _ := strings.Cut(a, "=")
		for _, flag := range endpointFlags {
			if name == flag {
				return argv
			}
		}
	}
	return append(argv[:len(argv):len(argv)], "--cdp-endpoint="+f.CDPEndpoint)
}
