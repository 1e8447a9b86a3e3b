package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/mark3labs/mcp-go/mcp"
)

// The page-tools surfaces against a real Chromium and the fixture site
// (scripts/fixtures/site), through mcp-go's in-process client.

func serveSite(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "fixtures", "site"))))
	// A page whose form's tool name is one of the coordinator's.
	mux.HandleFunc("/t/clash.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<title>Clash</title><form toolname="coordinator_status" tooldescription="The page's own status"><input name="q"><button>Go</button></form>`)
	})
	// A page whose tools change at each "next": 15 new names each time.
	mux.HandleFunc("/t/many.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<title>Many</title><main id="m"></main><script>
let k = 0;
function render() {
  let h = '<h1>Set ' + k + '</h1><form toolname="next" tooldescription="Shows the next set" toolautosubmit><button>Next</button></form>';
  for (let i = 0; i < 15; i++) h += '<form toolname="tool_' + k + '_' + i + '" tooldescription="A tool of a set"><input name="q"><button>Go</button></form>';
  const m = document.getElementById('m');
  m.innerHTML = h;
  m.querySelector('form').addEventListener('submit', (e) => { e.preventDefault(); k++; render(); });
}
render();
</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// notes counts notifications/tools/list_changed.
type notes struct {
	mu sync.Mutex
	n  int
	ch chan struct{}
}

func listen(s *session) *notes {
	n := &notes{ch: make(chan struct{}, 256)}
	s.client.OnNotification(func(m mcp.JSONRPCNotification) {
		if m.Method == string(mcp.MethodNotificationToolsListChanged) {
			n.mu.Lock()
			n.n++
			n.mu.Unlock()
			n.ch <- struct{}{}
		}
	})
	return n
}

// wait waits for the next list_changed.
func (n *notes) wait(t *testing.T, what string) {
	t.Helper()
	select {
	case <-n.ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("no list_changed for %s", what)
	}
}

// drain forgets the notifications so far.
func (n *notes) drain() {
	for {
		select {
		case <-n.ch:
		default:
			return
		}
	}
}

// quiet checks that no list_changed arrives within d.
func (n *notes) quiet(t *testing.T, d time.Duration, what string) {
	t.Helper()
	select {
	case <-n.ch:
		t.Fatalf("list_changed for %s", what)
	case <-time.After(d):
	}
}

func (s *session) names() []string {
	var out []string
	for _, tl := range s.listTools() {
		out = append(out, tl.Name)
	}
	sort.Strings(out)
	return out
}

// pageNames are the listed tools that are not the coordinator's.
func (s *session) pageNames() []string {
	var out []string
	for _, n := range s.names() {
		if !strings.HasPrefix(n, "coordinator_") {
			out = append(out, n)
		}
	}
	return out
}

// untilTools waits until the listed page tools are want (sorted), reading
// the list again at every list_changed.
func (s *session) untilTools(t *testing.T, n *notes, want ...string) {
	t.Helper()
	sort.Strings(want)
	deadline := time.After(20 * time.Second)
	for {
		got := s.pageNames()
		if slices.Equal(got, want) {
			return
		}
		select {
		case <-n.ch:
		case <-deadline:
			t.Fatalf("page tools listed: %v, want %v", got, want)
		}
	}
}

func build(t *testing.T, c *coordinator.Coordinator, o Options) *session {
	t.Helper()
	served, err := Build(c, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	return open(t, served.MCP)
}

func headless(t *testing.T) *coordinator.Coordinator {
	return newCoordinator(t, coordinator.Options{BrowserPath: testutil.BrowserPath(t), Headless: true})
}

func TestDynamicPageTools(t *testing.T) {
	site := serveSite(t)
	c := headless(t)
	s := build(t, c, Options{})
	n := listen(s)
	if got := s.pageNames(); len(got) != 0 {
		t.Fatalf("page tools before any browser: %v", got)
	}
	if st := c.Status(); st.State != coordinator.Idle {
		t.Fatalf("listing started a browser: %s", st.State)
	}

	opened := structured[tabAnswer](t, s.call("coordinator_open_tab", map[string]any{"url": site + "/flights.html"}))
	if !opened.Focused || !slices.Equal(opened.ToolsAvailable, []string{"search_flights", "subscribe_newsletter"}) {
		t.Fatalf("open_tab: %+v", opened)
	}
	s.untilTools(t, n, "search_flights", "subscribe_newsletter")
	var schema map[string]any
	for _, tl := range s.listTools() {
		if tl.Name == "search_flights" {
			_ = json.Unmarshal(tl.InputSchema, &schema)
			if tl.Annotations["readOnlyHint"] != true || tl.Annotations["openWorldHint"] != true {
				t.Fatalf("search_flights' annotations: %v", tl.Annotations)
			}
		}
	}
	if req, _ := schema["required"].([]any); len(req) != 3 {
		t.Fatalf("search_flights' schema: %v", schema)
	}
	if n := checkPortable(t, s.listTools()); n < 2*11+2 {
		t.Fatalf("checked %d schemas", n)
	}

	// A call that navigates: the tools follow, with one list_changed.
	n.drain()
	res := s.call("search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-05-01"})
	if res.IsError || !strings.Contains(text(res), "$450") {
		t.Fatalf("search_flights: %s", text(res))
	}
	s.untilTools(t, n, "open_result", "sort_by_price")

	// Bad input: an error that says what to do, and nothing changes.
	bad := s.call("open_result", map[string]any{"index": 99})
	if !bad.IsError || !strings.Contains(text(bad), "out of range") {
		t.Fatalf("index out of range: %s", text(bad))
	}
	gone := s.call("search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-05-01"})
	if !gone.IsError || !strings.Contains(text(gone), "navigated") || !strings.Contains(text(gone), "open_result") {
		t.Fatalf("a tool of the page the tab left: %s", text(gone))
	}

	// Changes in a tab that is not focused send nothing: a tab opened
	// behind, whose page then changes its forms.
	n.drain()
	behind := structured[tabAnswer](t, s.call("coordinator_open_tab", map[string]any{"url": site + "/stores.html", "focus": false}))
	if behind.Focused || !slices.Equal(behind.ToolsAvailable, []string{"find_stores"}) {
		t.Fatalf("a tab opened behind: %+v", behind)
	}
	sess, err := c.AttachTab(context.Background(), behind.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Call(context.Background(), "Runtime.evaluate", map[string]any{"expression": `document.getElementById('zip').value='10001'; document.querySelector('#find button').click()`}); err != nil {
		t.Fatal(err)
	}
	sess.Close()
	n.quiet(t, time.Second, "a change in a tab that is not focused")
	// A tab the list could not look at within its peek's bound has no
	// toolCount (on a busy machine the idle about:blank tab can be one):
	// list again until every tab has one.
	var list tabList
	var counts map[string]int
	testutil.Poll(t, "every tab's toolCount in coordinator_list_tabs", func() bool {
		list = structured[tabList](t, s.call("coordinator_list_tabs", nil))
		counts = map[string]int{}
		for _, tab := range list.Tabs {
			if tab.ToolCount == nil {
				t.Logf("no toolCount for %+v yet", tab)
				return false
			}
			counts[tab.ID] = *tab.ToolCount
		}
		return true
	})
	if list.FocusedTabID != opened.ID || counts[opened.ID] != 2 || counts[behind.ID] != 3 {
		t.Fatalf("list_tabs: %+v %v", list, counts)
	}

	// Focus moves: list_changed, the other tab's tools.
	n.drain()
	focused := structured[tabAnswer](t, s.call("coordinator_focus_tab", map[string]any{"tabId": behind.ID}))
	if !slices.Equal(focused.ToolsAvailable, []string{"find_stores", "book_visit", "open_store"}) {
		t.Fatalf("focus_tab: %+v", focused)
	}
	n.wait(t, "focus moved")
	s.untilTools(t, n, "find_stores", "book_visit", "open_store")

	// A page tool named like a coordinator tool gets a page_ prefix.
	s.call("coordinator_open_tab", map[string]any{"url": site + "/t/clash.html"})
	s.untilTools(t, n, "page_coordinator_status")
	st := s.call("coordinator_status", nil)
	if st.IsError || !strings.Contains(text(st), "Browser: running") {
		t.Fatalf("coordinator_status is still the coordinator's: %s", text(st))
	}

	// Closing the focused tab: list_changed, no page tools, none focused.
	n.drain()
	closed := structured[map[string]string](t, s.call("coordinator_close_tab", nil))
	n.wait(t, "the focused tab closed")
	if got := s.pageNames(); len(got) != 0 {
		t.Fatalf("page tools after the focused tab closed: %v (closed %v)", got, closed)
	}
	list = structured[tabList](t, s.call("coordinator_list_tabs", nil))
	if list.FocusedTabID != "" {
		t.Fatalf("a tab is focused after closing the focused one: %+v", list)
	}
	none := s.call("coordinator_call_page_tool", map[string]any{"name": "find_stores", "arguments": map[string]any{"zip": "94103"}})
	if !none.IsError || !strings.Contains(text(none), "No tab is focused") && !strings.Contains(text(none), "no tab is focused") {
		t.Fatalf("a page tool with no tab focused: %s", text(none))
	}
}

func TestStaticPair(t *testing.T) {
	site := serveSite(t)
	c := headless(t)
	s := build(t, c, Options{PageTools: PageToolsStatic})
	before := s.names()
	if !slices.Contains(before, "coordinator_page_tools") || !slices.Contains(before, "coordinator_call_page_tool") {
		t.Fatalf("tools: %v", before)
	}
	empty := structured[struct {
		Focused bool `json:"focused"`
	}](t, s.call("coordinator_page_tools", nil))
	if empty.Focused || c.Status().State != coordinator.Idle {
		t.Fatalf("page tools with no browser: %+v, %s", empty, c.Status().State)
	}
	s.call("coordinator_open_tab", map[string]any{"url": site + "/webmcp.html"})
	listed := structured[struct {
		Focused bool `json:"focused"`
		Tools   []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}](t, s.call("coordinator_page_tools", nil))
	var got []string
	for _, tl := range listed.Tools {
		got = append(got, tl.Name)
		if tl.InputSchema["type"] != "object" {
			t.Fatalf("%s: schema %v", tl.Name, tl.InputSchema)
		}
	}
	if !listed.Focused || len(got) == 0 {
		t.Fatalf("page tools: %+v", listed)
	}
	if after := s.names(); !slices.Equal(after, before) {
		t.Fatalf("static: the tool list changed: %v", after)
	}
	bad := s.call("coordinator_call_page_tool", map[string]any{"name": "no_such_tool"})
	if !bad.IsError || !strings.Contains(text(bad), got[0]) {
		t.Fatalf("an unknown page tool: %s", text(bad))
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "name is required"},
		{map[string]any{"name": got[0], "arguments": "x"}, "arguments must be an object"},
		{map[string]any{"name": got[0], "extra": 1}, "unknown argument extra"},
	} {
		if r := s.call("coordinator_call_page_tool", tc.args); !r.IsError || !strings.Contains(text(r), tc.want) {
			t.Errorf("%v: %s", tc.args, text(r))
		}
	}
}

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{}, ""},
		{Options{PageTools: PageToolsStatic}, ""},
		{Options{PageTools: "sometimes"}, "must be dynamic, static or off"},
		{Options{Progressive: true, PageTools: PageToolsOff}, "leave --page-tools out"},
		{Options{FollowUserFocus: true}, "applies to --tools progressive only"},
		{Options{Progressive: true, FollowUserFocus: true}, ""},
	} {
		err := tc.o.Check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
}

