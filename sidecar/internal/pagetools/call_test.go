package pagetools

// Integration tests of calling page tools against a real Chromium.

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSearchFlightsReachesTheResultsAndOpensOne(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/flights.html", Config{})
	tb.drainChanged()
	res := tb.call("search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-07-10", "passengers": 2.0, "cabin": "business", "direct_flights_only": true})
	if !res.Navigated || !res.Submitted || !strings.Contains(res.URL, "/results.html?") || res.Title != "Skyways: SFO to JFK" {
		t.Fatalf("result = %+v", res)
	}
	for _, q := range []string{"from=SFO", "to=JFK", "depart=2026-07-10", "passengers=2", "cabin=business", "direct=1"} {
		if !strings.Contains(res.URL, q) {
			t.Errorf("the submitted URL lacks %s: %s", q, res.URL)
		}
	}
	if !strings.Contains(res.PageText, "2 passenger(s), business") || !strings.Contains(res.PageText, "$2700") {
		t.Fatalf("page text = %q", res.PageText)
	}
	if !res.ToolsChanged || !reflect.DeepEqual(res.Tools, []string{"open_result", "sort_by_price"}) {
		t.Fatalf("tools changed %v: %v", res.ToolsChanged, res.Tools)
	}
	tb.waitChanged(time.Second) // the owner hears of it too

	// Same-document: sorting changes the list, not the tools.
	res = tb.call("sort_by_price", nil)
	if res.Navigated || res.ToolsChanged || !strings.HasPrefix(res.PageText, "SFO → JFK 09:45 $2700") {
		t.Fatalf("sort = %+v", res)
	}
	res = tb.call("open_result", map[string]any{"index": 0.0})
	if !res.Navigated || !strings.Contains(res.PageText, "Flight SW102 selected, $2700.") {
		t.Fatalf("open_result = %+v", res)
	}
	if txt := res.Text(); !strings.Contains(txt, "open_result: done; the tab navigated to http") || !strings.Contains(txt, "| Flight SW102 selected") {
		t.Fatalf("text:\n%s", txt)
	}
}

func TestFillingIsSeenByFrameworks(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/controlled.html", Config{})
	// The page greets from state its change handlers keep, behind a value
	// tracker as React's: a bare .value assignment would greet nobody.
	res := tb.call("greet_me", map[string]any{"your_name": "Ada", "mood": "calm", "shout": true})
	if res.Navigated || res.PageText != "HELLO, ADA! YOU SEEM CALM." {
		t.Fatalf("result = %+v", res)
	}
	res = tb.call("greet_me", map[string]any{"your_name": "Grace", "shout": false})
	if res.PageText != "Hello, Grace! You seem calm." {
		t.Fatalf("second greeting = %q", res.PageText)
	}
}

func TestWebMCPDeclarativeCalls(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/webmcp.html", Config{})
	res := tb.call("book_table", map[string]any{"name": "Ada Lovelace", "date": "2026-07-10", "time": "19:30", "guests": "4"})
	if !res.Submitted || res.PageText != "Table booked for Ada Lovelace on 2026-07-10 at 19:30 for 4 guest(s)." {
		t.Fatalf("book_table = %+v", res)
	}
	// No toolautosubmit: filled in for a person to submit, not submitted.
	res = tb.call("join_waitlist", map[string]any{"phone": "555-0100"})
	if res.Submitted || !strings.Contains(res.Note, "for a person to submit") {
		t.Fatalf("join_waitlist = %+v", res)
	}
	if v := tb.eval(`document.getElementById('phone').value`); v != "555-0100" {
		t.Fatalf("the phone field holds %v", v)
	}
	if v := tb.eval(`document.getElementById('waiting').textContent`); v != "" {
		t.Fatalf("the waitlist form was submitted: %v", v)
	}
}

