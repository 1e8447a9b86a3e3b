package pagetools

// Integration tests of discovery against a real Chromium and the fixture
// site (scripts/fixtures/site), shared with the end-to-end tests.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDiscoveryOnTheFixtureSite(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	for _, c := range []struct {
		page string
		want []string
	}{
		{"flights.html", []string{"search_flights", "subscribe_newsletter"}},
		{"jetcheap.html", []string{"search_flights"}},
		{"webmcp.html", []string{"book_table", "join_waitlist"}},
		{"signin.html", []string{"sign_in"}},
		{"inbox.html", []string{"search_inbox", "open_thread", "compose", "refresh"}},
		{"stores.html", []string{"find_stores"}},
		{"controlled.html", []string{"greet_me"}},
		{"hostile.html", []string{"look_up"}},
		{"results.html?shop=skyways&from=SFO&to=JFK&depart=2026-07-10", []string{"open_result", "sort_by_price"}},
		{"index.html", []string{"open_site"}}, // the links under "Page tools fixture site"
	} {
		t.Run(c.page, func(t *testing.T) {
			tb := b.newTab(t, s.URL+"/"+c.page, Config{})
			tools := tb.eng.Tools()
			if got := Names(tools); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("tools = %v, want %v", got, c.want)
			}
			for _, tl := range tools {
				if len(tl.Name) > MaxNameLen || !tl.Annotations.OpenWorldHint {
					t.Errorf("%s: name length %d, annotations %+v", tl.Name, len(tl.Name), tl.Annotations)
				}
				schemaOf(t, tl) // valid JSON
			}
		})
	}
}

func TestFlightSearchSchema(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/flights.html", Config{})
	tools := tb.eng.Tools()
	search := tool(t, tools, "search_flights")
	sc := schemaOf(t, search)
	props := sc["properties"].(map[string]any)
	var order []string
	// Properties in page order, the hidden "shop" input left out.
	var raw struct {
		Properties json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(search.InputSchema, &raw)
	dec := json.NewDecoder(strings.NewReader(string(raw.Properties)))
	_, _ = dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		order = append(order, k.(string))
		var skip json.RawMessage
		_ = dec.Decode(&skip)
	}
	want := []string{"from", "to", "depart_date", "return_date", "passengers", "cabin", "direct_flights_only"}
	if !reflect.DeepEqual(order, want) || len(props) != len(want) {
		t.Fatalf("properties %v, want %v", order, want)
	}
	if fmt.Sprint(sc["required"]) != "[from to depart_date]" || sc["additionalProperties"] != false {
		t.Fatalf("required %v, additionalProperties %v", sc["required"], sc["additionalProperties"])
	}
	from := prop(t, sc, "from")
	if from["type"] != "string" || from["pattern"] != "^(?:[A-Za-z]{3})$" || from["description"] != `Page text: "Three-letter airport code — e.g. SFO"` {
		t.Fatalf("from = %v", from)
	}
	if d := prop(t, sc, "depart_date"); d["type"] != "string" || d["format"] != "date" || !strings.Contains(fmt.Sprint(d["description"]), "Earliest 2024-01-01") {
		t.Fatalf("depart_date = %v", d)
	}
	if p := prop(t, sc, "passengers"); p["type"] != "integer" || p["minimum"] != 1.0 || p["maximum"] != 9.0 || p["default"] != 1.0 {
		t.Fatalf("passengers = %v", p)
	}
	if c := prop(t, sc, "cabin"); c["type"] != "string" || fmt.Sprint(c["enum"]) != "[economy premium business first]" || c["default"] != "economy" {
		t.Fatalf("cabin = %v", c)
	}
	if d := prop(t, sc, "direct_flights_only"); d["type"] != "boolean" {
		t.Fatalf("direct = %v", d)
	}
	if !search.Annotations.ReadOnlyHint || search.Annotations.DestructiveHint {
		t.Fatalf("a GET form only navigates: %+v", search.Annotations)
	}
	if !strings.HasPrefix(search.Description, "Fills in and submits") || !strings.Contains(search.Description, `Page text: "Find flights · Search flights"`) {
		t.Fatalf("description %q", search.Description)
	}
	sub := tool(t, tools, "subscribe_newsletter")
	if sub.Annotations.ReadOnlyHint || !sub.Annotations.DestructiveHint {
		t.Fatalf("a form that posts is destructive: %+v", sub.Annotations)
	}
	if e := prop(t, schemaOf(t, sub), "email"); e["format"] != "email" {
		t.Fatalf("email = %v", e)
	}
}

