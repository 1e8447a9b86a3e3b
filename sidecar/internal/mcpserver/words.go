package mcpserver

import (
	"context"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Remedies in the words of each tool surface. What a tool can do is said
// with the tool; what only the coordinator's start can change (a flag) is
// said in Options.StartWords, which the command line owns.

// defaultWords name the coordinator_* tools and their arguments.
func defaultWords() remedy.Words {
	return remedy.Words{
		remedy.Executable:    "give browserPath the browser's executable file (for example {arg}) and check that it is executable",
		remedy.PickDetected:  "use browserType to pick a detected one (see coordinator_list_browsers)",
		remedy.OpenTab:       "or call coordinator_open_tab with a URL",
		remedy.Reconnect:     "coordinator_restart_browser reconnects to it",
		remedy.SwitchBrowser: "coordinator_launch_browser with another browserType switches to a browser of the coordinator's own",
	}
}

// progressiveWords name 002's tools (--tools progressive), which launch
// no other browser and take no browser options.
func progressiveWords() remedy.Words {
	return remedy.Words{
		remedy.OpenTab:   "or call open_tab with a URL",
		remedy.Reconnect: "connect_browser reconnects to it",
	}
}

// Words are the words of the surface o asks for: the tools', over
// o.StartWords. The coordinator's other surfaces (the CDP proxy's answers,
// VS Code's view's refusals) use them too: the agent behind a CDP client
// is the one calling these tools.
func Words(o Options) remedy.Words {
	if o.Progressive {
		return progressiveWords().Over(o.StartWords)
	}
	return defaultWords().Over(o.StartWords)
}

// failure is a tool error's content until the surface has phrased it
// (phraseErrors): it marshals as the error's own text, and keeps the error
// for its remedies.
type failure struct {
	mcp.TextContent
	err error
}

// toolError is err as a tool error (isError), phrased for the surface on
// its way out.
func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{failure{TextContent: mcp.NewTextContent(err.Error()), err: err}}, IsError: true}
}

// phraseErrors says the remedies of every tool error in words: one place
// for all of a server's tools, whichever handler failed.
func phraseErrors(words remedy.Words) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, err := next(ctx, req)
			if r != nil {
				for i, c := range r.Content {
					if f, ok := c.(failure); ok {
						r.Content[i] = mcp.NewTextContent(words.Error(f.err))
					}
				}
			}
			return r, err
		}
	}
}
