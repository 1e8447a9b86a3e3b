package childmcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) != "" {
		os.Exit(fakeChild())
	}
	os.Exit(testutil.Main(m))
}

func TestCommandLine(t *testing.T) {
	f := state.File{ProxyPort: 9222, CDPEndpoint: "http://127.0.0.1:9222", WSEndpoint: "ws://127.0.0.1:9222/devtools/browser"}
	for _, tc := range []struct{ in, want string }{
		{"npx @playwright/mcp", "npx @playwright/mcp --cdp-endpoint=http://127.0.0.1:9222"},
		{"npx @playwright/mcp --cdp-endpoint {cdp_endpoint}", "npx @playwright/mcp --cdp-endpoint http://127.0.0.1:9222"},
		{"npx chrome-devtools-mcp --browserUrl={cdp_endpoint}", "npx chrome-devtools-mcp --browserUrl=http://127.0.0.1:9222"},
		{"my-mcp --port {cdp_port} --ws {ws_endpoint}", "my-mcp --port 9222 --ws ws://127.0.0.1:9222/devtools/browser/coordinator"},
		{"npx @playwright/mcp --cdp-endpoint=http://10.0.0.5:9222", "npx @playwright/mcp --cdp-endpoint=http://10.0.0.5:9222"},
		{"npx chrome-devtools-mcp --browserUrl http://10.0.0.5:9222", "npx chrome-devtools-mcp --browserUrl http://10.0.0.5:9222"},
		{"python -u server.py", "python -u server.py --cdp-endpoint=http://127.0.0.1:9222"},
	} {
		in := strings.Fields(tc.in)
		if got := strings.Join(CommandLine(in, f), " "); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
		if strings.Join(in, " ") != tc.in {
			t.Errorf("%s: the input was modified", tc.in)
		}
	}
}

// fake returns a Child running the fake child in mode.
func fake(t *testing.T, mode string, cfg Config) *Child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Command = []string{exe, "-test.run=^$"}
	cfg.Env = append(cfg.Env, fakeEnv+"="+mode)
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	c := New(cfg)
	t.Cleanup(func() { c.Close() })
	return c
}

// wire is an MCP host talking raw JSON-RPC lines to a server over stdio:
// what it reads is exactly what a host would receive.
type wire struct {
	t    *testing.T
	in   io.WriteCloser
	mu   sync.Mutex
	msgs []json.RawMessage // everything received, in order
	got  chan struct{}
	seq  int
}

func serve(t *testing.T, srv *server.MCPServer) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	stdio := server.NewStdioServer(srv)
	server.WithWorkerPoolSize(16)(stdio)
	done := make(chan struct{})
	go func() { defer close(done); _ = stdio.Listen(ctx, inR, outW) }()
	w := &wire{t: t, in: inW, got: make(chan struct{}, 1)}
	go func() {
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			w.mu.Lock()
			w.msgs = append(w.msgs, json.RawMessage(bytes.TrimSpace(line)))
			w.mu.Unlock()
			select {
			case w.got <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() { cancel(); inW.Close(); outW.Close(); <-done })
	w.request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// request sends a request and returns its response message.
func (w *wire) request(method, params string) json.RawMessage {
	w.t.Helper()
	w.seq++
	id := w.seq
	w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	return w.await(func(m map[string]json.RawMessage) bool { return string(m["id"]) == strconv.Itoa(id) })
}

// await returns the first message received that matches.
func (w *wire) await(match func(map[string]json.RawMessage) bool) json.RawMessage {
	w.t.Helper()
	deadline := time.After(testutil.Guard)
	for seen := 0; ; {
		w.mu.Lock()
		msgs := w.msgs
		w.mu.Unlock()
		for ; seen < len(msgs); seen++ {
			var m map[string]json.RawMessage
			if json.Unmarshal(msgs[seen], &m) == nil && match(m) {
				return msgs[seen]
			}
		}
		select {
		case <-w.got:
		case <-deadline:
			w.t.Fatalf("no matching message; received:\n%s", msgs)
		}
	}
}

// messages returns the received messages with this method.
func (w *wire) messages(method string) []json.RawMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []json.RawMessage
	for _, m := range w.msgs {
		var h struct{ Method string }
		if json.Unmarshal(m, &h) == nil && h.Method == method {
			out = append(out, m)
		}
	}
	return out
}

