package pagetools

// Integration tests of how the engine follows a tab: navigations, DOM
// changes, the debounce, the isolated world, closing.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func TestRediscoveryAfterNavigation(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	// The engine starts on a blank tab; every page after it gets the
	// script as its document is created.
	tb := b.attach(t, "")
	tb.start(Config{})
	if got := tb.eng.Tools(); len(got) != 0 {
		t.Fatalf("a blank page has tools %v", Names(got))
	}
	tb.drainChanged()
	tb.navigate(s.URL + "/flights.html")
	tb.waitChanged(10 * time.Second)
	tb.waitTools("search_flights", "subscribe_newsletter")
	if url, title := tb.eng.Page(); url != s.URL+"/flights.html" || title != "Skyways · Find flights" {
		t.Fatalf("page = %s %q", url, title)
	}
	tb.navigate(s.URL + "/inbox.html")
	tb.waitChanged(10 * time.Second)
	tb.waitTools("search_inbox", "open_thread", "compose", "refresh")

	// History: back restores the flight search's tools.
	tb.eval(`history.back()`)
	tb.waitTools("search_flights", "subscribe_newsletter")
	res := tb.call("search_flights", map[string]any{"from": "AMS", "to": "LIS", "depart_date": "2026-05-01"})
	if !res.Navigated || !strings.Contains(res.PageText, "AMS to LIS") {
		t.Fatalf("after going back: %+v", res)
	}
}

func TestRediscoveryWhenAFetchChangesTheForms(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/stores.html", Config{})
	tb.drainChanged()
	// The user, not the engine, finds stores.
	tb.eval(`document.getElementById('zip').value = '10001'; document.querySelector('#find button').click()`)
	tb.waitChanged(5 * time.Second)
	tb.waitTools("find_stores", "book_visit", "open_store")
}

func TestDebounce(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	// A debounce wide enough that a loaded machine's late timers do not
	// split the burst below.
	cfg := Config{Debounce: 400 * time.Millisecond, MaxDebounce: time.Second}
	page := s.page("burst.html", `<title>Burst</title><form id="f"><label>Field 0 <input name="f0"></label><button>Save</button></form>
	<script>
	// Adds n fields, one every ms milliseconds.
	window.grow = (n, ms) => new Promise((done) => {
	  let i = 0;
	  const add = () => {
	    i++;
	    const l = document.createElement('label');
	    l.append('Field ' + (document.querySelectorAll('#f input').length), document.createElement('input'));
	    l.lastChild.name = 'f' + i;
	    document.getElementById('f').prepend(l);
	    if (i < n) setTimeout(add, ms); else done();
	  };
	  add();
	});
	</script>`)
	tb := b.newTab(t, page, cfg)
	tb.drainChanged()

	// Ten changes 20 ms apart: one look at the page once they stop. One
	// more change after that look is reported after any other report of
	// the burst: two reports up to the one that has its field.
	before := tb.reports.Load()
	tb.eval(`grow(10, 20)`)
	tb.waitChanged(5 * time.Second)
	if props := schemaOf(t, tool(t, tb.eng.Tools(), "save")); len(props["properties"].(map[string]any)) != 11 {
		t.Fatalf("save has %d properties, want 11", len(props["properties"].(map[string]any)))
	}
	tb.eval(`grow(1, 0)`)
	tb.waitFields("save", 12)
	if n := tb.reports.Load() - before; n != 2 {
		t.Fatalf("%d reports for a burst of 10 changes and one more change after it, want 2", n)
	}

	// A page that never stops changing is still looked at, every
	// MaxDebounce at most: 40 changes over 2 s make a few reports, not 40,
	// the last with every field.
	tb.drainChanged()
	before = tb.reports.Load()
	start := time.Now()
	tb.eval(`grow(40, 50)`)
	tb.waitFields("save", 52)
	n := tb.reports.Load() - before
	elapsed := time.Since(start)
	if n < 2 || n > int32(elapsed/cfg.MaxDebounce)+2 {
		t.Fatalf("%d reports in %s of continuous changes (MaxDebounce %s)", n, elapsed, cfg.MaxDebounce)
	}
}

