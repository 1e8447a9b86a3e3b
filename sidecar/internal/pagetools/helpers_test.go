package pagetools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
)

// shared is the one Chromium the package's tests share: none of them
// watches the browser itself, so each gets a browser context of its own in
// it (its own tabs, cookies and storage) instead of a browser.
var shared testbrowser.Shared

func TestMain(m *testing.M) { os.Exit(testutil.Main(m, shared.Close)) }

// fixtureDir is the fixture site shared with the end-to-end tests.
func fixtureDir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "fixtures", "site")
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Fatalf("fixture site not found: %v", err)
	}
	return dir
}

// site serves the fixture site, plus pages a test adds under /t/, from
// net/http's concurrent server (Chromium's preconnects hang a serial one).
type site struct {
	URL      string
	mu       sync.Mutex
	pages    map[string]string
	requests []string // what /api/ received: "METHOD /api/path"
}

// received is what /api/ received so far.
func (s *site) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func serveSite(t testing.TB) *site {
	s := &site{pages: map[string]string{}}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(fixtureDir(t))))
	mux.HandleFunc("/t/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		body, ok := s.pages[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	})
	// An API that answers after a while (longer than a page's DOM stays
	// quiet): what an API explorer calls.
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		select {
		case <-time.After(700 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"answer":"Rex","path":%q}`, r.URL.Path)
	})
	// Files a form uploads: "file <field> <name> <size>" for each.
	mux.HandleFunc("/upload", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err == nil {
			s.mu.Lock()
			for field, fhs := range r.MultipartForm.File {
				for _, fh := range fhs {
					s.requests = append(s.requests, fmt.Sprintf("file %s %s %d", field, fh.Filename, fh.Size))
				}
			}
			s.mu.Unlock()
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>Received</title><h1>Received</h1>")
	})
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// page adds a test page and answers its URL.
func (s *site) page(path, html string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages["/t/"+path] = html
	return s.URL + "/t/" + path
}

// browser is a test's browser context in the shared headless Chromium,
// with a browser-level CDP connection of the test's own whose events are
// routed to the engines by session.
type browser struct {
	conn      *cdp.Conn
	contextID string // the test's browser context: its tabs open there
	mu        sync.Mutex
	routes    map[string]func(cdp.Message)
}

// startBrowser connects to the shared browser and makes the test a browser
// context there, disposed (with every tab in it) when the test ends.
func startBrowser(t testing.TB) *browser {
	t.Helper()
	lb := shared.Get(t)
	b := &browser{routes: map[string]func(cdp.Message){}}
	conn, err := cdp.Dial(context.Background(), "ws://"+lb.Addr()+lb.WSPath, func(m cdp.Message) {
		b.mu.Lock()
		route := b.routes[m.SessionID]
		b.mu.Unlock()
		if route != nil {
			route(m)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	b.conn = conn
	res, err := conn.Call(testCtx(t), "", "Target.createBrowserContext", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		BrowserContextID string `json:"browserContextId"`
	}
	if err := json.Unmarshal(res, &created); err != nil || created.BrowserContextID == "" {
		t.Fatalf("Target.createBrowserContext answered %s (%v)", res, err)
	}
	b.contextID = created.BrowserContextID
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testutil.Guard)
		defer cancel()
		if _, err := conn.Call(ctx, "", "Target.disposeBrowserContext", map[string]any{"browserContextId": b.contextID}); err != nil {
			t.Errorf("disposing the test's browser context: %v", err)
		}
	})
	return b
}

// session adapts today's cdp client to the engine's Session.
type session struct {
	conn *cdp.Conn
	id   string
}

func (s session) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.conn.Call(ctx, s.id, method, params)
}

// tab is a page target with an attached session and, once started, an
// engine fed with the session's events.
type tab struct {
	t        testing.TB
	b        *browser
	targetID string
	sess     session
	eng      *Engine
	events   chan cdp.Message // the session's load events, for tests
	reports  atomic.Int32     // reports the page's script sent (Runtime.bindingCalled)
	// reportsBy counts the reports by the binding they came through (one
	// per engine), under b.mu.
	reportsBy map[string]int
	loads     chan time.Time // when each load event arrived
}

// newTab opens url in a new tab, waits for it to load, then starts an
// engine on it (so the engine meets a document already there).
func (b *browser) newTab(t testing.TB, url string, cfg Config) *tab {
	t.Helper()
	tb := b.attach(t, url)
	tb.waitLoad()
	tb.start(cfg)
	return tb
}

// attach opens url in a new tab and attaches a session, without an engine.
func (b *browser) attach(t testing.TB, url string) *tab {
	t.Helper()
	ctx := testCtx(t)
	res, err := b.conn.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank", "browserContextId": b.contextID})
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		TargetID string `json:"targetId"`
	}
	_ = json.Unmarshal(res, &created)
	res, err = b.conn.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true})
	if err != nil {
		t.Fatal(err)
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(res, &attached)
	tb := &tab{t: t, b: b, targetID: created.TargetID, sess: session{b.conn, attached.SessionID}, events: make(chan cdp.Message, 1024), loads: make(chan time.Time, 1024), reportsBy: map[string]int{}}
	b.mu.Lock()
	b.routes[attached.SessionID] = func(m cdp.Message) {
		// A report is counted before the engine takes it: tools the engine
		// shows have their report counted.
		if m.Method == "Runtime.bindingCalled" && strings.Contains(string(m.Params), `"name":"__bcPageToolsReport_`) {
			tb.reports.Add(1)
			var called struct{ Name string }
			_ = json.Unmarshal(m.Params, &called)
			b.mu.Lock()
			tb.reportsBy[called.Name]++
			b.mu.Unlock()
		}
		b.mu.Lock()
		eng := tb.eng
		b.mu.Unlock()
		if eng != nil {
			eng.HandleEvent(m.Method, m.Params)
		}
		switch m.Method {
		case "Page.loadEventFired":
			select {
			case tb.events <- m:
			default:
			}
			select {
			case tb.loads <- time.Now():
			default:
			}
		}
	}
	b.mu.Unlock()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if tb.eng != nil {
			_ = tb.eng.Close(ctx)
		}
		_, _ = b.conn.Call(ctx, "", "Target.closeTarget", map[string]any{"targetId": tb.targetID})
	})
	tb.must("Page.enable", nil)
	if url != "" {
		tb.must("Page.navigate", map[string]any{"url": url})
	}
	return tb
}