func field(t *testing.T, msg json.RawMessage, path ...string) json.RawMessage {
	t.Helper()
	cur := msg
	for _, p := range path {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(cur, &m); err != nil {
			t.Fatalf("%s: not an object at %q", msg, p)
		}
		cur = m[p]
	}
	return cur
}

// sameJSON compares two JSON texts as values, numbers as written (an
// integer beyond 2^53 must not be rounded on the way).
func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	decode := func(b []byte) (v any, err error) {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		err = d.Decode(&v)
		return v, err
	}
	g, err := decode(got)
	if err != nil {
		t.Fatalf("%s: %v: %s", what, err, got)
	}
	w, _ := decode(want)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s differs:\n got %s\nwant %s", what, got, want)
	}
}

// proxied is a server with one tool of its own serving the fake child.
func proxied(t *testing.T, mode string, cfg Config) (*wire, *Child, *atomic.Int32) {
	t.Helper()
	child := fake(t, mode, cfg)
	srv := server.NewMCPServer("test", "1", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("own_tool", mcp.WithDescription("ours")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("own"), nil
	})
	var ensured atomic.Int32
	p := Serve(srv, child, func(context.Context) error { ensured.Add(1); return nil })
	t.Cleanup(func() { p.Close() })
	return serve(t, srv), child, &ensured
}