func TestTheIsolatedWorld(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/hostile.html", Config{})
	// The page did break its own world…
	if v := tb.eval(`(() => { try { document.documentElement.querySelectorAll('a'); return 'works'; } catch (e) { return String(e.message); } })()`); v != "the page broke querySelectorAll" {
		t.Fatalf("the hostile page's own querySelectorAll: %v", v)
	}
	// …and its DOM clobbers forms and the document in every world.
	if v := tb.eval(`document.forms[0].submit.tagName + ' ' + document.body.tagName + ' ' + document.querySelectorAll.tagName`); v != "INPUT IMG IMG" {
		t.Fatalf("clobbering is not in place: %v", v)
	}
	// Yet the engine found the form, with only its one visible field.
	lookup := tool(t, tb.eng.Tools(), "look_up")
	if props := schemaOf(t, lookup)["properties"].(map[string]any); len(props) != 1 || props["query"] == nil {
		t.Fatalf("look_up properties %v", props)
	}
	// The page sees nothing of it: no new global, no attribute written.
	// (Written without the array built-ins the page broke.)
	leaked := tb.eval(`(() => {
		const init = new Set(__initialNames), names = Object.getOwnPropertyNames(window);
		let out = '';
		for (let i = 0; i < names.length; i++) if (!init.has(names[i]) && names[i] !== '__initialNames' && names[i] !== '__attributeChanges') out += names[i] + ' ';
		return out;
	})()`)
	if leaked != "" {
		t.Fatalf("new globals in the page's world: %v", leaked)
	}
	if v := tb.eval(`typeof globalThis.` + scriptKey); v != "undefined" {
		t.Fatalf("the page can reach the script: %v", v)
	}
	// The engine's call works through the broken page and its clobbered form.
	res := tb.call("look_up", map[string]any{"query": "kites"})
	if !res.Navigated || !strings.Contains(res.URL, "q=kites") {
		t.Fatalf("look_up = %+v", res)
	}
	if v := tb.eval(`__attributeChanges.length`); v != 0.0 {
		t.Fatalf("attribute changes the page saw: %v", tb.eval(`(() => { let s = ''; for (let i = 0; i < __attributeChanges.length; i++) s += __attributeChanges[i] + ' '; return s; })()`))
	}

	// A page script cannot forge a report: the binding exists in the
	// isolated world only.
	tb.drainChanged()
	before := tb.reports.Load()
	tb.eval(`for (const n of Object.getOwnPropertyNames(window)) if (n.startsWith('__bcPageTools')) window[n]('{"type":"tools","page":{"forms":[]}}')`)
	if v := tb.eval(`(() => { let n = 0; for (const k of Object.getOwnPropertyNames(window)) if (k.startsWith('__bcPageTools')) n++; return n; })()`); v != 0.0 {
		t.Fatalf("the page's world has %v report bindings", v)
	}
	select {
	case <-tb.eng.Changed():
		t.Fatal("the page changed the engine's tools")
	case <-time.After(300 * time.Millisecond):
	}
	if tb.reports.Load() != before || len(tb.eng.Tools()) != 1 {
		t.Fatalf("a report from the page's world: tools %v", Names(tb.eng.Tools()))
	}
}

func TestCloseRemovesTheScript(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/flights.html", Config{})
	closed := tb.eng
	if err := closed.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	before := tb.reportsOf(closed)
	tb.navigate(s.URL + "/inbox.html")
	tb.waitLoad()
	// A script left behind reports the inbox's tools as the page starts
	// (at its load at the latest); a new engine on the tab reports them
	// after that, once it is started on the loaded page.
	tb.start(Config{})
	tb.waitTools("search_inbox", "open_thread", "compose", "refresh")
	if tb.reportsOf(tb.eng) == 0 {
		t.Fatal("the new engine's tools came with no report")
	}
	if n := tb.reportsOf(closed) - before; n != 0 {
		t.Fatalf("%d reports after Close", n)
	}
	if _, err := closed.Call(testCtx(t), "search_inbox", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("a call after Close: %v", err)
	}
	if err := closed.Close(testCtx(t)); err != nil {
		t.Fatal("Close twice:", err)
	}
}