func TestFormsThatChangeAfterAFetch(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/stores.html", Config{})
	tb.drainChanged()
	res := tb.call("find_stores", map[string]any{"zip_code": "94103"})
	if res.Navigated || !res.ToolsChanged || !reflect.DeepEqual(res.Tools, []string{"find_stores", "book_visit", "open_store"}) {
		t.Fatalf("find_stores = %+v", res)
	}
	if !strings.Contains(res.PageText, "Stores near 94103") || !strings.Contains(res.PageText, "Harbor Street") {
		t.Fatalf("what changed: %q", res.PageText)
	}
	tb.waitChanged(time.Second)
	visit := schemaOf(t, tool(t, tb.eng.Tools(), "book_visit"))
	if st := prop(t, visit, "store"); !reflect.DeepEqual(st["enum"], []any{"s1", "s2", "s3"}) {
		t.Fatalf("store = %v", st)
	}
	res = tb.call("book_visit", map[string]any{"store": "s2", "day": "2026-07-11"})
	if res.PageText != "Visit booked at Old Mill on 2026-07-11." || res.ToolsChanged {
		t.Fatalf("book_visit = %+v", res)
	}
	res = tb.call("open_store", map[string]any{"index": 2.0})
	if res.PageText != "Station Square: open 8–22." {
		t.Fatalf("open_store = %+v", res)
	}
}

// syncBuffer is a log destination the engine's goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestPasswordsAreWriteOnly(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	var logs syncBuffer
	cfg := Config{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	const pw = "hunter2 & more"

	tb := b.newTab(t, s.URL+"/signin.html", cfg)
	res := tb.call("sign_in", map[string]any{"email": "alice@example.com", "password": pw})
	if res.PageText != "Wrong email or password." || res.ToolsChanged {
		t.Fatalf("wrong password: %+v", res)
	}
	res = tb.call("sign_in", map[string]any{"email": "alice@example.com", "password": "correct horse battery", "remember_me": true})
	if !strings.Contains(res.PageText, "Signed in as alice@example.com") || !res.ToolsChanged ||
		!reflect.DeepEqual(res.Tools, []string{"save_profile", "sign_out"}) {
		t.Fatalf("signed in: %+v", res)
	}
	if strings.Contains(res.Text(), "correct horse") {
		t.Fatal("the password is in the result")
	}

	// A careless page that echoes the password into its text, its title
	// and (a GET form) its URL: the result masks it everywhere.
	echo := b.newTab(t, s.page("echo.html", `<title>Echo</title><form method="get" action="/t/echo.html">
		<label>User <input name="user"></label><label>Secret <input type="password" name="secret"></label><button>Log in</button></form>
		<p id="out"></p><script>const q = new URLSearchParams(location.search);
		if (q.get('secret')) { document.getElementById('out').textContent = 'Wrong password: ' + q.get('secret'); document.title = 'Failed for ' + q.get('secret');
		  document.body.insertAdjacentHTML('beforeend', '<form><label>Recovery email <input name="r"></label><button>Reset password</button></form>'); }</script>`), cfg)
	// (A second form on the results page makes its tools change, and the
	// engine log that.)
	res = echo.call("log_in", map[string]any{"user": "bob", "secret": pw})
	if !res.Navigated || !strings.Contains(res.PageText, "Wrong password: ••••••") || !strings.Contains(res.URL, "secret=••••••") {
		t.Fatalf("echo: %+v", res)
	}
	for _, where := range []string{res.Text(), res.URL, res.Title, res.PageText, logs.String()} {
		if strings.Contains(where, "hunter2") {
			t.Fatalf("the password leaked: %s", where)
		}
	}
	// An argument error does not repeat it either.
	_, err := echo.eng.Call(testCtx(t), "log_in", map[string]any{"user": "bob", "secret": pw, "extra": pw})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error: %v", err)
	}
	if !strings.Contains(logs.String(), "page tool call") || !strings.Contains(logs.String(), "page tools changed") {
		t.Fatal("the debug log did not record the calls, so the check above proves nothing")
	}
}

