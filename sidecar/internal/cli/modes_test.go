package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

// Single-entry mode (--mcp) and the HTTP transport, as a user starts them.

func TestTransportFlagErrorsExit1(t *testing.T) {
	_, env := stateDir(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--token", "t"}, "--token only applies with --transport http"},
		{[]string{"--transport", "websocket"}, "--transport must be stdio or http"},
		{[]string{"--transport", "http", "--listen", "8931"}, "want HOST:PORT"},
		{[]string{"--transport", "http", "--listen", "0.0.0.0:8931"}, "reachable from other machines"},
		{[]string{"--transport", "http", "--insecure-no-token", "--token", "t"}, "contradict each other"},
		{[]string{"--insecure-no-token"}, "--insecure-no-token only applies with --transport http"},
		{[]string{"--allow-origin", "http://localhost:5173"}, "--allow-origin only applies with --transport http"},
		{[]string{"--transport", "http", "--insecure-no-token", "--allow-origin", "http://localhost:5173"}, "--allow-origin needs the token"},
		{[]string{"--transport", "http", "--allow-origin", "*"}, "every page, or a page without an origin, cannot be let in"},
		{[]string{"--transport", "http", "--allow-origin", "localhost:5173"}, "write it as scheme://host[:port]"},
		{[]string{"--transport", "http", "--listen", "127.0.0.1:99999"}, "the port must be a number"},
		{[]string{"--mcp", "--browser", "chrome"}, "put the coordinator's flags before --mcp"},
	} {
		r := run(t, env, tc.args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want 1 with %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func TestHTTPListenPortTakenExits3(t *testing.T) {
	_, env := stateDir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := run(t, env, "--transport", "http", "--listen", ln.Addr().String())
	if r.code != 3 || !strings.Contains(r.stderr, "cannot listen on "+ln.Addr().String()) || !strings.Contains(r.stderr, "address already in use") {
		t.Fatalf("%+v", r)
	}
}

// process is a running browser-coordinator with its stderr collected.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	mu     sync.Mutex
	stderr strings.Builder
	lines  chan string
}

func start(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), lines: make(chan string, 100)}
	p.cmd.Env = append(os.Environ(), env...)
	p.stdin, _ = p.cmd.StdinPipe()
	out, _ := p.cmd.StdoutPipe()
	p.stdout = bufio.NewReader(out)
	errPipe, _ := p.cmd.StderrPipe()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s := bufio.NewScanner(errPipe)
		for s.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(s.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- s.Text():
			default:
			}
		}
		close(p.lines)
	}()
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	return p
}

// awaitLog returns the first match of re in the stderr lines to come.
func (p *process) awaitLog(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	timeout := time.After(testutil.Guard)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("exited without logging %s:\n%s", re, p.log())
			}
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		case <-timeout:
			t.Fatalf("no log line %s:\n%s", re, p.log())
		}
	}
}

func (p *process) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (p *process) wait(t *testing.T) int {
	t.Helper()
	return (&running{cmd: p.cmd}).wait(t)
}

func TestHTTPTransportServesUntilSIGTERM(t *testing.T) {
	dir, env := stateDir(t)
	p := start(t, env, "--transport", "http", "--listen", "127.0.0.1:0")
	p.stdin.Close() // stdin plays no part over HTTP
	url := p.awaitLog(t, regexp.MustCompile(`msg="serving MCP over HTTP" .*mcp=(\S+) .*cdpEndpoint=http://127\.0\.0\.1:\d+`))[1]
	token, err := os.ReadFile(filepath.Join(dir, "http-token"))
	if err != nil {
		t.Fatalf("the HTTP token is kept in the state folder: %v", err)
	}

	post := func(session, body string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if _, body := post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); !strings.Contains(body, "coordinator_status") {
		t.Fatalf("tools/list: %s", body)
	}
	p.awaitLog(t, regexp.MustCompile(`msg="MCP session opened" transport=streamable-http session=`+session))

	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.log())
	}
	for _, want := range []string{`msg="HTTP transport shutting down" sessions=1`, `msg="MCP session closed" transport=streamable-http session=` + session + ` reason="server shutdown"`, `msg="HTTP transport stopped"`} {
		if !strings.Contains(p.log(), want) {
			t.Errorf("log lacks %s:\n%s", want, p.log())
		}
	}
}

