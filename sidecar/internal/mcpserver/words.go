package mcpserver

import (
	"context"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// vocab is one tool surface's names for what its tools do: what the code
// both surfaces share (the page tools, the dialogs, the remedies) tells
// the agent to call. One table per surface; each name is one of its tools
// (TestEachSurfaceNamesItsOwnTools).
type vocab struct {
	listTabs, openTab, focusTab, handleDialog string
	reconnect                                 string // reconnects to a browser the coordinator did not start
	focusHint                                 string // how to focus a tab
	// The tools that launch a browser of the agent's choosing; "" on a
	// surface that has none.
	launch, listBrowsers string
}

// defaultVocab: the coordinator_* tools.
var defaultVocab = vocab{
	listTabs: "coordinator_list_tabs", openTab: "coordinator_open_tab", focusTab: "coordinator_focus_tab",
	handleDialog: "coordinator_handle_dialog",
	reconnect:    "coordinator_restart_browser",
	focusHint:    "bring a tab to the front (coordinator_focus_tab, coordinator_open_tab, or by navigating in it)",
	launch:       "coordinator_launch_browser", listBrowsers: "coordinator_list_browsers",
}

// progressiveVocab: 002's tools (--tools progressive), which launch no
// other browser and take no browser options.
var progressiveVocab = vocab{
	listTabs: "list_tabs", openTab: "open_tab", focusTab: "focus_tab",
	handleDialog: "handle_dialog",
	reconnect:    "connect_browser",
	focusHint:    "focus a tab with focus_tab (list_tabs shows them)",
}

func (o Options) vocab() vocab {
	if o.Progressive {
		return progressiveVocab
	}
	return defaultVocab
}

// remedies say what the surface's tools can do about an error; what only
// the coordinator's start can change (a flag) is said in
// Options.StartWords, which the command line owns.
func (v vocab) remedies() remedy.Words {
	w := remedy.Words{
		remedy.OpenTab:   "or call " + v.openTab + " with a URL",
		remedy.Reconnect: v.reconnect + " reconnects to it",
	}
	if v.launch != "" {
		w[remedy.Executable] = "give browserPath the browser's executable file (for example {arg}) and check that it is executable"
		w[remedy.PickDetected] = "use browserType to pick a detected one (see " + v.listBrowsers + ")"
		w[remedy.SwitchBrowser] = v.launch + " with another browserType switches to a browser of the coordinator's own"
	}
	return w
}

// Words are the words of the surface o asks for: its tools', over
// o.StartWords. The coordinator's other surfaces (the CDP proxy's answers,
// VS Code's view's refusals) use them too: the agent behind a CDP client
// is the one calling these tools.
func Words(o Options) remedy.Words {
	return o.vocab().remedies().Over(o.StartWords)
}

// failure is a tool error's content until the surface has phrased it
// (phraseErrors): it marshals as the error's own text, and keeps the error
// for its remedies; before and after are said around it.
type failure struct {
	mcp.TextContent
	err           error
	before, after string
}

func newFailure(before string, err error, after string) failure {
	return failure{TextContent: mcp.NewTextContent(before + err.Error() + after), err: err, before: before, after: after}
}

// toolError is err as a tool error (isError), phrased for the surface on
// its way out.
func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{newFailure("", err, "")}, IsError: true}
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
						r.Content[i] = mcp.NewTextContent(f.before + words.Error(f.err) + f.after)
					}
				}
			}
			return r, err
		}
	}
}
