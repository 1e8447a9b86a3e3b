package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
	"github.com/fsnotify/fsnotify"
)

// bin is the browser-coordinator binary under test, built once.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bcbin")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "browser-coordinator")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/browser-coordinator").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := testutil.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs the binary to completion.
func run(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errOut.String()}
}

func stateDir(t *testing.T) (string, []string) {
	t.Helper()
	d, err := os.MkdirTemp("", "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d, []string{"BROWSER_COORDINATOR_STATE_DIR=" + d}
}

// running is a `serve`, as an MCP host starts it.
type running struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	state state.File
	path  string
}

func serve(t *testing.T, dir string, env []string, args ...string) *running {
	t.Helper()
	return serveArgs(t, dir, env, append(args, "--browser-path", testutil.BrowserPath(t))...)
}

// serveArgs starts serve with exactly args.
func serveArgs(t *testing.T, dir string, env []string, args ...string) *running {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	stdin, _ := cmd.StdinPipe()
	cmd.Stdout = io.Discard
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &running{cmd: cmd, stdin: stdin}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	timeout := time.After(time.Minute) // a failure guard: a busy machine starts slowly
	for s.path == "" {
		select {
		case ev := <-w.Events:
			if state.IsStateFileName(filepath.Base(ev.Name)) {
				if f, err := state.Read(ev.Name); err == nil && f.PID == cmd.Process.Pid {
					s.state, s.path = f, ev.Name
				}
			}
		case <-timeout:
			t.Fatal("serve wrote no state file")
		}
	}
	return s
}

// waitFor waits until the state file satisfies ok: the coordinator
// connects or launches after it wrote its first state file. It looks again
// whenever the folder changes (the file is replaced at each write).
func (s *running) waitFor(t *testing.T, what string, ok func(state.File) bool) {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(s.path)); err != nil {
		t.Fatal(err)
	}
	guard := time.After(time.Minute)
	for {
		f, err := state.Read(s.path)
		if err == nil && ok(f) {
			return
		}
		select {
		case <-w.Events:
		case <-guard:
			t.Fatalf("not %s after a minute: %+v (%v)", what, f, err)
		}
	}
}

func (s *running) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		return 0
	case <-time.After(testutil.Guard):
		t.Fatal("serve did not exit")
		return -1
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		r := run(t, nil, args...)
		if r.code != 0 || !regexp.MustCompile(`^browser-coordinator \S+ \(commit \S+, \w+/\w+, go[\d.]+\)\nbuilt from .+\n$`).MatchString(r.stdout) {
			t.Fatalf("%v: %+v", args, r)
		}
	}
}

func TestBadArguments(t *testing.T) {
	_, env := stateDir(t)
	notExecutable := filepath.Join(t.TempDir(), "chrome")
	os.WriteFile(notExecutable, []byte("text"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"frobnicate"}, 1, `unknown command "frobnicate"`},
		{[]string{"--browser", "firefox"}, 1, "detected here: chromium"},
		{[]string{"--browser-path", notExecutable}, 1, "--browser-path"},
		{[]string{"--proxy-port", "70000"}, 1, "between 0 and 65535"},
		{[]string{"--no-such-flag"}, 1, "flag provided but not defined"},
		{[]string{"serve", "extra"}, 1, `unexpected argument "extra"`},
		{[]string{"wrap"}, 1, "no command given"},
		{[]string{"wrap", "--timeout", "0s", "--", "true"}, 1, "--timeout must be positive"},
		{[]string{"install"}, 1, "--host is required"},
		{[]string{"install", "--host", "emacs"}, 1, `unknown host "emacs"`},
		{[]string{"launch", "--headless=maybe"}, 1, "want true or false"},
		{[]string{"stop"}, 1, "no browser-coordinator is running"},
		{[]string{"--page-tools", "sometimes"}, 1, "--page-tools must be dynamic, static or off"},
		{[]string{"--tools", "all"}, 1, "--tools must be default or progressive"},
		{[]string{"--tools", "progressive", "--page-tools", "static"}, 1, "leave --page-tools out"},
		{[]string{"--follow-user-focus"}, 1, "applies to --tools progressive only"},
		{[]string{"--tools", "progressive", "--mcp", "npx", "@playwright/mcp"}, 1, "cannot serve a child MCP's tools (--mcp)"},
	} {
		if tc.args[0] == "--browser" {
			testutil.BrowserPath(t) // the message lists what is installed
		}
		r := run(t, env, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d with %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
		if r.stdout != "" && tc.args[0] != "wrap" {
			t.Errorf("%v: wrote to stdout: %q", tc.args, r.stdout)
		}
	}
}