func TestTwoEnginesOnOnePage(t *testing.T) {
	// Two owners (two sessions) on the same tab each get their own world
	// and binding, and neither disturbs the other.
	s := serveSite(t)
	b := startBrowser(t)
	first := b.newTab(t, s.URL+"/inbox.html", Config{})
	res, err := b.conn.Call(testCtx(t), "", "Target.attachToTarget", map[string]any{"targetId": first.targetID, "flatten": true})
	if err != nil {
		t.Fatal(err)
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(res, &attached)
	second := New(session{b.conn, attached.SessionID}, Config{})
	b.mu.Lock()
	b.routes[attached.SessionID] = func(m cdp.Message) { second.HandleEvent(m.Method, m.Params) }
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := second.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(Names(second.Tools()), Names(first.eng.Tools())) {
		t.Fatalf("%v vs %v", Names(second.Tools()), Names(first.eng.Tools()))
	}
	if err := second.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r := first.call("compose", nil)
	if r.PageText != "New message draft opened." {
		t.Fatalf("the first engine after the second closed: %+v", r)
	}
}

func TestAPageThatDoesNotLoad(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/flights.html", Config{})
	tb.drainChanged()
	tb.navigate("http://127.0.0.1:1/nothing-listens-here")
	tb.waitChanged(10 * time.Second)
	if got := tb.eng.Tools(); len(got) != 0 {
		t.Fatalf("the browser's error page has tools %v", Names(got))
	}
	_, err := tb.eng.Call(testCtx(t), "search_flights", nil)
	if !errors.Is(err, ErrNavigatedAway) || !strings.HasSuffix(err.Error(), "the page has no tools now") {
		t.Fatalf("err = %v", err)
	}
}

func TestALinkThatOpensANewTab(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("targets.html", `<title>Links</title><ul aria-label="Guides">
		<li><a href="/inbox.html" target="_blank">Inbox guide</a></li><li><a href="/stores.html" target="_blank">Stores guide</a></li><li><a href="/flights.html" target="_blank">Flights guide</a></li></ul>`), Config{})
	start := time.Now()
	res := tb.call("open_guide", map[string]any{"index": 1.0})
	if res.Navigated || !strings.Contains(res.Note, "opened "+s.URL+"/stores.html in a new tab") {
		t.Fatalf("result = %+v", res)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the call waited %s for a navigation that happened elsewhere", took)
	}
}

func TestAnIframeTarget(t *testing.T) {
	// VS Code's Simple Browser shows the page in an iframe of another site,
	// its own target: the engine works on that target's root frame.
	s := serveSite(t)
	b := startBrowser(t)
	port := s.URL[strings.LastIndex(s.URL, ":")+1:]
	s.page("host.html", `<title>Workbench</title><h1>Editor</h1><form><label>Find in files <input name="q"></label><button>Find</button></form>
		<iframe src="`+s.URL+`/flights.html" style="width:800px;height:900px"></iframe>`)
	// The browser names each target as it is made or changes (and, once
	// asked, every target already there).
	iframes := make(chan string, 1)
	b.mu.Lock()
	b.routes[""] = func(m cdp.Message) {
		if m.Method != "Target.targetCreated" && m.Method != "Target.targetInfoChanged" {
			return
		}
		var ev struct {
			TargetInfo struct {
				TargetID string `json:"targetId"`
				Type     string `json:"type"`
				URL      string `json:"url"`
			} `json:"targetInfo"`
		}
		_ = json.Unmarshal(m.Params, &ev)
		if ti := ev.TargetInfo; ti.Type == "iframe" && strings.HasSuffix(ti.URL, "/flights.html") {
			select {
			case iframes <- ti.TargetID:
			default:
			}
		}
	}
	b.mu.Unlock()
	if _, err := b.conn.Call(testCtx(t), "", "Target.setDiscoverTargets", map[string]any{"discover": true}); err != nil {
		t.Fatal(err)
	}
	host := b.attach(t, "http://localhost:"+port+"/t/host.html")
	host.waitLoad()
	var iframeID string
	select {
	case iframeID = <-iframes:
	case <-time.After(testutil.Guard):
		t.Fatal("no iframe target for the cross-site frame")
	}
	res, err := b.conn.Call(testCtx(t), "", "Target.attachToTarget", map[string]any{"targetId": iframeID, "flatten": true})
	if err != nil {
		t.Fatal(err)
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(res, &attached)
	frame := &tab{t: t, b: b, targetID: iframeID, sess: session{b.conn, attached.SessionID}, events: make(chan cdp.Message, 16), loads: make(chan time.Time, 16)}
	b.mu.Lock()
	b.routes[attached.SessionID] = func(m cdp.Message) {
		b.mu.Lock()
		eng := frame.eng
		b.mu.Unlock()
		if eng != nil {
			eng.HandleEvent(m.Method, m.Params)
		}
	}
	b.mu.Unlock()
	frame.start(Config{})
	t.Cleanup(func() { _ = frame.eng.Close(context.Background()) })
	// The frame's tools, not the workbench's.
	frame.waitTools("search_flights", "subscribe_newsletter")
	r := frame.call("search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-07-10"})
	if !r.Navigated || !strings.Contains(r.URL, "/results.html?") || !reflect.DeepEqual(r.Tools, []string{"open_result", "sort_by_price"}) {
		t.Fatalf("in the iframe: %+v", r)
	}
}

