//go:build linux

package userbrowser

import (
	"bufio"
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

// BuildSidecar builds the binary of this tree, which the browser starts as
// the native host (go's cache makes it quick after the first time).
func BuildSidecar(t testing.TB) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "browser-coordinator")
	cmd := exec.Command("go", "build", "-o", out, "github.com/browser-coordinator/browser-coordinator/sidecar/cmd/browser-coordinator")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the sidecar: %v\n%s", err, b)
	}
	return out
}

func RepoRoot(t testing.TB) string {
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

// ExtensionDir is the unpacked browser extension (dist/browser-extension,
// what `npm run build` makes), built first when it is missing or older than
// its sources: a test that needs it builds it, or fails saying why; it
// never skips. Test packages that run at once build it once (a lock).
func ExtensionDir(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	dir := filepath.Join(root, "dist", "browser-extension")
	os.MkdirAll(filepath.Dir(dir), 0o755)
	lock, err := os.OpenFile(filepath.Join(root, "dist", ".browser-extension.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if built(dir, filepath.Join(root, "extension", "browser")) {
		return dir
	}
	script := filepath.Join(root, "scripts", "lib", "browserExtension.mjs")
	cmd := exec.Command("node", "-e", "import(require('node:url').pathToFileURL(process.argv[1]).href).then((m) => m.buildBrowserExtension())", script)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the browser extension is not built, and building it failed (npm ci first; then npm run build): %v\n%s", err, out)
	}
	return dir
}

// built reports whether dir holds a build newer than every file of src.
func built(dir, src string) bool {
	st, err := os.Stat(filepath.Join(dir, "background.js"))
	if err != nil {
		return false
	}
	newer := false
	filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(st.ModTime()) {
			newer = true
			return filepath.SkipAll
		}
		return nil
	})
	return !newer
}