func callTool(w *wire, name, args string) json.RawMessage {
	return w.request("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, name, args))
}

func resultText(t *testing.T, resp json.RawMessage) string {
	t.Helper()
	var r struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	if err := json.Unmarshal(resp, &r); err != nil || len(r.Result.Content) == 0 {
		t.Fatalf("not a tool result: %s", resp)
	}
	if r.Result.IsError {
		t.Fatalf("tool error: %s", resp)
	}
	return r.Result.Content[0].Text
}

func TestToolsAndResultsPassThroughUnchanged(t *testing.T) {
	w, child, ensured := proxied(t, "normal", Config{})

	// The very first tools/list has the child's tools: every page of them,
	// each as the child listed it, next to the server's own.
	var listed struct {
		Result struct{ Tools []json.RawMessage }
	}
	json.Unmarshal(w.request("tools/list", `{}`), &listed)
	byName := map[string]json.RawMessage{}
	for _, tool := range listed.Result.Tools {
		var n struct{ Name, Description string }
		json.Unmarshal(tool, &n)
		if n.Name == "own_tool" && n.Description != "ours" {
			t.Errorf("the child's own_tool replaced the server's: %s", tool)
		}
		byName[n.Name] = tool
	}
	if len(byName) != len(fakeTools) { // the child's tools but its own_tool, plus ours
		t.Fatalf("%d tools listed: %v", len(byName), listed.Result.Tools)
	}
	for _, raw := range fakeTools {
		var n struct{ Name string }
		json.Unmarshal([]byte(raw), &n)
		if n.Name == "own_tool" {
			continue
		}
		want := raw
		if n.Name == "plain" {
			// mcp-go always writes annotations; none means an empty object.
			want = strings.TrimSuffix(raw, "}") + `,"annotations":{}}`
		}
		sameJSON(t, "tool "+n.Name, byName[n.Name], []byte(want))
	}
	if st := child.Status(); st.State != Running || st.Tools != len(fakeTools) || st.PID == 0 {
		t.Errorf("status: %+v", st)
	}

	// A result with every content type, structuredContent and _meta, each
	// value as the child wrote it (an integer beyond 2^53 included); mcp-go
	// orders the result's keys and leaves out "isError": false, its default.
	resp := callTool(w, "echo", `{"mode":"a"}`)
	sameJSON(t, "echo result", field(t, resp, "result"), []byte(strings.Replace(echoResult, `,"isError":false`, "", 1)))
	if got := field(t, resp, "result", "content"); !bytes.Contains([]byte(echoResult), got) {
		t.Errorf("content items are not byte for byte the child's:\n%s", got)
	}
	// Arguments and _meta reach the child as the client sent them.
	resp = w.request("tools/call", `{"name":"args","arguments":{"big":9007199254740993,"s":"é"},"_meta":{"trace":"t-1"}}`)
	if got := resultText(t, resp); got != `{"big":9007199254740993,"s":"é"} {"trace":"t-1"}` {
		t.Errorf("the child received %s", got)
	}
	// A tool error stays a tool error; a protocol error stays one, with its message.
	sameJSON(t, "tool error", field(t, callTool(w, "fail", `{}`), "result"), []byte(`{"content":[{"type":"text","text":"it went wrong"}],"isError":true}`))
	if msg := field(t, callTool(w, "rpcerror", `{}`), "error", "message"); !strings.Contains(string(msg), "bad params: mode must be a or b") {
		t.Errorf("protocol error: %s", msg)
	}
	if n := ensured.Load(); n != 4 {
		t.Errorf("the browser was ensured %d times for 4 child calls", n)
	}
	if got := resultText(t, callTool(w, "own_tool", `{}`)); got != "own" || ensured.Load() != 4 {
		t.Errorf("own tool: %q, ensured %d", got, ensured.Load())
	}
}

func TestNotificationsAndCancellation(t *testing.T) {
	w, _, _ := proxied(t, "normal", Config{})
	w.request("tools/list", `{}`)

	// Progress comes back under the caller's own token.
	resp := w.request("tools/call", `{"name":"progress","arguments":{},"_meta":{"progressToken":"mine-7"}}`)
	if resultText(t, resp) != "done" {
		t.Fatal(string(resp))
	}
	// (mcp-go's stdio server writes notifications from a goroutine of
	// their own: they may follow the result.)
	last := w.await(func(m map[string]json.RawMessage) bool {
		return string(m["method"]) == `"notifications/progress"` && strings.Contains(string(m["params"]), `"progress":2`)
	})
	sameJSON(t, "progress", field(t, last, "params"), []byte(`{"progressToken":"mine-7","progress":2,"total":2,"message":"step 2"}`))
	if n := len(w.messages("notifications/progress")); n != 2 {
		t.Errorf("%d progress notifications", n)
	}

	// Log messages reach a session whose level lets them through; the
	// level is passed on to the child.
	resultText(t, callTool(w, "log", `{}`)) // a warning, below the default level (error)
	w.request("logging/setLevel", `{"level":"info"}`)
	w.awaitMark("level info")
	resultText(t, callTool(w, "log", `{}`))
	logged := w.await(func(m map[string]json.RawMessage) bool {
		var p struct{ Logger string }
		json.Unmarshal(m["params"], &p)
		return p.Logger == "fake"
	})
	sameJSON(t, "log message", field(t, logged, "params"), []byte(`{"level":"warning","logger":"fake","data":{"k":"v"}}`))

	// A cancelled call is cancelled in the child too, under the id the
	// child knows it by; while it runs, other calls go through.
	w.seq++
	slow := w.seq
	w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, slow))
	w.awaitMark("slow started")
	resultText(t, callTool(w, "pid", `{}`))
	w.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"user"}}`, slow))
	w.awaitMark(`cancelled "bc-`)
	if n := len(w.messages("notifications/message")); n != 4 { // the warning, and three marks
		t.Errorf("%d log messages; the warning below the level went out too", n)
	}
}

// awaitMark waits for the fake's report that starts with prefix.
func (w *wire) awaitMark(prefix string) {
	w.t.Helper()
	w.await(func(m map[string]json.RawMessage) bool {
		var p struct{ Logger, Data string }
		json.Unmarshal(m["params"], &p)
		return p.Logger == "mark" && strings.HasPrefix(p.Data, prefix)
	})
}