// A tool the page just took away is answered by its handler (why it is
// gone, the tools now), never by mcp-go's "tool not found" (-32602), even
// after more page tools than the registry and the engine keep have come and
// gone: in every surface.
func TestAGoneToolSaysWhyAfterManyTools(t *testing.T) {
	site := serveSite(t)
	for _, o := range []Options{{}, {PageTools: PageToolsStatic}, {Progressive: true}} {
		c := headless(t)
		s := build(t, c, o)
		n := listen(s)
		static := o.PageTools == PageToolsStatic
		// shown: the page tools the session is shown now (a listing).
		shown := s.pageNames
		call := func(name string, args map[string]any) *mcp.CallToolResult { return s.call(name, args) }
		if static {
			shown = func() []string {
				return pagetools.Names(structured[struct{ Tools []pagetools.Tool }](t, s.call("coordinator_page_tools", nil)).Tools)
			}
			call = func(name string, args map[string]any) *mcp.CallToolResult {
				return s.call("coordinator_call_page_tool", map[string]any{"name": name, "arguments": args})
			}
		}
		if o.Progressive {
			s.call("connect_browser", map[string]any{"launch": true})
			s.call("open_tab", map[string]any{"url": site + "/t/many.html"})
		} else {
			s.call("coordinator_open_tab", map[string]any{"url": site + "/t/many.html"})
		}
		for k := 0; k < 20; k++ {
			set := fmt.Sprintf("tool_%d_0", k)
			deadline := time.Now().Add(20 * time.Second)
			for !slices.Contains(shown(), set) {
				if time.Now().After(deadline) {
					t.Fatalf("%+v: set %d never listed: %v", o, k, shown())
				}
				select {
				case <-n.ch:
				case <-time.After(time.Second):
				}
			}
			if res := call("next", map[string]any{}); res.IsError {
				t.Fatalf("%+v: next: %s", o, text(res))
			}
			gone := call(set, map[string]any{"q": "x"})
			if !gone.IsError || !strings.Contains(text(gone), "is gone") || !strings.Contains(text(gone), fmt.Sprintf("tool_%d_0", k+1)) {
				t.Fatalf("%+v: set %d: a tool the page took away: %s", o, k, text(gone))
			}
		}
	}
}
