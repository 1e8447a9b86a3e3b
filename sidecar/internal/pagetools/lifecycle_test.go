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

	// Ten changes 20 ms apart: one look at the page once they stop.
	before := tb.reports.Load()
	tb.eval(`grow(10, 20)`)
	tb.waitChanged(5 * time.Second)
	time.Sleep(2 * cfg.Debounce) // a second report, if there were one, would be in by now
	if n := tb.reports.Load() - before; n != 1 {
		t.Fatalf("%d reports for a burst of 10 changes, want 1", n)
	}
	if props := schemaOf(t, tool(t, tb.eng.Tools(), "save")); len(props["properties"].(map[string]any)) != 11 {
		t.Fatalf("save has %d properties, want 11", len(props["properties"].(map[string]any)))
	}

	// A page that never stops changing is still looked at, every
	// MaxDebounce at most: 40 changes over 2 s make a few reports, not 40.
	tb.drainChanged()
	before = tb.reports.Load()
	start := time.Now()
	tb.eval(`grow(40, 50)`)
	time.Sleep(2 * cfg.Debounce)
	n := tb.reports.Load() - before
	elapsed := time.Since(start)
	if n < 2 || n > int32(elapsed/cfg.MaxDebounce)+2 {
		t.Fatalf("%d reports in %s of continuous changes (MaxDebounce %s)", n, elapsed, cfg.MaxDebounce)
	}
	if props := schemaOf(t, tool(t, tb.eng.Tools(), "save")); len(props["properties"].(map[string]any)) != 51 {
		t.Fatalf("save has %d properties after the stream, want 51", len(props["properties"].(map[string]any)))
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
	if err := tb.eng.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	before := tb.reports.Load()
	tb.navigate(s.URL + "/inbox.html")
	tb.waitLoad()
	time.Sleep(300 * time.Millisecond)
	if n := tb.reports.Load() - before; n != 0 {
		t.Fatalf("%d reports after Close", n)
	}
	if _, err := tb.eng.Call(testCtx(t), "search_inbox", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("a call after Close: %v", err)
	}
	if err := tb.eng.Close(testCtx(t)); err != nil {
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
	host := b.attach(t, "http://localhost:"+port+"/t/host.html")
	host.waitLoad()
	var iframeID string
	deadline := time.Now().Add(10 * time.Second)
	for iframeID == "" && time.Now().Before(deadline) {
		res, err := b.conn.Call(testCtx(t), "", "Target.getTargets", nil)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			TargetInfos []struct {
				TargetID string `json:"targetId"`
				Type     string `json:"type"`
				URL      string `json:"url"`
			} `json:"targetInfos"`
		}
		_ = json.Unmarshal(res, &list)
		for _, ti := range list.TargetInfos {
			if ti.Type == "iframe" && strings.HasSuffix(ti.URL, "/flights.html") {
				iframeID = ti.TargetID
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if iframeID == "" {
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
	tb.drainChanged()
	time.Sleep(600 * time.Millisecond) // the lease lapses
	tb.eval(`document.getElementById('zip').value = '10001'; document.querySelector('#find button').click()`)
	select {
	case <-tb.eng.Changed():
		t.Fatalf("a page whose lease lapsed was still watched: tools %v", Names(tb.eng.Tools()))
	case <-time.After(1500 * time.Millisecond):
	}
	tb.eng.renew()
	tb.waitChanged(5 * time.Second)
	tb.waitTools("find_stores", "book_visit", "open_store")
}

// Renewals keep a page watched long after its first lease would have
// lapsed.
func TestRenewalsKeepThePageWatched(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/stores.html", Config{Lease: 300 * time.Millisecond})
	tb.waitTools("find_stores")
	tb.drainChanged()
	time.Sleep(time.Second)
	tb.eval(`document.getElementById('zip').value = '10001'; document.querySelector('#find button').click()`)
	tb.waitChanged(5 * time.Second)
	tb.waitTools("find_stores", "book_visit", "open_store")
}
