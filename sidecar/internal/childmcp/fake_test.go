package childmcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// The test binary doubles as the child MCP: with FAKE_CHILD set, TestMain
// runs fakeChild instead of the tests. It writes its JSON-RPC by hand, so the
// tests control every byte the proxy must pass through.
const fakeEnv = "FAKE_CHILD"

// fakeTools are the fake's tools as it lists them: schemas with what mcp-go's
// typed schema drops ($schema, description, anyOf, $defs, a boolean
// additionalProperties), titles, annotations, _meta, icons; one without
// annotations; one with the name of a tool the server already has.
var fakeTools = []string{
	`{"name":"echo","title":"Echo","description":"Returns every kind of content.","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","description":"what to echo","properties":{"mode":{"anyOf":[{"type":"string","enum":["a","b"]},{"type":"null"}],"description":"a mode"},"n":{"$ref":"#/$defs/count"}},"$defs":{"count":{"type":"integer","minimum":0}},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"ok":{"type":"boolean"},"big":{"type":"integer"}},"required":["ok"]},"annotations":{"title":"Echo","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"_meta":{"vendor/x":{"a":[1,2,3]}},"icons":[{"src":"data:image/png;base64,AAAA","mimeType":"image/png","sizes":["16x16"]}]}`,
	`{"name":"args","description":"Returns its raw arguments and _meta.","inputSchema":{"type":"object","properties":{}},"annotations":{"readOnlyHint":true}}`,
	`{"name":"plain","description":"A tool without annotations.","inputSchema":{"type":"object"}}`,
	`{"name":"fail","description":"A tool error.","inputSchema":{"type":"object"},"annotations":{}}`,
	`{"name":"rpcerror","description":"A protocol error.","inputSchema":{"type":"object"},"annotations":{}}`,
	`{"name":"progress","description":"Reports progress twice.","inputSchema":{"type":"object"},"annotations":{}}`,
	`{"name":"log","description":"Logs a warning.","inputSchema":{"type":"object"},"annotations":{}}`,
	`{"name":"slow","description":"Answers only when cancelled.","inputSchema":{"type":"object"},"annotations":{}}`,
	`{"name":"crash","description":"Exits without an answer.","inputSchema":{"type":"object"},"annotations":{}}`,
	`{"name":"stall","description":"Stops reading, then exits without an answer.","inputSchema":{"type":"object"},"annotations":{}}`,
	`{"name":"pid","description":"Its process id.","inputSchema":{"type":"object"},"annotations":{}}`,
	`{"name":"grandchild","description":"Starts a process of its own and returns its pid.","inputSchema":{"type":"object"},"annotations":{}}`,
	`{"name":"own_tool","description":"Clashes with the server's own tool.","inputSchema":{"type":"object"},"annotations":{}}`,
}

// echoResult has every content type (and one mcp-go does not know), with
// annotations and _meta on items, structuredContent with an integer beyond
// 2^53, and _meta on the result.
const echoResult = `{"content":[` +
	`{"type":"text","text":"hello","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":"v"}},` +
	`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},` +
	`{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},` +
	`{"type":"resource","resource":{"uri":"file:///tmp/x.txt","mimeType":"text/plain","text":"x","_meta":{"r":1}}},` +
	`{"type":"resource_link","uri":"file:///tmp/y.png","name":"y","title":"Y","mimeType":"image/png","size":12,"icons":[{"src":"data:,"}]},` +
	`{"type":"hologram","frames":[1,2]}` +
	`],"structuredContent":{"ok":true,"big":9007199254740993},"_meta":{"vendor/trace":{"id":"abc","n":12345678901234567890}},"isError":false}`

func fakeChild() int {
	mode := os.Getenv(fakeEnv)
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "fake child: cannot start, bad configuration")
		return 2
	case "garbage":
		fmt.Println("Hello! I am a server that prints to stdout.")
		fmt.Println("Listening on port 1234")
		select {}
	}
	var mu sync.Mutex
	send := func(v string) {
		mu.Lock()
		defer mu.Unlock()
		if mode == "noisy" {
			fmt.Println("debug: about to answer")
		}
		fmt.Println(v)
	}
	// mark tells the test what the fake was told, as a log message.
	mark := func(what string) {
		data, _ := json.Marshal(what)
		send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"mark","data":` + string(data) + `}}`)
	}
	slow := map[string]bool{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		result := func(r string) { send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + r + `}`) }
		var p struct {
			ProtocolVersion string          `json:"protocolVersion"`
			Cursor          string          `json:"cursor"`
			Name            string          `json:"name"`
			Arguments       json.RawMessage `json:"arguments"`
			Meta            json.RawMessage `json:"_meta"`
			RequestID       json.RawMessage `json:"requestId"`
			Level           string          `json:"level"`
		}
		_ = json.Unmarshal(m.Params, &p)
		switch m.Method {
		case "initialize":
			result(`{"protocolVersion":"` + p.ProtocolVersion + `","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"fake","version":"1"}}`)
		case "tools/list": // two pages
			if p.Cursor == "" {
				result(`{"tools":[` + strings.Join(fakeTools[:2], ",") + `],"nextCursor":"page2"}`)
			} else {
				result(`{"tools":[` + strings.Join(fakeTools[2:], ",") + `]}`)
			}
		case "logging/setLevel":
			result(`{}`)
			mark("level " + p.Level)
		case "notifications/cancelled":
			if slow[string(p.RequestID)] {
				mark("cancelled " + string(p.RequestID))
			}
		case "tools/call":
			switch p.Name {
			case "echo":
				result(echoResult)
			case "args":
				if p.Meta == nil {
					p.Meta = json.RawMessage("null")
				}
				text, _ := json.Marshal(string(p.Arguments) + " " + string(p.Meta))
				result(`{"content":[{"type":"text","text":` + string(text) + `}]}`)
			case "fail":
				result(`{"content":[{"type":"text","text":"it went wrong"}],"isError":true}`)
			case "rpcerror":
				send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32602,"message":"bad params: mode must be a or b"}}`)
			case "progress":
				var meta struct {
					Token json.RawMessage `json:"progressToken"`
				}
				_ = json.Unmarshal(p.Meta, &meta)
				for i := 1; i <= 2; i++ {
					send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":2,"message":"step %d"}}`, meta.Token, i, i))
				}
				result(`{"content":[{"type":"text","text":"done"}]}`)
			case "log":
				send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"fake","data":{"k":"v"}}}`)
				result(`{"content":[{"type":"text","text":"logged"}]}`)
			case "slow":
				slow[string(m.ID)] = true // answered never; its cancellation is reported
				mark("slow started")
			case "crash":
				return 3
			case "stall":
				mark("stalled")
				awaitInput() // what comes next is in the pipe, and stays unread there
				return 3
			case "pid":
				result(fmt.Sprintf(`{"content":[{"type":"text","text":"%d"}]}`, os.Getpid()))
			case "grandchild":
				cmd := exec.Command("sleep", "300")
				if err := cmd.Start(); err != nil {
					result(`{"content":[{"type":"text","text":"` + err.Error() + `"}],"isError":true}`)
					continue
				}
				result(fmt.Sprintf(`{"content":[{"type":"text","text":"%d"}]}`, cmd.Process.Pid))
			default:
				send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32602,"message":"unknown tool"}}`)
			}
		default:
			if m.ID != nil {
				send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"method not found"}}`)
			}
		}
	}
	return 0
}