func (tb *tab) start(cfg Config) {
	tb.t.Helper()
	eng := New(tb.sess, cfg)
	tb.b.mu.Lock()
	tb.eng = eng
	tb.b.mu.Unlock()
	if err := eng.Start(testCtx(tb.t)); err != nil {
		tb.t.Fatal(err)
	}
}

func (tb *tab) waitLoad() {
	tb.t.Helper()
	select {
	case <-tb.events:
	case <-time.After(15 * time.Second):
		tb.t.Fatal("the page did not load")
	}
}

func (tb *tab) must(method string, params any) json.RawMessage {
	tb.t.Helper()
	res, err := tb.sess.Call(testCtx(tb.t), method, params)
	if err != nil {
		tb.t.Fatalf("%s: %v", method, err)
	}
	return res
}

// eval evaluates expr in the page's own (main) world and answers its value.
func (tb *tab) eval(expr string) any {
	tb.t.Helper()
	res := tb.must("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	var out struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails any `json:"exceptionDetails"`
	}
	_ = json.Unmarshal(res, &out)
	if out.ExceptionDetails != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, out.ExceptionDetails)
	}
	return out.Result.Value
}

// navigate loads url in the tab the way a user or a child MCP would (not
// through the engine).
func (tb *tab) navigate(url string) {
	tb.t.Helper()
	tb.must("Page.navigate", map[string]any{"url": url})
}

// waitChanged waits for the engine's "tools changed" signal.
func (tb *tab) waitChanged(within time.Duration) {
	tb.t.Helper()
	select {
	case <-tb.eng.Changed():
	case <-time.After(within):
		tb.t.Fatalf("no tools-changed signal within %s; tools: %v", within, Names(tb.eng.Tools()))
	}
}

// drainChanged empties a pending signal, so a test can see the next one.
func (tb *tab) drainChanged() {
	select {
	case <-tb.eng.Changed():
	default:
	}
}

// waitTools waits until the tab's tools are exactly names (in order).
func (tb *tab) waitTools(names ...string) []Tool {
	tb.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		tools := tb.eng.Tools()
		if strings.Join(Names(tools), ",") == strings.Join(names, ",") {
			return tools
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("tools = %v, want %v", Names(tools), names)
		}
		select {
		case <-tb.eng.Changed():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// reportsOf is how many reports came through the engine eng's binding.
func (tb *tab) reportsOf(eng *Engine) int {
	tb.b.mu.Lock()
	defer tb.b.mu.Unlock()
	return tb.reportsBy[eng.binding]
}

// waitFields waits until the tool named tool has n fields.
func (tb *tab) waitFields(tool string, n int) {
	tb.t.Helper()
	fields := func() int {
		for _, tl := range tb.eng.Tools() {
			if tl.Name == tool {
				var schema struct{ Properties map[string]any }
				_ = json.Unmarshal(tl.InputSchema, &schema)
				return len(schema.Properties)
			}
		}
		return -1
	}
	guard := time.After(testutil.Guard)
	for fields() != n {
		select {
		case <-tb.eng.Changed():
		case <-time.After(100 * time.Millisecond):
		case <-guard:
			tb.t.Fatalf("%s has %d fields, want %d", tool, fields(), n)
		}
	}
}

func (tb *tab) call(name string, args map[string]any) *Result {
	tb.t.Helper()
	res, err := tb.eng.Call(testCtx(tb.t), name, args)
	if err != nil {
		tb.t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func tool(t testing.TB, tools []Tool, name string) Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q in %v", name, Names(tools))
	return Tool{}
}

// schemaOf decodes a tool's input schema.
func schemaOf(t testing.TB, tl Tool) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(tl.InputSchema, &m); err != nil {
		t.Fatalf("%s: schema is not JSON: %v", tl.Name, err)
	}
	return m
}

func prop(t testing.TB, schema map[string]any, name string) map[string]any {
	t.Helper()
	props, _ := schema["properties"].(map[string]any)
	p, ok := props[name].(map[string]any)
	if !ok {
		keys := []string{}
		for k := range props {
			keys = append(keys, k)
		}
		t.Fatalf("no property %q in %v", name, keys)
	}
	return p
}
