package everyday

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

// The integration tests run the real pieces: the sidecar binary built from
// this tree (as the native host, registered with its own `install --host
// chromium --user-data-dir`), the browser extension built by `npm run
// build` (dist/browser-extension), and Debian's Chromium started as a user
// would start it, with no debugging port. The harness keeps a
// --remote-debugging-pipe to that Chromium for what a user does by hand
// (open tabs, share one in the popup, look at their tabs) and to stop the
// extension's service worker; the code under test never sees the pipe.

func TestMain(m *testing.M) {
	os.Exit(testutil.Main(m))
}

// buildSidecar builds the binary of this tree, which the browser starts as
// the native host (go's cache makes it quick after the first time).
func buildSidecar(t testing.TB) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "browser-coordinator")
	cmd := exec.Command("go", "build", "-o", out, "github.com/browser-coordinator/browser-coordinator/sidecar/cmd/browser-coordinator")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the sidecar: %v\n%s", err, b)
	}
	return out
}

func repoRoot(t testing.TB) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// extensionDir is the unpacked browser extension; without it the test
// skips (fails under CI): `npm run build` makes it.
func extensionDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "dist", "browser-extension")
	if _, err := os.Stat(filepath.Join(dir, "background.js")); err != nil {
		msg := "the browser extension is not built: run `npm run build` (it builds dist/browser-extension)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// pages serves the test pages, concurrently (Chromium preconnects).
func pages(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.Trim(r.URL.Path, "/")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<!doctype html><title>%s page</title><h1 id=h>%s</h1><form><input name=q><button>Go</button></form>", name, name)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// userBrowser is the user's Chromium with the extension loaded.
type userBrowser struct {
	t       testing.TB
	cmd     *exec.Cmd
	profile string
	state   string
	toPipe  *os.File

	mu      sync.Mutex
	next    int64
	pending map[int64]chan pipeMsg
	events  chan pipeMsg
	readEnd chan struct{}
}

type pipeMsg struct {
	ID        int64                     `json:"id,omitempty"`
	Method    string                    `json:"method,omitempty"`
	Params    json.RawMessage           `json:"params,omitempty"`
	Result    json.RawMessage           `json:"result,omitempty"`
	Error     *struct{ Message string } `json:"error,omitempty"`
	SessionID string                    `json:"sessionId,omitempty"`
}

// startUserBrowser registers the host in a fresh profile and starts
// Chromium on urls with the extension, the host finding this test's state
// folder through the environment the browser passes it.
func startUserBrowser(t testing.TB, state string, urls ...string) *userBrowser {
	t.Helper()
	path := testutil.BrowserPath(t)
	ext := extensionDir(t)
	profile, err := os.MkdirTemp("", "prof")
	if err != nil {
		t.Fatal(err)
	}
	install := exec.Command(buildSidecar(t), "install", "--host", "chromium", "--user-data-dir", profile)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install --host chromium: %v\n%s", err, out)
	}
	cmdR, cmdW, _ := os.Pipe() // we write commands, the browser reads fd 3
	resR, resW, _ := os.Pipe() // the browser writes fd 4, we read
	args := []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
		"--load-extension=" + ext, "--disable-extensions-except=" + ext, "--remote-debugging-pipe"}
	// Headless Chromium takes one URL on its command line: the user's other
	// tabs are opened below, as a user opens tabs.
	cmd := exec.Command(path, append(args, "about:blank")...)
	cmd.ExtraFiles = []*os.File{cmdR, resW}
	tmp := filepath.Join(profile, "tmp") // Chromium's own temporary files go with the profile
	_ = os.Mkdir(tmp, 0o700)
	cmd.Env = append(os.Environ(), "BROWSER_COORDINATOR_STATE_DIR="+state, "TMPDIR="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if os.Getenv("BROWSER_COORDINATOR_DEBUG") != "" {
		cmd.Stderr = os.Stderr // the browser's log and the native host's
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	resW.Close()
	b := &userBrowser{t: t, cmd: cmd, profile: profile, state: state, toPipe: cmdW,
		pending: map[int64]chan pipeMsg{}, events: make(chan pipeMsg, 1024), readEnd: make(chan struct{})}
	go func() { // ends when the browser's end of the pipe closes; stop waits for it
		defer close(b.readEnd)
		r := bufio.NewReaderSize(resR, 1<<20)
		for {
			line, err := r.ReadBytes(0)
			if err != nil {
				resR.Close()
				return
			}
			var m pipeMsg
			if json.Unmarshal(line[:len(line)-1], &m) != nil {
				continue
			}
			if m.ID != 0 {
				b.mu.Lock()
				ch := b.pending[m.ID]
				delete(b.pending, m.ID)
				b.mu.Unlock()
				if ch != nil {
					ch <- m
				}
				continue
			}
			select {
			case b.events <- m:
			default:
			}
		}
	}()
	t.Cleanup(b.stop)
	for _, u := range urls {
		b.must("", "Target.createTarget", map[string]any{"url": u})
	}
	return b
}

func (b *userBrowser) stop() {
	hosts := nativemsg.LiveHosts(nativemsg.Dir(b.state))
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	_ = b.cmd.Wait()
	b.toPipe.Close()
	<-b.readEnd
	testutil.WaitGroupExit(b.t, b.cmd.Process.Pid, 10*time.Second)
	for _, h := range hosts { // the host exits when the browser's end of its stdio closes
		testutil.WaitExit(b.t, h.PID, 10*time.Second)
	}
	os.RemoveAll(b.profile)
}

// call sends a CDP command over the harness pipe.
func (b *userBrowser) call(sessionID, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan pipeMsg, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": orEmpty(params), "sessionId": sessionID})
	if _, err := b.toPipe.Write(append(msg, 0)); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("%s: no answer in 30 s", method)
	}
}

func (b *userBrowser) must(sessionID, method string, params any) json.RawMessage {
	b.t.Helper()
	r, err := b.call(sessionID, method, params)
	if err != nil {
		b.t.Fatal(err)
	}
	return r
}

// targets lists every target the real browser has.
func (b *userBrowser) targets() []targetInfo {
	var r struct{ TargetInfos []targetInfo }
	_ = json.Unmarshal(b.must("", "Target.getTargets", nil), &r)
	return r.TargetInfos
}

// evalIn runs expr (awaiting a promise) in the first target matching
// match, through a session of the harness.
func (b *userBrowser) evalIn(match func(targetInfo) bool, expr string) json.RawMessage {
	b.t.Helper()
	v, err := b.tryEvalIn(match, expr)
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

func (b *userBrowser) tryEvalIn(match func(targetInfo) bool, expr string) (json.RawMessage, error) {
	b.t.Helper()
	var tid string
	deadline := time.Now().Add(15 * time.Second)
	for tid == "" {
		for _, ti := range b.targets() {
			if match(ti) {
				tid = ti.TargetID
				break
			}
		}
		if tid == "" {
			if time.Now().After(deadline) {
				b.t.Fatalf("no target matches; targets: %+v", b.targets())
			}
			b.waitEvent(500*time.Millisecond, "Target.targetCreated")
		}
	}
	var att struct{ SessionID string }
	_ = json.Unmarshal(b.must("", "Target.attachToTarget", map[string]any{"targetId": tid, "flatten": true}), &att)
	defer b.call("", "Target.detachFromTarget", map[string]any{"sessionId": att.SessionID})
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct {
			Exception struct{ Description string }
		}
	}
	raw, err := b.call(att.SessionID, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if err != nil {
		return nil, err
	}
	_ = json.Unmarshal(raw, &r)
	if r.ExceptionDetails != nil {
		return nil, fmt.Errorf("evaluate %s: %s", expr, r.ExceptionDetails.Exception.Description)
	}
	return r.Result.Value, nil
}

// waitEvent waits up to d for an event named method on the harness pipe
// (with discovery on); it only paces loops that re-check a condition.
func (b *userBrowser) waitEvent(d time.Duration, method string) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case m := <-b.events:
			if m.Method == method {
				return
			}
		case <-timer.C:
			return
		}
	}
}