// Pages serves test pages, concurrently (Chromium preconnects).
func Pages(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.Trim(r.URL.Path, "/")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<!doctype html><title>%s page</title><h1 id=h>%s</h1><form><input name=q><button>Go</button></form>", name, name)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Browser is the user's Chromium with the extension loaded.
type Browser struct {
	t       testing.TB
	cmd     *exec.Cmd
	profile string
	state   string
	toPipe  *os.File

	mu      sync.Mutex
	next    int64
	pending map[int64]chan Message
	events  chan Message
	readEnd chan struct{}
	stopped sync.Once
}

// Message is one message on the harness pipe.
type Message struct {
	ID        int64                     `json:"id,omitempty"`
	Method    string                    `json:"method,omitempty"`
	Params    json.RawMessage           `json:"params,omitempty"`
	Result    json.RawMessage           `json:"result,omitempty"`
	Error     *struct{ Message string } `json:"error,omitempty"`
	SessionID string                    `json:"sessionId,omitempty"`
}

// Start registers the host in a fresh profile and starts
// Chromium on urls with the extension, the host finding this test's state
// folder through the environment the browser passes it.
func Start(t testing.TB, state string, urls ...string) *Browser {
	t.Helper()
	path := testutil.BrowserPath(t)
	ext := ExtensionDir(t)
	profile, err := os.MkdirTemp("", "prof")
	if err != nil {
		t.Fatal(err)
	}
	install := exec.Command(BuildSidecar(t), "install", "--host", "chromium", "--user-data-dir", profile)
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
	b := &Browser{t: t, cmd: cmd, profile: profile, state: state, toPipe: cmdW,
		pending: map[int64]chan Message{}, events: make(chan Message, 1024), readEnd: make(chan struct{})}
	go func() { // ends when the browser's end of the pipe closes; stop waits for it
		defer close(b.readEnd)
		r := bufio.NewReaderSize(resR, 1<<20)
		for {
			line, err := r.ReadBytes(0)
			if err != nil {
				resR.Close()
				return
			}
			var m Message
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
	t.Cleanup(b.Stop)
	b.Must("", "Target.setDiscoverTargets", map[string]any{"discover": true}) // WaitEvent's events
	for _, u := range urls {
		var r struct{ TargetID string }
		_ = json.Unmarshal(b.Must("", "Target.createTarget", map[string]any{"url": u}), &r)
		b.waitCommitted(r.TargetID, u)
	}
	return b
}

// waitCommitted waits until the tab id shows url, as a tab a user opened
// does before the user shares it or clicks another: until then the
// extension sees a tab with no URL, and its commit later is news (activity)
// that a test did not mean.
func (b *Browser) waitCommitted(id, url string) {
	b.t.Helper()
	deadline := time.Now().Add(testutil.Guard)
	for {
		for _, ti := range b.Targets() {
			if ti.TargetID == id && ti.URL == url {
				return
			}
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("the tab opened at %s did not get there in %v: %+v", url, testutil.Guard, b.Targets())
		}
		b.WaitEvent(200*time.Millisecond, "Target.targetInfoChanged")
	}
}

// Stop kills the browser (its whole process group) and waits for it and
// its native hosts to exit; the test's cleanup does it too.
func (b *Browser) Stop() { b.stopped.Do(b.stop) }

// PID is the browser's process id.
func (b *Browser) PID() int { return b.cmd.Process.Pid }

// Alive reports whether the browser process still runs.
func (b *Browser) Alive() bool {
	select {
	case <-b.readEnd: // its end of the pipe closed: it exited
		return false
	default:
		return syscall.Kill(b.cmd.Process.Pid, 0) == nil
	}
}

func (b *Browser) stop() {
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

// Call sends a CDP command over the harness pipe.
func (b *Browser) Call(sessionID, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan Message, 1)
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
	case <-time.After(testutil.Guard):
		return nil, fmt.Errorf("%s: no answer in %v", method, testutil.Guard)
	}
}

// Must is Call that fails the test on an error.
func (b *Browser) Must(sessionID, method string, params any) json.RawMessage {
	b.t.Helper()
	r, err := b.Call(sessionID, method, params)
	if err != nil {
		b.t.Fatal(err)
	}
	return r
}

// Targets lists every target the real browser has.
func (b *Browser) Targets() []Target {
	var r struct{ TargetInfos []Target }
	_ = json.Unmarshal(b.Must("", "Target.getTargets", nil), &r)
	return r.TargetInfos
}

// EvalIn runs expr (awaiting a promise) in the first target matching
// match, through a session of the harness.
func (b *Browser) EvalIn(match func(Target) bool, expr string) json.RawMessage {
	b.t.Helper()
	v, err := b.TryEvalIn(match, expr)
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// TryEvalIn is EvalIn that returns the error.
func (b *Browser) TryEvalIn(match func(Target) bool, expr string) (json.RawMessage, error) {
	b.t.Helper()
	var tid string
	deadline := time.Now().Add(testutil.Guard)
	for tid == "" {
		for _, ti := range b.Targets() {
			if match(ti) {
				tid = ti.TargetID
				break
			}
		}
		if tid == "" {
			if time.Now().After(deadline) {
				b.t.Fatalf("no target matches; targets: %+v", b.Targets())
			}
			b.WaitEvent(500*time.Millisecond, "Target.targetCreated")
		}
	}
	var att struct{ SessionID string }
	_ = json.Unmarshal(b.Must("", "Target.attachToTarget", map[string]any{"targetId": tid, "flatten": true}), &att)
	defer b.Call("", "Target.detachFromTarget", map[string]any{"sessionId": att.SessionID})
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct {
			Exception struct{ Description string }
		}
	}
	raw, err := b.Call(att.SessionID, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if err != nil {
		return nil, err
	}
	_ = json.Unmarshal(raw, &r)
	if r.ExceptionDetails != nil {
		return nil, fmt.Errorf("evaluate %s: %s", expr, r.ExceptionDetails.Exception.Description)
	}
	return r.Result.Value, nil
}

// WaitEvent waits up to d for an event named method on the harness pipe
// (with discovery on); it only paces loops that re-check a condition.
func (b *Browser) WaitEvent(d time.Duration, method string) {
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

// InExtension runs expr in a page of the extension (its popup, opened as a
// tab), which reaches the service worker as the popup's buttons do.
func (b *Browser) InExtension(expr string) json.RawMessage {
	b.t.Helper()
	popup := "chrome-extension://" + ExtensionID + "/popup.html"
	isPopup := func(ti Target) bool { return ti.URL == popup }
	if !b.HasTarget(isPopup) {
		b.Must("", "Target.createTarget", map[string]any{"url": popup, "background": true})
		// Until the page has loaded, its context is the initial blank one.
		deadline := time.Now().Add(testutil.Guard) // a busy machine loads it slowly
		for {
			v, err := b.TryEvalIn(isPopup, "document.readyState === 'complete' && !!globalThis.chrome?.tabs")
			if err == nil && string(v) == "true" {
				break
			}
			if time.Now().After(deadline) {
				b.t.Fatalf("the extension's popup page did not load: %s %v", v, err)
			}
			b.WaitEvent(100*time.Millisecond, "never")
		}
	}
	return b.EvalIn(isPopup, expr)
}

// HasTarget reports whether the browser has a target match accepts.
func (b *Browser) HasTarget(match func(Target) bool) bool {
	for _, ti := range b.Targets() {
		if match(ti) {
			return true
		}
	}
	return false
}

// Share does what "Share this tab" in the popup does for the tab at url.
func (b *Browser) Share(url, folder string) {
	b.t.Helper()
	b.InExtension(fmt.Sprintf(`(async () => {
		const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === %q);
		if (!tab) throw new Error('no tab at ' + %q);
		const r = await chrome.runtime.sendMessage({ type: 'popup:share', tabId: tab.id, folder: %q });
		if (!r.ok) throw new Error(r.error);
		return tab.id;
	})()`, url, url, folder))
}

// Keep does what "Keep this tab" in the popup does for the agent's tab at url.
func (b *Browser) Keep(url string) {
	b.t.Helper()
	b.InExtension(fmt.Sprintf(`(async () => {
		const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === %q || t.pendingUrl === %q);
		if (!tab) throw new Error('no tab at ' + %q);
		const r = await chrome.runtime.sendMessage({ type: 'popup:keep', tabId: tab.id });
		if (!r.ok) throw new Error(r.error);
		return tab.id;
	})()`, url, url, url))
}

// StopServiceWorker stops the extension's service worker, as the browser
// does to an idle worker or a user on chrome://serviceworker-internals.
func (b *Browser) StopServiceWorker() {
	b.t.Helper()
	for _, ti := range b.Targets() {
		if ti.Type == "service_worker" && strings.Contains(ti.URL, ExtensionID) {
			var att struct{ SessionID string }
			_ = json.Unmarshal(b.Must("", "Target.attachToTarget", map[string]any{"targetId": ti.TargetID, "flatten": true}), &att)
			// Closing the worker's target stops the worker.
			b.Must("", "Target.closeTarget", map[string]any{"targetId": ti.TargetID})
			return
		}
	}
	b.t.Fatalf("no service worker of the extension; targets: %+v", b.Targets())
}

func orEmpty(p any) any {
	if p == nil {
		return struct{}{}
	}
	return p
}