func TestTheBrowsersValidationMessage(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/flights.html", Config{})
	start := tb.eval(`location.href`)
	_, err := tb.eng.Call(testCtx(t), "search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-07-10", "return_date": "2026-07-01"})
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), `"return_date": "Return date must be on or after the departure date."`) {
		t.Fatalf("err = %v", err)
	}
	// Nothing changed: the fields are as they were, nothing was submitted.
	if v := tb.eval(`[from.value, to.value, depart.value, document.getElementById('return').value].join('|')`); v != "|||" {
		t.Fatalf("fields after the rejected call: %q", v)
	}
	if tb.eval(`location.href`) != start {
		t.Fatal("the page navigated")
	}

	// A required field the schema does not require (it had a value when
	// the page was discovered) that the page empties: the browser's own
	// message for it.
	tb.eval(`document.getElementById('passengers').required = true; document.getElementById('passengers').value = ''`)
	_, err = tb.eng.Call(testCtx(t), "search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-07-10"})
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), `"passengers": "Please fill out this field."`) {
		t.Fatalf("err = %v", err)
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/flights.html", Config{})
	start := tb.eval(`location.href`)
	for _, c := range []struct {
		name string
		args map[string]any
		kind error
		want string
	}{
		{"search_hotels", nil, ErrUnknownTool, `has no tool "search_hotels"; the page's tools now: search_flights, subscribe_newsletter`},
		{"search_flights", map[string]any{"from": "SFO", "to": "JFK"}, ErrInvalidArguments, `argument "depart_date" is required (a date, YYYY-MM-DD)`},
		{"search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-07-10", "passengers": "two"}, ErrInvalidArguments, `argument "passengers" must be a number, not a string (a whole number from 1 to 9)`},
		{"search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-07-10", "cabin": "steerage"}, ErrInvalidArguments, `argument "cabin" must be one of "economy", "premium", "business", "first"`},
		{"search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-07-10", "seat": "12A"}, ErrInvalidArguments, `unknown argument "seat": this tool takes from, to, depart_date, return_date, passengers, cabin, direct_flights_only`},
		// The pattern is the page's: checked in the page, before any field is touched.
		{"search_flights", map[string]any{"from": "San Francisco", "to": "JFK", "depart_date": "2026-07-10"}, ErrInvalidArguments, `argument "from" does not match the pattern the page requires; nothing was changed`},
	} {
		_, err := tb.eng.Call(testCtx(t), c.name, c.args)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: err = %v, want %q", c.name, c.args, err, c.want)
		}
	}
	if v := tb.eval(`[from.value, to.value, depart.value].join('|')`); v != "||" || tb.eval(`location.href`) != start {
		t.Fatalf("bad input changed the page: fields %q", v)
	}
}

func TestAToolOfAPageTheTabLeft(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/flights.html", Config{})
	tb.drainChanged()
	// Someone else (the user, a child MCP) navigates the tab.
	tb.navigate(s.URL + "/inbox.html")
	tb.waitChanged(10 * time.Second)
	_, err := tb.eng.Call(testCtx(t), "search_flights", map[string]any{"from": "SFO", "to": "JFK", "depart_date": "2026-07-10"})
	if !errors.Is(err, ErrNavigatedAway) || !strings.Contains(err.Error(), "/flights.html, and the tab has since navigated to "+s.URL+"/inbox.html") ||
		!strings.HasSuffix(err.Error(), "the page's tools now: search_inbox, open_thread, compose, refresh") {
		t.Fatalf("err = %v", err)
	}
	// Still known as gone one navigation later.
	tb.navigate(s.URL + "/stores.html")
	tb.waitChanged(10 * time.Second)
	_, err = tb.eng.Call(testCtx(t), "search_flights", nil)
	if !errors.Is(err, ErrNavigatedAway) || !strings.HasSuffix(err.Error(), "the page's tools now: find_stores") {
		t.Fatalf("err = %v", err)
	}
}

func TestAListThatShrankUnderTheCall(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	// A long debounce, so the call meets the list before the engine has
	// looked at the page again.
	tb := b.newTab(t, s.URL+"/inbox.html", Config{Debounce: 5 * time.Second, MaxDebounce: 10 * time.Second})
	_, err := tb.eng.Call(testCtx(t), "open_thread", map[string]any{"index": 5.0})
	if !errors.Is(err, ErrInvalidArguments) || !strings.Contains(err.Error(), `argument "index" is out of range: a whole number from 0 to 4`) {
		t.Fatalf("err = %v", err)
	}
	tb.eval(`for (const li of [...document.querySelectorAll('.thread')].slice(2)) li.remove()`)
	_, err = tb.eng.Call(testCtx(t), "open_thread", map[string]any{"index": 3.0})
	if !errors.Is(err, ErrInvalidArguments) || !strings.Contains(err.Error(), `the list has 2 item(s) now, 0 to 1`) {
		t.Fatalf("err = %v", err)
	}
	res := tb.call("open_thread", map[string]any{"index": 1.0})
	if !res.Navigated || !strings.Contains(res.PageText, "This is message 2.") {
		t.Fatalf("open_thread = %+v", res)
	}
}

