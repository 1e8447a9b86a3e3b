package mcpserver

// Output schemas, written out so that what clients validate against is
// exactly what the tools send (coordinator.Status, coordinator.Tab,
// browsers.Browser).
//
// Portable: one "type" per schema, never a list such as ["object","null"]
// (MCP Inspector's --strict check): clients that map tool schemas onto a
// single-type dialect (the OpenAPI subset of Gemini's function
// declarations) reject or drop those. A value that may be missing is left
// out of the result and of "required" instead of being null.

const browserSchema = `{"type":"object","properties":{
	"type":{"type":"string","description":"chrome, edge, chromium, brave, chrome-for-testing or vivaldi"},
	"name":{"type":"string"},
	"path":{"type":"string"},
	"version":{"type":"string"}
},"required":["type","name","path"]}`

const browsersSchema = `{"type":"object","properties":{
	"browsers":{"type":"array","items":` + browserSchema + `}
},"required":["browsers"]}`

const statusSchema = `{"type":"object","properties":{
	"state":{"type":"string","enum":["idle","launching","running","stopped","crashed"]},
	"backend":{"type":"string","enum":["tier1","tier2","attach","everyday","service"],"description":"tier1: a browser this coordinator launched; tier2: VS Code's own browser; attach: an existing browser given with --cdp-endpoint; everyday: the user's own browser; service: a session on the remote browser service given with --browser-service"},
	"browser":{"type":"object","description":"the browser in use; absent while none runs","properties":{
		"type":{"type":"string"},"path":{"type":"string"},"version":{"type":"string"},
		"pid":{"type":"integer"},"headless":{"type":"boolean"}
	}},
	"everyday":{"type":"object","description":"backend everyday: what is connected of the user's own browser","properties":{
		"via":{"type":"string","enum":["extension","devtools-port"],"description":"extension: the Browser Coordinator extension and its native host; devtools-port: the browser's own debugging port (Chrome 144+)"},
		"connected":{"type":"boolean"},
		"extensionId":{"type":"string"},"extensionVersion":{"type":"string"},
		"hostPid":{"type":"integer","description":"the native host the browser started"},
		"tabs":{"type":"integer","description":"the tabs the agent can see: the ones it opened and the ones the user shared"},
		"profile":{"type":"string"},"port":{"type":"integer"},
		"reason":{"type":"string","description":"why it is not connected"}
	},"required":["via","connected","tabs"]},
	"proxyPort":{"type":"integer","description":"the CDP proxy's port, the same for the coordinator's whole life"},
	"cdpEndpoint":{"type":"string","description":"give this to automation tools (e.g. --cdp-endpoint)"},
	"wsEndpoint":{"type":"string"},
	"currentUrl":{"type":"string","description":"the page in front"},
	"connections":{"type":"integer","description":"open CDP client connections"},
	"lastError":{"type":"string"},
	"waiting":{"type":"string","description":"state launching: what the start waits for (a remote service starting a browser, a slot in its queue)"},
	"pid":{"type":"integer"},
	"workspace":{"type":"string"},
	"stateFile":{"type":"string"},
	"startedAt":{"type":"string","format":"date-time"},
	"uptime":{"type":"string"},
	"version":{"type":"string"},
	"vscode":{"type":"object","description":"how the coordinator relates to VS Code","properties":{
		"inside":{"type":"boolean","description":"running inside VS Code"},
		"tier":{"type":"integer","enum":[1,2],"description":"2: VS Code's own browser view; 1: a launched browser"},
		"port":{"type":"integer","description":"VS Code's CDP port, when known"},
		"source":{"type":"string","description":"which step found it: VSCODE_CDP_PORT, port file, parent process"},
		"reason":{"type":"string"}
	},"required":["inside","tier","reason"]},
	"child":{"type":"object","description":"single-entry mode (--mcp): the child MCP whose tools are served here","properties":{
		"command":{"type":"string"},
		"state":{"type":"string","enum":["starting","running","exited","failed"],"description":"exited and failed: the next call of one of its tools starts it again"},
		"pid":{"type":"integer"},
		"tools":{"type":"integer","description":"how many of its tools are served"},
		"restarts":{"type":"integer"},
		"lastError":{"type":"string"}
	},"required":["command","state","tools","restarts"]}
},"required":["state","backend","proxyPort","cdpEndpoint","wsEndpoint","connections","pid"]}`
