package cli

import (
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// startWords say in flags what only the coordinator's start can change.
// The MCP surfaces say them too (mcpserver.Options.StartWords), under their
// tools' own words: an agent relays them to whoever configures the server.
func startWords() remedy.Words {
	return remedy.Words{
		remedy.BrowserPath:     "or start the coordinator with --browser-path to use a browser installed elsewhere",
		remedy.UserDataDir:     "or start the coordinator with another --user-data-dir",
		remedy.ProxyPort:       "choose another --proxy-port, or omit it to pick a free one",
		remedy.ProxyAuthOff:    "a hand-written setup can start the coordinator with --proxy-auth off",
		remedy.StateDir:        "pass --state-dir or set " + state.EnvDir + " to a folder of your own",
		remedy.OwnBrowser:      "to use a browser of its own instead of VS Code's, start the coordinator with --no-vscode",
		remedy.EverydayProfile: "start the coordinator with --user-data-dir when the browser's profile is not the default one",
		remedy.RegisterHost:    "register the native host with `browser-coordinator install --host chrome|edge|chromium|brave`",
		remedy.ExtensionID:     "or add its id with --extension-id when you run install",
		remedy.WaitLonger:      "pass --timeout to wait longer",
		remedy.AbsoluteSidecar: "pass --sidecar with its absolute path",
		remedy.FlagsBeforeChild: "put the coordinator's flags before --mcp and the child's command after it, " +
			"e.g. --browser chrome --mcp @playwright/mcp@latest; --mcp alone runs Playwright MCP",
		remedy.ChildCommand: "install Node.js (it brings npx), or give --child an absolute command, or --child none",
		remedy.UserScope:    "drop --scope project",
		// What the tools do, for the command line's launch|stop|restart
		// (the same actions through the control API).
		remedy.Executable:    "pass the browser's executable file to --browser-path (for example {arg}) and check that it is executable",
		remedy.PickDetected:  "use --browser to pick a detected one (see `browser-coordinator list-browsers`)",
		remedy.OpenTab:       "or open a page with `browser-coordinator launch --url URL`",
		remedy.Reconnect:     "`browser-coordinator restart` reconnects to it",
		remedy.SwitchBrowser: "`browser-coordinator launch --browser TYPE` switches to a browser of the coordinator's own",

		// A remote browser service (--browser-service).
		remedy.ServiceTimeout: "or start the coordinator with a longer --browser-service-timeout",
	}
}

// installWords are install's: there the child MCP's command is --child's.
func installWords() remedy.Words {
	return remedy.Words{
		remedy.FlagsBeforeChild: "give --child the child MCP's command first, then its flags, e.g. --child '@playwright/mcp@latest --headless'",
	}.Over(startWords())
}

// say is err's text with its remedies in the command line's words.
func say(err error) string { return startWords().Error(err) }