func TestAnEmptyPageWhoseLoadNeverComes(t *testing.T) {
	s := serveSite(t)
	// An image that never arrives holds the load event back.
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	mux := http.NewServeMux()
	mux.HandleFunc("/slow.png", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	})
	slow := httptest.NewServer(mux)
	t.Cleanup(slow.Close)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/flights.html", Config{})
	tb.drainChanged()
	tb.navigate(s.page("empty.html", `<title>Nothing here</title><p>No forms.</p><img src="`+slow.URL+`/slow.png">`))
	// The flight search's tools go within about a second, load or not.
	tb.waitChanged(5 * time.Second)
	if got := tb.eng.Tools(); len(got) != 0 {
		t.Fatalf("tools = %v", Names(got))
	}
}

// A script whose lease lapsed (the engine lost the tab without closing it)
// no longer watches the page: its changes go unreported until a renewal,
// which catches up with them.
func TestALapsedLeaseLeavesThePageAloneUntilRenewed(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/stores.html", Config{Lease: 300 * time.Millisecond, noRenew: true})
	tb.waitTools("find_stores")
	dormant := make(chan struct{}, 1)
	tb.b.mu.Lock()
	route := tb.b.routes[tb.sess.id]
	tb.b.routes[tb.sess.id] = func(m cdp.Message) {
		route(m)
		if m.Method == "Runtime.bindingCalled" && strings.Contains(string(m.Params), `\"type\":\"dormant\"`) {
			dormant <- struct{}{}
		}
	}
	tb.b.mu.Unlock()
	tb.drainChanged()
	before := tb.reportsOf(tb.eng)
	// The lease lapses on the page's clock, the one the script reads: at
	// most a lease after now, since the script began before its report.
	tb.eval(`new Promise((done) => { const end = performance.now() + 300; const wait = () => performance.now() > end ? done() : setTimeout(wait, end - performance.now() + 1); wait(); })`)
	tb.eval(`document.getElementById('zip').value = '10001'; document.querySelector('#find button').click()`)
	// The change wakes the script, which finds its lease lapsed: it stops
	// watching (and says so) instead of reporting the change.
	select {
	case <-dormant:
	case <-time.After(testutil.Guard):
		t.Fatalf("the script never found its lease lapsed: tools %v", Names(tb.eng.Tools()))
	}
	select {
	case <-tb.eng.Changed():
		t.Fatalf("a page whose lease lapsed was still watched: tools %v", Names(tb.eng.Tools()))
	default:
	}
	tb.eng.renew()
	tb.waitChanged(5 * time.Second)
	tb.waitTools("find_stores", "book_visit", "open_store")
	if n := tb.reportsOf(tb.eng) - before; n != 2 {
		t.Fatalf("%d messages from the script, want 2: that it stopped watching, and the change once renewed", n)
	}
}

// Renewals keep a page watched long after its first lease would have
// lapsed.
func TestRenewalsKeepThePageWatched(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	renewed := make(chan struct{}, 64)
	cfg := Config{Lease: 300 * time.Millisecond, renewed: func() {
		select {
		case renewed <- struct{}{}:
		default:
		}
	}}
	tb := b.newTab(t, s.URL+"/stores.html", cfg)
	tb.waitTools("find_stores")
	tb.drainChanged()
	// Renewals come every third of a lease: four more from now, and the
	// script's first lease has long lapsed.
	for len(renewed) > 0 {
		<-renewed
	}
	guard := time.After(testutil.Guard)
	for range 4 {
		select {
		case <-renewed:
		case <-guard:
			t.Fatal("the engine does not renew the lease")
		}
	}
	tb.eval(`document.getElementById('zip').value = '10001'; document.querySelector('#find button').click()`)
	tb.waitChanged(5 * time.Second)
	tb.waitTools("find_stores", "book_visit", "open_store")
}