func TestTakenProxyPortExits3(t *testing.T) {
	_, env := stateDir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	r := run(t, env, "--proxy-port", fmt.Sprint(port), "--browser-path", testutil.BrowserPath(t))
	if r.code != 3 || !strings.Contains(r.stderr, "already in use") || !strings.Contains(r.stderr, "choose another --proxy-port") {
		t.Fatalf("%+v", r)
	}
}

func TestServeExitsCleanlyOnStdinEOFAndSIGTERM(t *testing.T) {
	dir, env := stateDir(t)
	t.Run("stdin EOF", func(t *testing.T) {
		s := serve(t, dir, env)
		s.stdin.Close()
		if code := s.wait(t); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if _, err := os.Stat(s.path); !os.IsNotExist(err) {
			t.Fatal("state file left")
		}
	})
	t.Run("SIGTERM with a browser running", func(t *testing.T) {
		s := serve(t, dir, env)
		r := run(t, env, "launch", "--json")
		var st struct {
			State   string `json:"state"`
			Browser struct {
				PID int `json:"pid"`
			} `json:"browser"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &st); r.code != 0 || err != nil || st.State != "running" {
			t.Fatalf("launch through the control API: %+v %v", r, err)
		}
		s.cmd.Process.Signal(syscall.SIGTERM)
		if code := s.wait(t); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if proc.Alive(st.Browser.PID) {
			t.Fatal("browser survived SIGTERM of its coordinator")
		}
		if _, err := os.Stat(s.path); !os.IsNotExist(err) {
			t.Fatal("state file left")
		}
	})
	t.Run("SIGHUP (the terminal closed)", func(t *testing.T) {
		s := serve(t, dir, env)
		s.cmd.Process.Signal(syscall.SIGHUP)
		if code := s.wait(t); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if _, err := os.Stat(s.path); !os.IsNotExist(err) {
			t.Fatal("state file left")
		}
	})
}

func TestStatusAndControlCommands(t *testing.T) {
	dir, env := stateDir(t)
	s := serve(t, dir, env)
	defer s.stdin.Close()
	r := run(t, env, "status", "--json")
	var files []state.File
	if err := json.Unmarshal([]byte(r.stdout), &files); err != nil || len(files) != 1 || files[0].PID != s.cmd.Process.Pid {
		t.Fatalf("status --json: %+v %v", r, err)
	}
	if files[0].ControlToken != "" {
		t.Fatal("status shows the control token")
	}
	if r := run(t, env, "status"); !strings.Contains(r.stdout, s.state.CDPEndpoint) {
		t.Fatalf("status: %+v", r)
	}
	if r := run(t, env, "restart"); r.code != 0 || !strings.Contains(r.stdout, "Browser: running") {
		t.Fatalf("restart: %+v", r)
	}
	if r := run(t, env, "stop"); r.code != 0 || !strings.Contains(r.stdout, "Browser: stopped") {
		t.Fatalf("stop: %+v", r)
	}
	if r := run(t, env, "launch", "--browser", "firefox"); r.code != 1 || !strings.Contains(r.stderr, "unknown browser type") {
		t.Fatalf("launch --browser firefox: %+v", r)
	}
	// The control API sends what can be done as remedies; the command line
	// says them with its own flags, not the tools' arguments.
	r = run(t, env, "launch", "--browser-path", "/bin/sh")
	if r.code != 1 || !strings.Contains(r.stderr, "is not a browser this coordinator may launch") ||
		!strings.Contains(r.stderr, "use --browser to pick a detected one") || strings.Contains(r.stderr, "browserType") {
		t.Fatalf("launch --browser-path /bin/sh: %+v", r)
	}
}

func TestWrapRunsTheChildWithTheEndpoint(t *testing.T) {
	dir, env := stateDir(t)
	s := serve(t, dir, env)
	defer s.stdin.Close()
	r := run(t, env, "wrap", "--", "sh", "-c", `echo "$1 $2 $3"; exit 7`, "sh", "{cdp_endpoint}", "--port={cdp_port}", "{ws_endpoint}")
	want := fmt.Sprintf("%s --port=%d %s\n", s.state.CDPEndpoint, s.state.ProxyPort, s.state.WSEndpoint)
	if r.code != 7 || r.stdout != want {
		t.Fatalf("wrap: %+v; want exit 7 and %q", r, want)
	}
	// In the environment too: a command line is readable by every local
	// user (ps, /proc/PID/cmdline), a process's environment only by its own.
	r = run(t, append(env, "PLAYWRIGHT_MCP_CDP_ENDPOINT={cdp_endpoint}"), "wrap", "--", "sh", "-c", `echo "$PLAYWRIGHT_MCP_CDP_ENDPOINT"`)
	if r.code != 0 || r.stdout != s.state.CDPEndpoint+"\n" {
		t.Fatalf("wrap with the endpoint in the environment: %+v; want %q", r, s.state.CDPEndpoint)
	}
	if r := run(t, env, "wrap", "--", "/no/such/command"); r.code != 127 || !strings.Contains(r.stderr, "no/such/command") {
		t.Fatalf("wrap of a missing command: %+v", r)
	}
}

func TestInstallCommand(t *testing.T) {
	ws := t.TempDir()
	r := run(t, nil, "install", "--host", "claude-code", "--workspace", ws, "--child", "chrome-devtools", "--sidecar", "/opt/bc")
	if r.code != 0 || !strings.Contains(r.stdout, "wrote "+filepath.Join(ws, ".mcp.json")) {
		t.Fatalf("%+v", r)
	}
	data, _ := os.ReadFile(filepath.Join(ws, ".mcp.json"))
	if !strings.Contains(string(data), `"chrome-devtools-mcp@latest"`) || !strings.Contains(string(data), `"command": "/opt/bc"`) {
		t.Fatalf("written:\n%s", data)
	}
	r = run(t, nil, "install", "--host", "vscode", "--workspace", ws, "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, `"type": "stdio"`) {
		t.Fatalf("dry run: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(ws, ".vscode")); !os.IsNotExist(err) {
		t.Fatal("dry run wrote")
	}
	os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte("{\n  \"mcpServers\": {,}\n}"), 0o644)
	r = run(t, nil, "install", "--host", "claude-code", "--workspace", ws)
	if r.code != 1 || !strings.Contains(r.stderr, "line 2, column") || !strings.Contains(r.stderr, "nothing was written") {
		t.Fatalf("broken file: %+v", r)
	}
}

// A binary found on PATH is named by its name, which works on a teammate's
// machine too; Claude Desktop's entry still takes its absolute path.
func TestInstallNamesABinaryOnPath(t *testing.T) {
	tools, ws, home := t.TempDir(), t.TempDir(), t.TempDir()
	self, _ := filepath.EvalSymlinks(bin)
	if err := os.Symlink(self, filepath.Join(tools, "browser-coordinator")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tools, "npx"), []byte("#!/bin/sh\n"), 0o755)
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=", "PATH=" + tools + ":/usr/bin:/bin"}
	r := run(t, env, "install", "--host", "claude-code", "--workspace", ws, "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, `"command": "browser-coordinator"`) || strings.Contains(r.stdout, self) {
		t.Fatalf("%+v", r)
	}
	r = run(t, env, "install", "--host", "claude-desktop", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, `"command": "`+filepath.Join(tools, "browser-coordinator")+`"`) {
		t.Fatalf("claude-desktop: %+v", r)
	}
}

// Claude Desktop's entry, as the real binary writes it on Linux into a
// fake home (macOS and Windows layouts: mcpconfig's tests).
func TestInstallClaudeDesktop(t *testing.T) {
	home, tools := t.TempDir(), t.TempDir()
	npx := filepath.Join(tools, "npx")
	os.WriteFile(npx, []byte("#!/bin/sh\n"), 0o755)
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=", "PATH=" + tools + ":/usr/bin:/bin"}
	r := run(t, env, "install", "--host", "claude-desktop")
	file := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	if r.code != 0 || !strings.Contains(r.stdout, "wrote "+file+": browser-coordinator") {
		t.Fatalf("%+v", r)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		}
	}
	data, _ := os.ReadFile(file)
	json.Unmarshal(data, &doc)
	self, _ := filepath.EvalSymlinks(bin)
	e := doc.MCPServers["browser-coordinator"]
	if len(doc.MCPServers) != 1 || e.Command != self || strings.Join(e.Args, " ") != "--mcp "+npx+" -y @playwright/mcp@latest --cdp-endpoint {cdp_endpoint}" {
		t.Fatalf("written:\n%s", data)
	}
	if r := run(t, env, "install", "--host", "claude-desktop", "--scope", "project"); r.code != 1 || !strings.Contains(r.stderr, "drop --scope project") {
		t.Fatalf("--scope project: %+v", r)
	}
	// Without Node on PATH the entry cannot name npx: nothing is written.
	os.Remove(file)
	r = run(t, []string{"HOME=" + home, "XDG_CONFIG_HOME=", "PATH=" + t.TempDir()}, "install", "--host", "claude-desktop")
	if _, err := os.Stat(file); r.code != 1 || !strings.Contains(r.stderr, "install Node.js") || err == nil {
		t.Fatalf("without npx: %+v", r)
	}
}

// A binary that npx installed on the fly writes entries that start it the
// same way, not its path in npx's cache.
func TestInstallFromNpxCache(t *testing.T) {
	cached := filepath.Join(t.TempDir(), ".npm", "_npx", "0123abcd", "node_modules", "browser-coordinator", "bin", "browser-coordinator")
	os.MkdirAll(filepath.Dir(cached), 0o755)
	data, _ := os.ReadFile(bin)
	os.WriteFile(cached, data, 0o755)
	cmd := exec.Command(cached, "install", "--host", "claude-code", "--workspace", t.TempDir(), "--child", "none", "--dry-run")
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), `"command": "npx"`) || !strings.Contains(string(out), `"-y",`) || !strings.Contains(string(out), `"browser-coordinator"`) || strings.Contains(string(out), "_npx") {
		t.Fatalf("%v:\n%s", err, out)
	}

	// Claude Desktop: npx by its absolute path, and a PATH on which npx finds node.
	tools := t.TempDir()
	os.WriteFile(filepath.Join(tools, "npx"), []byte("#!/bin/sh\n"), 0o755)
	cmd = exec.Command(cached, "install", "--host", "claude-desktop", "--dry-run")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "PATH="+tools+":/usr/bin:/bin")
	out, err = cmd.Output()
	var doc struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		}
	}
	json.Unmarshal(out, &doc)
	e := doc.MCPServers["browser-coordinator"]
	npx := filepath.Join(tools, "npx")
	if err != nil || e.Command != npx || strings.Join(e.Args, " ") != "-y browser-coordinator --mcp "+npx+" -y @playwright/mcp@latest --cdp-endpoint {cdp_endpoint}" || e.Env["PATH"] != tools+":/usr/bin:/bin" {
		t.Fatalf("%v:\n%s", err, out)
	}
}

func TestAttachModeArguments(t *testing.T) {
	_, env := stateDir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--cdp-endpoint", "http://" + dead}, 2, "CDP endpoint unreachable"},
		{[]string{"--cdp-endpoint", "ws://" + dead + "/devtools/browser/x"}, 2, "CDP endpoint unreachable"},
		{[]string{"--cdp-endpoint", "localhost:9222"}, 1, "not a CDP endpoint URL"},
		{[]string{"--cdp-endpoint", "ftp://127.0.0.1:9222"}, 1, "unsupported scheme"},
		{[]string{"--cdp-endpoint", "http://" + dead, "--cdp-header", "no colon"}, 1, "want 'Name: value'"},
		{[]string{"--cdp-header", "A: b"}, 1, "--cdp-header needs --cdp-endpoint"},
		{[]string{"--cdp-endpoint", "http://" + dead, "--no-headless"}, 1, "--no-headless only applies"},
	} {
		r := run(t, env, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d with %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
}

func TestEverydayArguments(t *testing.T) {
	_, env := stateDir(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--browser", "everyday", "--cdp-endpoint", "http://127.0.0.1:9"}, "two different browsers"},
		{[]string{"--browser", "everyday", "--browser-path", "/usr/bin/chromium"}, "takes no --browser-path"},
		{[]string{"--browser", "evryday"}, "or everyday (your own browser"},
	} {
		r := run(t, env, tc.args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want 1 with %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func TestAttachToARunningBrowser(t *testing.T) {
	dir, env := stateDir(t)
	browser := testbrowser.Launch(t, "")
	endpoint := "http://" + browser.Addr()

	s := serveArgs(t, dir, env, "--cdp-endpoint", endpoint, "--cdp-header", "X-Test: 1")
	if s.state.Backend != "attach" && s.state.Backend != "tier1" {
		t.Fatalf("state file backend %q", s.state.Backend)
	}
	s.waitFor(t, "connected", func(f state.File) bool { return f.State == "running" })
	r := run(t, env, "status", "--json")
	var files []state.File
	json.Unmarshal([]byte(r.stdout), &files)
	if len(files) != 1 || files[0].Backend != "attach" || files[0].State != "running" {
		t.Fatalf("status: %s", r.stdout)
	}
	if r := run(t, env, "stop"); r.code != 0 || !proc.Alive(browser.PID) {
		t.Fatalf("stop in attach mode must let go, not kill: %+v", r)
	}
	if r := run(t, env, "launch", "--headless=false"); r.code != 1 || !strings.Contains(r.stderr, "reconnects") {
		t.Fatalf("launch with browser options in attach mode: %+v", r)
	}
	s.stdin.Close()
	if code := s.wait(t); code != 0 || !proc.Alive(browser.PID) {
		t.Fatalf("exit %d; the attached browser must survive the coordinator", code)
	}
}