// inExtension runs expr in a page of the extension (its popup, opened as a
// tab), which reaches the service worker as the popup's buttons do.
func (b *userBrowser) inExtension(expr string) json.RawMessage {
	b.t.Helper()
	popup := "chrome-extension://" + extensionIDForTest + "/popup.html"
	isPopup := func(ti targetInfo) bool { return ti.URL == popup }
	if !b.hasTarget(isPopup) {
		b.must("", "Target.createTarget", map[string]any{"url": popup, "background": true})
		// Until the page has loaded, its context is the initial blank one.
		deadline := time.Now().Add(10 * time.Second)
		for {
			v, err := b.tryEvalIn(isPopup, "document.readyState === 'complete' && !!globalThis.chrome?.tabs")
			if err == nil && string(v) == "true" {
				break
			}
			if time.Now().After(deadline) {
				b.t.Fatalf("the extension's popup page did not load: %s %v", v, err)
			}
			b.waitEvent(100*time.Millisecond, "never")
		}
	}
	return b.evalIn(isPopup, expr)
}

func (b *userBrowser) hasTarget(match func(targetInfo) bool) bool {
	for _, ti := range b.targets() {
		if match(ti) {
			return true
		}
	}
	return false
}

// share does what "Share this tab" in the popup does for the tab at url.
func (b *userBrowser) share(url, folder string) {
	b.t.Helper()
	b.inExtension(fmt.Sprintf(`(async () => {
		const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === %q);
		if (!tab) throw new Error('no tab at ' + %q);
		const r = await chrome.runtime.sendMessage({ type: 'popup:share', tabId: tab.id, folder: %q });
		if (!r.ok) throw new Error(r.error);
		return tab.id;
	})()`, url, url, folder))
}

// stopServiceWorker stops the extension's service worker, as the browser
// does to an idle worker or a user on chrome://serviceworker-internals.
func (b *userBrowser) stopServiceWorker() {
	b.t.Helper()
	for _, ti := range b.targets() {
		if ti.Type == "service_worker" && strings.Contains(ti.URL, extensionIDForTest) {
			var att struct{ SessionID string }
			_ = json.Unmarshal(b.must("", "Target.attachToTarget", map[string]any{"targetId": ti.TargetID, "flatten": true}), &att)
			// Closing the worker's target stops the worker.
			b.must("", "Target.closeTarget", map[string]any{"targetId": ti.TargetID})
			return
		}
	}
	b.t.Fatalf("no service worker of the extension; targets: %+v", b.targets())
}

// ctxT is a context that ends with the test, bounded.
func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