func TestMultiTabComparison(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	shops := []*tab{b.newTab(t, s.URL+"/flights.html", Config{}), b.newTab(t, s.URL+"/jetcheap.html", Config{})}
	price := regexp.MustCompile(`\$(\d+)`)
	var cheapest []int
	for _, shop := range shops {
		// The same tool on both sites, called with the same arguments.
		res := shop.call("search_flights", map[string]any{"from": "SFO", "to": "NYC", "depart_date": "2024-01-19"})
		var prices []int
		for _, m := range price.FindAllStringSubmatch(res.PageText, -1) {
			p, _ := strconv.Atoi(m[1])
			prices = append(prices, p)
		}
		if len(prices) != 4 {
			t.Fatalf("%s: prices %v in %q", res.Title, prices, res.PageText)
		}
		sort.Ints(prices)
		cheapest = append(cheapest, prices[0])
	}
	if !reflect.DeepEqual(cheapest, []int{450, 520}) {
		t.Fatalf("cheapest fares = %v, want Skyways 450 and JetCheap 520", cheapest)
	}
}

func TestChoiceFields(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("choices.html", `<title>Seats</title><form method="get" action="/t/choices.html">
	<fieldset><legend>Seat</legend><label><input type="radio" name="seat" value="aisle"> Aisle</label><label><input type="radio" name="seat" value="window" checked> Window</label></fieldset>
	<fieldset><legend>Meals</legend><label><input type="checkbox" name="meal" value="veg"> Vegetarian</label><label><input type="checkbox" name="meal" value="kosher"> Kosher</label><label><input type="checkbox" name="meal" value="halal"> Halal</label></fieldset>
	<label>Extras <select name="extras" multiple><option value="bag">Bag</option><option value="wifi">Wi-Fi</option><option value="lounge">Lounge</option></select></label>
	<label><input type="checkbox" name="terms" required> I accept the terms</label>
	<button>Book seat</button></form>`), Config{})
	sc := schemaOf(t, tool(t, tb.eng.Tools(), "book_seat"))
	if seat := prop(t, sc, "seat"); !reflect.DeepEqual(seat["enum"], []any{"aisle", "window"}) || seat["default"] != "window" {
		t.Fatalf("seat = %v", seat)
	}
	if meals := prop(t, sc, "meals"); meals["type"] != "array" || !reflect.DeepEqual(meals["items"].(map[string]any)["enum"], []any{"veg", "kosher", "halal"}) {
		t.Fatalf("meals = %v", meals)
	}
	if extras := prop(t, sc, "extras"); extras["type"] != "array" {
		t.Fatalf("extras = %v", extras)
	}
	if !reflect.DeepEqual(sc["required"], []any{"i_accept_the_terms"}) {
		t.Fatalf("required = %v", sc["required"])
	}
	state := `[...document.querySelectorAll('input:checked')].map((e) => e.value).join(',') + '|' + [...document.querySelector('select').selectedOptions].map((o) => o.value).join(',')`
	if v := tb.eval(state); v != "window|" {
		t.Fatalf("state before = %v", v)
	}
	args := map[string]any{"seat": "aisle", "meals": []any{"veg", "halal"}, "extras": []any{"bag", "lounge"}, "i_accept_the_terms": false}
	_, err := tb.eng.Call(testCtx(t), "book_seat", args)
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), `"i_accept_the_terms": "Please check this box if you want to proceed."`) {
		t.Fatalf("err = %v", err)
	}
	if v := tb.eval(state); v != "window|" {
		t.Fatalf("the rejected call left %v", v)
	}
	args["i_accept_the_terms"] = true
	res := tb.call("book_seat", args)
	for _, q := range []string{"seat=aisle", "meal=veg&meal=halal", "extras=bag&extras=lounge", "terms=on"} {
		if !strings.Contains(res.URL, q) {
			t.Errorf("URL %s lacks %s", res.URL, q)
		}
	}
	_, err = tb.eng.Call(testCtx(t), "book_seat", map[string]any{"seat": "middle", "i_accept_the_terms": true})
	if !errors.Is(err, ErrInvalidArguments) || !strings.Contains(err.Error(), `argument "seat" must be one of "aisle", "window"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestACallBuiltOnAnOldLookAtThePage(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	// No reports during the test: the engine keeps its first look.
	tb := b.newTab(t, s.URL+"/inbox.html", Config{Debounce: 10 * time.Second, MaxDebounce: 20 * time.Second})
	tb.eng.mu.Lock()
	ctxID, gen := tb.eng.doc.ctxID, tb.eng.doc.gen
	tb.eng.mu.Unlock()
	// The page changes ten times and is looked at each time, behind the
	// engine's back, so the script's registry moves past what the engine
	// knows.
	for i := 0; i < 10; i++ {
		tb.eval(`document.getElementById('threads').append(Object.assign(document.createElement('li'), {className: 'thread', innerHTML: '<a href="thread.html?id=9">More</a>'}))`)
		if _, err := tb.eng.callIn(testCtx(t), ctxID, "discover"); err != nil {
			t.Fatal(err)
		}
	}
	res := tb.call("compose", nil)
	if res.PageText != "New message draft opened." {
		t.Fatalf("compose = %+v", res)
	}
	tb.eng.mu.Lock()
	defer tb.eng.mu.Unlock()
	if tb.eng.doc.gen <= gen+8 {
		t.Fatalf("the call did not look at the page again (generation %d, was %d)", tb.eng.doc.gen, gen)
	}
}

// After a navigation the answer is lean: the new page's main heading and
// the start of its main content, not the side bar and menus around it (an
// admin template's dashboard has no <main>: 1.4 KB of side bar came first).
func TestANavigationsAnswerLeavesTheChromeOut(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	var menu strings.Builder
	for i := range 40 {
		fmt.Fprintf(&menu, `<li class="nav-item"><a class="nav-link" href="#%d">Menu entry number %d</a></li>`, i, i)
	}
	s.page("dashboard.html", `<!doctype html><title>Admin - Dashboard</title><body><div id="wrapper">
<ul class="navbar-nav sidebar" id="accordionSidebar">`+menu.String()+`</ul>
<div id="content-wrapper"><nav class="navbar topbar"><a href="#">Alerts</a> <a href="#">Messages</a> <span>Ada Lovelace</span></nav>
<div class="container-fluid"><h1 class="h3">Dashboard</h1><p>Welcome back, Ada. You have 3 new orders.</p></div>
<footer class="sticky-footer"><span>Copyright © Your Website 2026</span></footer></div></div></body>`)
	u := s.page("login.html", `<!doctype html><title>Login</title><h1>Welcome back!</h1>
<form action="/t/dashboard.html"><label>Email <input name="email" type="email"></label><button>Login</button></form>`)
	tb := b.newTab(t, u, Config{})
	tb.waitTools("login_welcome_back")
	res := tb.call("login_welcome_back", map[string]any{"email": "ada@example.com"})
	if !res.Navigated || res.Heading != "Dashboard" || !strings.Contains(res.PageText, "Welcome back, Ada. You have 3 new orders.") {
		t.Fatalf("the answer: %+v", res)
	}
	for _, chrome := range []string{"Menu entry", "Alerts", "Copyright"} {
		if strings.Contains(res.PageText, chrome) {
			t.Fatalf("the answer carries the page's %q: %q", chrome, res.PageText)
		}
	}
	if txt := res.Text(); !strings.Contains(txt, `its main heading: Page text: "Dashboard"`) || len(txt) > 800 {
		t.Fatalf("the answer (%d bytes): %s", len(txt), txt)
	}
}