// rpc writes one JSON-RPC message on the stdio server's stdin and, for a
// request, returns the response with its id.
func (p *process) rpc(t *testing.T, id int, method, params string) map[string]json.RawMessage {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params)
	if id != 0 {
		msg = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	}
	if _, err := io.WriteString(p.stdin, msg+"\n"); err != nil {
		t.Fatal(err)
	}
	for id != 0 {
		line, err := p.stdout.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: %v\n%s", method, err, p.log())
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(line, &m) == nil && string(m["id"]) == fmt.Sprint(id) {
			return m
		}
	}
	return nil
}

func TestSingleEntryWithAChildThatCannotStart(t *testing.T) {
	_, env := stateDir(t)
	p := start(t, env, "--mcp", "No_Such_MCP_Server", "--headless") // not an npm package name either
	p.rpc(t, 1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	p.rpc(t, 0, "notifications/initialized", `{}`)
	var list struct {
		Tools []struct{ Name, Description string }
	}
	json.Unmarshal(p.rpc(t, 2, "tools/list", `{}`)["result"], &list)
	var status string
	for _, tool := range list.Tools {
		if !strings.HasPrefix(tool.Name, "coordinator_") {
			t.Errorf("tool %s", tool.Name)
		}
		if tool.Name == "coordinator_status" {
			status = tool.Description
		}
	}
	if len(list.Tools) != 12 /* 9, the page-tools pair and coordinator_handle_dialog */ || !strings.Contains(status, "No_Such_MCP_Server --headless --cdp-endpoint=http://127.0.0.1:") || !strings.Contains(status, "executable file not found") {
		t.Fatalf("tools/list: %d tools; coordinator_status: %s", len(list.Tools), status)
	}
	var res struct {
		StructuredContent struct {
			State string
			Child struct{ State, LastError string }
		}
	}
	json.Unmarshal(p.rpc(t, 3, "tools/call", `{"name":"coordinator_status","arguments":{}}`)["result"], &res)
	if res.StructuredContent.State != "idle" || res.StructuredContent.Child.State != "failed" || !strings.Contains(res.StructuredContent.Child.LastError, "No_Such_MCP_Server") {
		t.Fatalf("coordinator_status: %+v", res)
	}
	p.stdin.Close()
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// `--mcp` alone runs Playwright MCP, and `--mcp PACKAGE` runs the package,
// both through npx -y, as the product's quick start writes them. A stand-in
// npx first on PATH records its arguments and exits: nothing is downloaded.
func TestSingleEntryPackageSpecsRunThroughNpx(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(dir, "npx.args")
	script := "#!/bin/sh\necho \"$@\" >> '" + record + "'\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, "npx"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mcp"}, "-y @playwright/mcp@latest --cdp-endpoint=http://127.0.0.1:"},
		{[]string{"--mcp", "@playwright/mcp@0.0.83", "--isolated"}, "-y @playwright/mcp@0.0.83 --isolated --cdp-endpoint=http://127.0.0.1:"},
		{[]string{"--mcp", "chrome-devtools-mcp@latest", "--browserUrl", "{cdp_endpoint}"}, "-y chrome-devtools-mcp@latest --browserUrl http://127.0.0.1:"},
	} {
		os.Remove(record)
		_, env := stateDir(t)
		p := start(t, append(env, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH")), tc.args...)
		p.rpc(t, 1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
		p.rpc(t, 0, "notifications/initialized", `{}`)
		p.rpc(t, 2, "tools/list", `{}`) // waits for the child's start, which fails
		var res struct {
			StructuredContent struct {
				Child struct{ Command, State string }
			}
		}
		json.Unmarshal(p.rpc(t, 3, "tools/call", `{"name":"coordinator_status","arguments":{}}`)["result"], &res)
		child := res.StructuredContent.Child
		if !strings.HasPrefix(child.Command, "npx "+tc.want) || child.State != "failed" {
			t.Errorf("%q: child %+v; want npx %s…, failed", tc.args, child, tc.want)
		}
		got, _ := os.ReadFile(record)
		if !strings.HasPrefix(string(got), tc.want) {
			t.Errorf("%q: npx ran with %q; want %s…", tc.args, got, tc.want)
		}
		p.stdin.Close()
		if code := p.wait(t); code != 0 {
			t.Errorf("%q: exit %d", tc.args, code)
		}
	}
}
