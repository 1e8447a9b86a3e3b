package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

type session struct {
	t       *testing.T
	client  *client.Client
	outputs map[string]*jsonschema.Schema
}

func start(t *testing.T) *session {
	t.Helper()
	return open(t, New(newCoordinator(t, coordinator.Options{BrowserPath: testutil.BrowserPath(t), Headless: true})))
}

// newCoordinator is a coordinator with a state dir of its own; it launches
// nothing until asked.
func newCoordinator(t *testing.T, o coordinator.Options) *coordinator.Coordinator {
	t.Helper()
	dir, err := os.MkdirTemp("", "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c, err := coordinator.New(coordinator.Config{StateDir: dir, Options: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// open connects an in-process client to srv and compiles the tools' schemas.
func open(t *testing.T, srv *server.MCPServer) *session {
	t.Helper()
	cl, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := cl.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	s := &session{t: t, client: cl, outputs: map[string]*jsonschema.Schema{}}
	for _, tool := range s.listTools() {
		compile(t, tool.Name+"-input", tool.InputSchema)
		if len(tool.OutputSchema) == 0 {
			t.Fatalf("%s: no output schema", tool.Name)
		}
		s.outputs[tool.Name] = compile(t, tool.Name+"-output", tool.OutputSchema)
	}
	return s
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  map[string]any  `json:"annotations"`
}

// listTools returns the tools as they go over the wire.
func (s *session) listTools() []wireTool {
	s.t.Helper()
	list, err := s.client.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		s.t.Fatal(err)
	}
	raw, _ := json.Marshal(list)
	var wire struct {
		Tools []wireTool `json:"tools"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		s.t.Fatal(err)
	}
	return wire.Tools
}

func compile(t *testing.T, name string, raw []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: schema is not JSON: %v\n%s", name, err, raw)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatalf("%s: schema does not compile: %v", name, err)
	}
	return s
}

// call runs a tool and checks its structured content against the declared
// output schema; it returns the result.
func (s *session) call(name string, args map[string]any) *mcp.CallToolResult {
	s.t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := s.client.CallTool(context.Background(), req)
	if err != nil {
		s.t.Fatalf("%s: protocol error %v (tool errors must be results)", name, err)
	}
	if len(res.Content) == 0 {
		s.t.Fatalf("%s: no text content", name)
	}
	if schema := s.outputs[name]; !res.IsError && schema != nil { // page tools declare no output schema
		data, _ := json.Marshal(res.StructuredContent)
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			s.t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			s.t.Fatalf("%s: structured content does not match its output schema: %v\n%s", name, err, data)
		}
	}
	return res
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func structured[T any](t *testing.T, r *mcp.CallToolResult) T {
	t.Helper()
	var v T
	data, _ := json.Marshal(r.StructuredContent)
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestToolsAndTheirSchemas(t *testing.T) {
	s := start(t)
	tools := s.listTools()
	if len(tools) != 9 {
		t.Fatalf("%d tools", len(tools))
	}
	for _, tool := range tools {
		if !strings.HasPrefix(tool.Name, "coordinator_") || len(tool.Description) < 40 {
			t.Errorf("%s: name or description", tool.Name)
		}
		for _, hint := range []string{"readOnlyHint", "destructiveHint"} {
			if _, ok := tool.Annotations[hint].(bool); !ok {
				t.Errorf("%s: no %s", tool.Name, hint)
			}
		}
	}

	st := structured[coordinator.Status](t, s.call("coordinator_status", nil))
	if st.State != coordinator.Idle || st.Browser != nil {
		t.Fatalf("status at start: %+v", st)
	}
	browsers := s.call("coordinator_list_browsers", nil)
	if !strings.Contains(text(browsers), "chromium") {
		t.Fatalf("list_browsers: %s", text(browsers))
	}
	st = structured[coordinator.Status](t, s.call("coordinator_launch_browser", map[string]any{"headless": true}))
	if st.State != coordinator.Running || st.Browser == nil || !st.Browser.Headless {
		t.Fatalf("launch: %+v", st)
	}
	pid := st.Browser.PID

	// With only a url, a running browser opens it in a tab instead of relaunching.
	st = structured[coordinator.Status](t, s.call("coordinator_launch_browser", map[string]any{"url": "about:blank#from-launch"}))
	if st.Browser.PID != pid || st.CurrentURL != "about:blank#from-launch" {
		t.Fatalf("launch with a url: %+v", st)
	}

	opened := structured[tabAnswer](t, s.call("coordinator_open_tab", map[string]any{"url": "about:blank#opened"}))
	tabs := structured[struct {
		Tabs         []tabRow `json:"tabs"`
		FocusedTabID string   `json:"focusedTabId"`
	}](t, s.call("coordinator_list_tabs", nil))
	if tabs.FocusedTabID != opened.ID || len(tabs.Tabs) != 3 || !opened.Focused {
		t.Fatalf("tabs: %+v (opened %s)", tabs, opened.ID)
	}
	s.call("coordinator_focus_tab", map[string]any{"tabId": tabs.Tabs[0].ID})
	closed := structured[map[string]string](t, s.call("coordinator_close_tab", nil))
	if closed["closed"] != tabs.Tabs[0].ID {
		t.Fatalf("closing the tab in front closed %v, want %s", closed, tabs.Tabs[0].ID)
	}

	st = structured[coordinator.Status](t, s.call("coordinator_restart_browser", nil))
	if st.State != coordinator.Running || st.Browser.PID == pid {
		t.Fatalf("restart: %+v", st)
	}
	st = structured[coordinator.Status](t, s.call("coordinator_stop_browser", nil))
	if st.State != coordinator.Stopped {
		t.Fatalf("stop: %+v", st)
	}
}

func TestBadArguments(t *testing.T) {
	s := start(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"coordinator_launch_browser", map[string]any{"browserType": "firefox"}, `unknown browser type "firefox"`},
		{"coordinator_launch_browser", map[string]any{"browserType": 7}, "browserType must be a string"},
		{"coordinator_launch_browser", map[string]any{"headless": "no"}, "headless must be true or false"},
		{"coordinator_launch_browser", map[string]any{"url": "javascript:alert(1)"}, "not a URL a browser can open"},
		{"coordinator_launch_browser", map[string]any{"browserPath": " "}, "browserPath is empty"},
		{"coordinator_launch_browser", map[string]any{"colour": "red"}, "unknown argument colour; allowed: browserType, browserPath, headless, url"},
		{"coordinator_stop_browser", map[string]any{"force": true}, "unknown argument force; allowed: none"},
		{"coordinator_open_tab", map[string]any{}, "url is required"},
		{"coordinator_open_tab", map[string]any{"url": "x"}, "not a URL"},
		{"coordinator_focus_tab", map[string]any{"tabId": 5}, "tabId must be a string"},
	} {
		res := s.call(tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v: isError=%v %q; want %q", tc.tool, tc.args, res.IsError, text(res), tc.want)
		}
	}
	st := structured[coordinator.Status](t, s.call("coordinator_status", nil))
	if st.State != coordinator.Idle {
		t.Fatalf("bad arguments launched a browser: %+v", st)
	}
}

// Every schema the coordinator writes is portable (MCP Inspector's --strict
// check, which scripts/e2e/inspector.test.mjs runs for real): one "type" per
// schema, a string, in every subschema.
func TestSchemasArePortable(t *testing.T) {
	progressive, err := Build(newCoordinator(t, coordinator.Options{}), Options{Progressive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(progressive.Close)
	dynamic, err := Build(newCoordinator(t, coordinator.Options{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dynamic.Close)
	n := 0
	for _, srv := range []*server.MCPServer{New(newCoordinator(t, coordinator.Options{})), dynamic.MCP, progressive.MCP} {
		n += checkPortable(t, open(t, srv).listTools())
	}
	if n < 2*(9+11+1) {
		t.Fatalf("checked %d schemas; want the input and output schemas of every tool", n)
	}
}

// checkPortable walks the tools' schemas: one "type" per schema, a
// string, in every subschema. It answers how many schemas it checked.
func checkPortable(t *testing.T, tools []wireTool) int {
	t.Helper()
	var walk func(tool, path string, schema any)
	walk = func(tool, path string, schema any) {
		m, ok := schema.(map[string]any)
		if !ok {
			return // true/false schemas
		}
		if typ, present := m["type"]; present {
			if _, ok := typ.(string); !ok {
				t.Errorf("%s: %s.type is %v, not one type name", tool, path, typ)
			}
		}
		for k, v := range m {
			switch k {
			case "properties", "patternProperties", "$defs", "definitions":
				for name, sub := range v.(map[string]any) {
					walk(tool, path+"."+k+"."+name, sub)
				}
			case "items", "additionalProperties", "not", "contains", "if", "then", "else":
				walk(tool, path+"."+k, v)
			case "anyOf", "oneOf", "allOf", "prefixItems":
				for i, sub := range v.([]any) {
					walk(tool, fmt.Sprintf("%s.%s[%d]", path, k, i), sub)
				}
			}
		}
	}
	n := 0
	for _, tool := range tools {
		for name, raw := range map[string]json.RawMessage{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
			if len(raw) == 0 {
				continue // page tools declare no output schema
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("%s.%s: %v", tool.Name, name, err)
			}
			walk(tool.Name, name, v)
			n++
		}
	}
	return n
}