func TestWebMCPDeclarativeSchema(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/webmcp.html", Config{})
	tools := tb.eng.Tools()
	book := tool(t, tools, "book_table")
	if book.Origin != OriginWebMCP || book.Description != `Declared by the page (WebMCP). Page text: "Book a table at Bistro Verde for a date, a time and a party size."` {
		t.Fatalf("book_table: %s %q", book.Origin, book.Description)
	}
	sc := schemaOf(t, book)
	if fmt.Sprint(sc["required"]) != "[name date time]" {
		t.Fatalf("required = %v", sc["required"])
	}
	// The page's own parameter names and descriptions, exactly.
	if n := prop(t, sc, "name"); n["description"] != `Page text: "Guest's full name"` {
		t.Fatalf("name = %v", n)
	}
	if d := prop(t, sc, "date"); d["format"] != "date" {
		t.Fatalf("date = %v", d)
	}
	if g := prop(t, sc, "guests"); fmt.Sprint(g["enum"]) != "[1 2 3 4 5 6]" || g["default"] != "2" {
		t.Fatalf("guests = %v", g)
	}
	prop(t, sc, "notes")
	if book.Annotations.ReadOnlyHint || !book.Annotations.DestructiveHint {
		t.Fatalf("a booking posts: %+v", book.Annotations)
	}
	wait := tool(t, tools, "join_waitlist")
	if !strings.Contains(wait.Description, "a person submits it") {
		t.Fatalf("join_waitlist has no toolautosubmit: %q", wait.Description)
	}
	// WebMCP's imperative API is absent from this Chromium (156), whatever
	// the flags: the engine looked for it and says so. No stand-in for it is
	// tested here.
	if st := tb.eng.ImperativeStatus(); st != "absent" {
		t.Fatalf("imperative status %q; if this browser has navigator.modelContextTesting, the imperative path can now be tested for real", st)
	}
}

func TestSignInAndInboxSchemas(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	signin := b.newTab(t, s.URL+"/signin.html", Config{})
	sign := tool(t, signin.eng.Tools(), "sign_in")
	sc := schemaOf(t, sign)
	if pw := prop(t, sc, "password"); pw["writeOnly"] != true || pw["minLength"] != 8.0 {
		t.Fatalf("password = %v", pw)
	}
	if r := prop(t, sc, "remember_me"); r["type"] != "boolean" {
		t.Fatalf("remember_me = %v", r)
	}
	if fmt.Sprint(sc["required"]) != "[email password]" {
		t.Fatalf("required = %v", sc["required"])
	}
	if sign.Annotations.DestructiveHint || sign.Annotations.ReadOnlyHint {
		t.Fatalf("signing in posts but is harmless: %+v", sign.Annotations)
	}

	inbox := b.newTab(t, s.URL+"/inbox.html", Config{})
	tools := inbox.eng.Tools()
	search := tool(t, tools, "search_inbox")
	if !search.Annotations.ReadOnlyHint {
		t.Fatalf("a search only navigates: %+v", search.Annotations)
	}
	prop(t, schemaOf(t, search), "search_mail")
	open := tool(t, tools, "open_thread")
	idx := prop(t, schemaOf(t, open), "index")
	if idx["type"] != "integer" || idx["minimum"] != 0.0 || idx["maximum"] != 4.0 {
		t.Fatalf("index = %v", idx)
	}
	if !strings.Contains(open.Description, "5 items") {
		t.Fatalf("open_thread: %q", open.Description)
	}
	if c := tool(t, tools, "compose"); !c.Annotations.DestructiveHint || c.Origin != OriginButton {
		t.Fatalf("compose: %+v", c)
	}
	if r := tool(t, tools, "refresh"); r.Annotations.DestructiveHint {
		t.Fatalf("refresh is harmless: %+v", r.Annotations)
	}
}