func TestChildrenThatCannotStart(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		command    []string
		want       []string
		// start bounds the start; the garbage child must have printed by
		// then, which a busy machine takes seconds to do.
		start time.Duration
	}{
		{"missing command", "", []string{"no-such-mcp-server-here", "--flag"}, []string{"start the child MCP no-such-mcp-server-here --flag", "executable file not found"}, 2 * time.Second},
		{"exits at once", "exit", nil, []string{"did not answer initialize", "exited at once (exit status 2)"}, 2 * time.Second},
		{"only garbage on stdout", "garbage", nil, []string{"did not answer initialize in time", "2 line(s) to stdout that are not JSON-RPC", "Hello! I am a server"}, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			child := fake(t, tc.mode, Config{StartTimeout: tc.start})
			if tc.command != nil {
				child.cfg.Command = tc.command
			}
			srv := server.NewMCPServer("test", "1", server.WithToolCapabilities(false))
			srv.AddTool(mcp.NewTool("own_tool"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("own"), nil
			})
			p := Serve(srv, child, func(context.Context) error { return nil })
			t.Cleanup(func() { p.Close() })
			w := serve(t, srv)

			// tools/list answers once the start has failed: our tools only.
			var listed struct {
				Result struct{ Tools []struct{ Name string } }
			}
			json.Unmarshal(w.request("tools/list", `{}`), &listed)
			if len(listed.Result.Tools) != 1 || listed.Result.Tools[0].Name != "own_tool" {
				t.Errorf("tools: %+v", listed.Result.Tools)
			}
			st := child.Status()
			if st.State != Failed || st.Tools != 0 {
				t.Errorf("status: %+v", st)
			}
			for _, want := range tc.want {
				if !strings.Contains(st.LastError, want) {
					t.Errorf("last error %q lacks %q", st.LastError, want)
				}
			}
			if got := resultText(t, callTool(w, "own_tool", `{}`)); got != "own" {
				t.Errorf("own tool: %s", got)
			}
		})
	}
}

func TestGarbageLinesOnStdoutAreSkipped(t *testing.T) {
	var logs bytes.Buffer
	w, child, _ := proxied(t, "noisy", Config{Logger: testLogger(&logs)})
	w.request("tools/list", `{}`)
	if child.Status().State != Running {
		t.Fatalf("status: %+v", child.Status())
	}
	sameJSON(t, "echo through a noisy child", field(t, callTool(w, "echo", `{}`), "result"), []byte(strings.Replace(echoResult, `,"isError":false`, "", 1)))
	if !strings.Contains(logs.String(), "not JSON-RPC") || !strings.Contains(logs.String(), "debug: about to answer") {
		t.Errorf("the garbage was not reported: %s", logs.String())
	}
}

// syncBuffer is a bytes.Buffer for a logger that several goroutines use.
type syncBuffer struct {
	mu    sync.Mutex
	b     *bytes.Buffer
	wrote chan struct{} // nil, or told of each write (room for one)
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote != nil {
		select {
		case s.wrote <- struct{}{}:
		default:
		}
	}
	return s.b.Write(p)
}

func testLogger(b *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(&syncBuffer{b: b}, nil))
}

func TestACallBeforeAnyListWaitsForTheChild(t *testing.T) {
	w, _, _ := proxied(t, "normal", Config{})
	// No tools/list first: the call still finds the child's tool.
	if got := resultText(t, callTool(w, "args", `{"a":1}`)); got != `{"a":1} null` {
		t.Errorf("args: %s", got)
	}
}

func TestCloseDuringAStartIsQuiet(t *testing.T) {
	logs := &syncBuffer{b: &bytes.Buffer{}, wrote: make(chan struct{}, 1)}
	read := func() string {
		logs.mu.Lock()
		defer logs.mu.Unlock()
		return logs.b.String()
	}
	// The garbage child never answers initialize: the start hangs until Close.
	child := fake(t, "garbage", Config{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	started := make(chan error, 1)
	go func() {
		_, err := child.Start(context.Background())
		started <- err
	}()
	for guard := time.After(time.Minute); !strings.Contains(read(), "not JSON-RPC"); {
		select {
		case <-logs.wrote:
		case <-guard:
			t.Fatalf("the child did not start: %s", read())
		}
	}
	child.Close()
	if err := <-started; err != ErrClosed {
		t.Errorf("Start after Close: %v; want ErrClosed", err)
	}
	if st := child.Status(); st.State == Failed || st.LastError != "" {
		t.Errorf("status after a start cut short by Close: %+v", st)
	}
	if strings.Contains(read(), "could not start") {
		t.Errorf("a start cut short by Close was logged as a failure:\n%s", read())
	}
}