func TestNamesAreStableWhileTheDOMIsTheSame(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/inbox.html", Config{Debounce: 50 * time.Millisecond})
	before := signature(tb.eng.Tools())
	tb.drainChanged()

	// Content that is no tool changes: no "tools changed".
	tb.eval(`document.querySelector('main').append(Object.assign(document.createElement('p'), {textContent: 'An unrelated paragraph'}))`)
	tb.eval(`document.getElementById('status').textContent = 'Checked just now'`)
	select {
	case <-tb.eng.Changed():
		t.Fatalf("tools changed after an unrelated DOM change: %v", Names(tb.eng.Tools()))
	case <-time.After(600 * time.Millisecond):
	}

	// The same page loaded again: the same tools, of another document (a
	// call made from the first one's tools is refused: CallOn).
	doc := tb.eng.View().Doc
	tb.must("Page.reload", nil)
	tb.waitLoad()
	if _, err := tb.eng.Discover(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if after := signature(tb.eng.Tools()); after != before {
		t.Fatalf("tools differ after a reload:\n%s\n%s", before, after)
	}
	if now := tb.eng.View().Doc; now == doc || now == "" {
		t.Fatalf("a reload kept the document %q (now %q)", doc, now)
	}
	select {
	case <-tb.eng.Changed():
	default:
		t.Fatal("a reload (another document) was not signalled")
	}

	// A second page opened on the same URL names its tools the same.
	other := b.newTab(t, s.URL+"/inbox.html", Config{})
	if signature(other.eng.Tools()) != before {
		t.Fatal("two tabs on the same page name their tools differently")
	}
}

func TestCapRanksByProminence(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	var page strings.Builder
	page.WriteString(`<!doctype html><title>Many forms</title><body style="margin:0">`)
	// A big form first on the page, then 30 small ones far below the fold.
	page.WriteString(`<form style="height:400px"><label>Destination <input name="dest"></label><label>Nights <input type="number" name="n"></label><button>Plan trip</button></form><div style="height:3000px"></div>`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&page, `<form><input name="q%d" aria-label="Code %d"><button>Check %d</button></form>`, i, i, i)
	}
	tb := b.newTab(t, s.page("many.html", page.String()), Config{MaxTools: 8})
	got := Names(tb.eng.Tools())
	if len(got) != 8 || got[0] != "plan_trip" {
		t.Fatalf("tools = %v, want plan_trip and 7 others", got)
	}
	// The kept small forms keep the names they have uncapped.
	all := b.newTab(t, s.URL+"/t/many.html", Config{MaxTools: 40})
	names := map[string]bool{}
	for _, n := range Names(all.eng.Tools()) {
		names[n] = true
	}
	for _, n := range got {
		if !names[n] {
			t.Fatalf("%s is not a name the uncapped page has: the cap changed names", n)
		}
	}
}

func TestStandaloneButtonsOnlyWhenFew(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	few := b.newTab(t, s.page("few.html", `<title>Few</title><main><h1>Repo</h1><button>Star</button> <button>Fork</button> <button aria-label="Watch repository">👁</button> <button disabled>Archive</button> <button style="display:none">Hidden</button></main>`), Config{})
	if got := Names(few.eng.Tools()); !reflect.DeepEqual(got, []string{"star", "fork", "watch_repository"}) {
		t.Fatalf("few buttons: %v", got)
	}
	var many strings.Builder
	many.WriteString(`<title>Toolbar</title><main>`)
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&many, `<button>Action %d</button>`, i)
	}
	manyTab := b.newTab(t, s.page("many-buttons.html", many.String()), Config{})
	if got := manyTab.eng.Tools(); len(got) != 0 {
		t.Fatalf("twelve buttons are too many to be useful, got %v", Names(got))
	}
}

func TestContentTool(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.URL+"/inbox.html", Config{ContentTool: true})
	tools := tb.eng.Tools()
	if tools[len(tools)-1].Name != ContentToolName {
		t.Fatalf("tools = %v", Names(tools))
	}
	res := tb.call(ContentToolName, nil)
	if !strings.Contains(res.PageText, "Lunch on Friday?") || res.Title != "Inbox (5)" || res.Submitted {
		t.Fatalf("content = %+v", res)
	}
	if txt := res.Text(); !strings.Contains(txt, "| Lunch on Friday?") {
		t.Fatalf("text: %s", txt)
	}
}
