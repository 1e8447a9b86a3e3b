package pagetools

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// "done" only when the effect was seen, and the right element: each
// class of wrong "done" the corpus found in real apps, on a page written
// the way those apps are, checked in the page.

// A login form whose action is a link styled as a button (SB Admin 2): its
// submit is that link, the primary one of three, not a GET of the form.
func TestSubmitIsTheActionLink(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	s.page("dashboard.html", `<!doctype html><title>Dashboard</title><h1>Dashboard</h1>`)
	s.page("google.html", `<!doctype html><title>Google</title><h1>Google</h1>`)
	tb := b.newTab(t, s.page("login.html", `<!doctype html><title>Login</title><h1>Welcome back!</h1>
<form class="user">
  <input type="email" placeholder="Enter Email Address...">
  <input type="password" placeholder="Password">
  <a href="dashboard.html" class="btn btn-primary btn-user btn-block">Login</a>
  <hr>
  <a href="google.html" class="btn btn-google btn-user btn-block">Login with Google</a>
</form>`), Config{})
	tb.waitTools("login_welcome_back")
	res := tb.call("login_welcome_back", map[string]any{"enter_email_address": "ada@example.com", "password": "pw-12345"})
	if got := tb.eval(`location.pathname`); got != "/t/dashboard.html" {
		t.Fatalf("the tab is at %v, want the dashboard (%s)", got, res.Text())
	}
}

// A form whose submit is Enter in its one field (a todo app's new-todo
// form): the engine presses Enter, and the app's key handler adds the item.
func TestSubmitIsEnterInTheLoneField(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("todos.html", `<!doctype html><title>todos</title><h1>todos</h1>
<form id="todo-form"><input id="new-todo" placeholder="What needs to be done?"></form><ul id="list"></ul>
<script>
document.getElementById('new-todo').addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  e.preventDefault();
  const li = document.createElement('li'); li.textContent = e.target.value; document.getElementById('list').append(li);
  e.target.value = '';
});
</script>`), Config{})
	tb.waitTools("todos")
	res := tb.call("todos", map[string]any{"what_needs_to_be_done": "Buy milk"})
	if got := tb.eval(`document.getElementById('list').textContent + '|' + location.search`); got != "Buy milk|" {
		t.Fatalf("the page shows %q, want the item added without a reload (%s)", got, res.Text())
	}
}

// A submit that brings the same page back without the values (a form whose
// fields have no names, that no script handles): no "done", an ErrNoEffect
// that says so.
func TestSubmitThatReloadsTheSamePageIsNoEffect(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("reload.html", `<!doctype html><title>todos</title><h1>todos</h1>
<form><input id="new-todo" placeholder="What needs to be done?"></form><p id="loads"></p>
<script>sessionStorage.loads = (+sessionStorage.loads || 0) + 1; document.getElementById('loads').textContent = sessionStorage.loads;</script>`), Config{})
	tb.waitTools("todos")
	_, err := tb.eng.Call(testCtx(t), "todos", map[string]any{"what_needs_to_be_done": "Buy milk"})
	if !errors.Is(err, ErrNoEffect) || !strings.Contains(err.Error(), "same page again") {
		t.Fatalf("err = %v, want ErrNoEffect: the same page again", err)
	}
	if got := tb.eval(`document.getElementById('loads').textContent`); got != "2" {
		t.Fatalf("the page loaded %v time(s): the submit did reload it (the case under test)", got)
	}
}

// A click that changes nothing: no "done".
func TestClickWithNoVisibleChangeIsNoEffect(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("noop.html", `<!doctype html><title>Noop</title><main><h1>Report</h1>
<button type="button" id="b">Refresh report</button></main>
<script>document.getElementById('b').onclick = () => { window.clicked = (window.clicked || 0) + 1; };</script>`), Config{})
	tb.waitTools("refresh_report")
	_, err := tb.eng.Call(testCtx(t), "refresh_report", nil)
	if !errors.Is(err, ErrNoEffect) || !strings.Contains(err.Error(), "nothing could be seen to happen") {
		t.Fatalf("err = %v, want ErrNoEffect", err)
	}
	if got := tb.eval(`window.clicked`); got != float64(1) {
		t.Fatalf("the button was clicked %v time(s), want once", got)
	}
}

// A combo box over a hidden <select> (accessible-autocomplete's shape: the
// widget's input before the select, confirming the first suggestion when
// it loses the focus): one parameter that takes an option's label, sent
// as the select's value.
func TestWidgetOverHiddenSelect(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("combo.html", `<!doctype html><title>Where</title><main><h1>Where</h1>
<form id="f"><label for="loc">Last location visited</label>
<div class="wrapper"><input id="loc" name="input-autocomplete" autocomplete="off"></div>
<select id="loc-select" name="last-location" style="display:none"><option value=""></option>
<option value="country:DD">East Germany</option><option value="country:DE">Germany</option><option value="country:FR">France</option></select>
<button>Continue</button></form><p id="out"></p></main>
<script>
const input = document.getElementById('loc'), sel = document.getElementById('loc-select');
input.addEventListener('blur', () => { // confirm the first suggestion, as the widget does
  const q = input.value.toLowerCase(), o = Array.from(sel.options).find((o) => o.value && o.text.toLowerCase().includes(q));
  if (q && o) { sel.value = o.value; input.value = o.text; }
});
document.getElementById('f').onsubmit = (e) => { e.preventDefault(); document.getElementById('out').textContent = new URLSearchParams(new FormData(e.target)).toString(); };
</script>`), Config{})
	tools := tb.waitTools("where")
	props := schemaOf(t, tools[0])["properties"].(map[string]any)
	if len(props) != 1 || props["last_location_visited"] == nil {
		t.Fatalf("parameters = %v, want the one widget", props)
	}
	tb.call("where", map[string]any{"last_location_visited": "Germany"})
	if got := tb.eval(`document.getElementById('out').textContent`); !strings.Contains(got.(string), "last-location=country%3ADE") {
		t.Fatalf("the form sent %v, want last-location=country:DE", got)
	}
	_, err := tb.eng.Call(testCtx(t), "where", map[string]any{"last_location_visited": "Atlantis"})
	if !errors.Is(err, ErrInvalidArguments) {
		t.Fatalf("a value no option has: %v", err)
	}
}

// A time picker over a hidden input (flatpickr's altInput: the real input
// hidden, holding 15:30, a visible one showing 03:30 PM): the value typed
// as a person reads it reaches the hidden input as the picker writes it; a
// date it cannot read goes to the hidden input as given.
func TestWidgetOverHiddenInput(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("picker.html", `<!doctype html><title>Trip</title><main><h1>Book a trip</h1>
<form id="f"><label for="depart">Departure date</label><input id="depart" name="depart" placeholder="Pick a date" type="hidden"><input class="alt" placeholder="Pick a date" type="text">
<label for="time">Departure time</label><input id="time" name="time" placeholder="Pick a time" type="hidden"><input class="alt" placeholder="Pick a time" type="text">
<button>Book trip</button></form><p id="out"></p></main>
<script>
const [altDate, altTime] = document.querySelectorAll('.alt');
altTime.addEventListener('blur', () => {
  const m = /^(\d{1,2}):(\d{2})\s*(AM|PM)$/i.exec(altTime.value.trim());
  if (!m) { altTime.value = ''; document.getElementById('time').value = ''; return; }
  const h = (+m[1] % 12) + (/pm/i.test(m[3]) ? 12 : 0);
  document.getElementById('time').value = String(h).padStart(2, '0') + ':' + m[2];
  altTime.value = String(+m[1]).padStart(2, '0') + ':' + m[2] + ' ' + m[3].toUpperCase();
});
altDate.addEventListener('blur', () => { altDate.value = 'unreadable'; });
document.getElementById('f').onsubmit = (e) => { e.preventDefault(); document.getElementById('out').textContent = new URLSearchParams(new FormData(e.target)).toString(); };
</script>`), Config{})
	tools := tb.waitTools("book_trip")
	props := schemaOf(t, tools[0])["properties"].(map[string]any)
	if len(props) != 2 || props["departure_date"] == nil || props["departure_time"] == nil {
		t.Fatalf("parameters = %v, want the two widgets", props)
	}
	tb.call("book_trip", map[string]any{"departure_date": "2026-05-01", "departure_time": "3:30 PM"})
	if got := tb.eval(`document.getElementById('out').textContent`); got != "depart=2026-05-01&time=15%3A30" {
		t.Fatalf("the form sent %v, want depart=2026-05-01&time=15:30", got)
	}
}

// Radios without a value attribute (each reads "on"): their labels are the
// choices.
func TestRadiosWithoutValueTakeTheirLabels(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("coffee.html", `<!doctype html><title>Coffee</title><main><h1>Order a coffee</h1>
<form id="order"><fieldset><legend>Size</legend>
<label><input type="radio" name="size"> Small</label><label><input type="radio" name="size" checked> Medium</label><label><input type="radio" name="size"> Large</label>
</fieldset><button>Place order</button></form><p id="out"></p></main>
<script>document.getElementById('order').onsubmit = (e) => { e.preventDefault(); document.getElementById('out').textContent = document.querySelector('input[name=size]:checked').parentElement.textContent.trim(); };</script>`), Config{})
	tools := tb.waitTools("place_order")
	size := prop(t, schemaOf(t, tools[0]), "size")
	if enum, _ := size["enum"].([]any); len(enum) != 3 || enum[2] != "Large" {
		t.Fatalf("size = %v, want the labels as the choices", size)
	}
	tb.call("place_order", map[string]any{"size": "Large"})
	if got := tb.eval(`document.getElementById('out').textContent`); got != "Large" {
		t.Fatalf("the page ordered %v, want Large", got)
	}
}

// Hidden per-item edit forms (a todo app's) are no tools.
func TestHiddenFormsAreNoTools(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("items.html", `<!doctype html><title>todos</title><main><h1>todos</h1>
<form id="new"><input placeholder="What needs to be done?"></form>
<ul><li><label>Buy milk</label><form><input class="edit" style="display:none" value="Buy milk"></form></li>
<li><label>Walk the dog</label><form><input class="edit" style="display:none" value="Walk the dog"></form></li></ul></main>`), Config{})
	tb.waitTools("todos")
}

// A form that posts to its own page sends its values in the body: the page
// coming back is its answer, not a submit that did nothing.
func TestPostToTheSamePageIsDone(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("post.html", `<!doctype html><title>Trip</title><h1>Book a trip</h1>
<form method="post"><label>Destination <input name="to"></label><button>Book trip</button></form>`), Config{})
	tb.waitTools("book_trip")
	res := tb.call("book_trip", map[string]any{"destination": "Lisbon"})
	if !res.Navigated {
		t.Fatalf("the post did not navigate: %s", res.Text())
	}
	if got := tb.eval(`performance.getEntriesByType('navigation')[0].type + ' ' + location.pathname`); got != "navigate /t/post.html" {
		t.Fatalf("the tab: %v", got)
	}
}

// An inbox whose rows each start with an icon-only star button, then the
// message's link, then an icon-only archive button (a mail app's row):
// opening the 3rd message follows its link, the one carrying the row's
// text, and stars nothing. A star clicked writes to sessionStorage, which
// the message's page (same origin) still reads.
func TestOpenItemIsItsTextNotADecoration(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	subjects := []string{"Welcome aboard — from Bo", "Invoice 42 — from Cy", "Meeting notes — from Ann", "Lunch? — from Di"}
	var rows strings.Builder
	for i, subj := range subjects {
		n := i + 1
		s.page(fmt.Sprintf("m/%d", n), fmt.Sprintf(`<!doctype html><title>%s</title><h1>%s</h1><p>This is message %d.</p>`, subj, subj, n))
		fmt.Fprintf(&rows, `<li class="message"><button class="star" aria-label="Star" aria-pressed="false" data-n="%d">☆</button><a href="m/%d">%s</a><button class="archive" aria-label="Archive">🗄</button></li>`, n, n, subj)
	}
	tb := b.newTab(t, s.page("inbox.html", `<!doctype html><title>Inbox</title><main><h1>Inbox</h1><ul class="messages">`+rows.String()+`</ul></main>
<script>
for (const b of document.querySelectorAll('.star')) b.onclick = () => {
  const on = b.getAttribute('aria-pressed') !== 'true';
  b.setAttribute('aria-pressed', String(on)); b.textContent = on ? '★' : '☆';
  sessionStorage.starred = (sessionStorage.starred || '') + b.dataset.n;
};
for (const b of document.querySelectorAll('.archive')) b.onclick = () => { sessionStorage.archived = (sessionStorage.archived || '') + '1'; b.closest('li').remove(); };
</script>`), Config{})
	tools := tb.waitTools("open_inbox", "star_inbox", "archive_inbox")
	open := tool(t, tools, "open_inbox")
	res, err := tb.eng.Call(testCtx(t), open.Name, map[string]any{"index": 2.0}) // the 3rd row
	got := tb.eval(`location.pathname + '|' + (sessionStorage.starred || '') + '|' + (sessionStorage.archived || '')`)
	if got != "/t/m/3||" {
		t.Fatalf("after opening the 3rd message: path|starred|archived = %q, want the 3rd message, nothing starred or archived (res %+v, err %v)", got, res, err)
	}
	if err != nil {
		t.Fatalf("the 3rd message opened, but the call answered %v", err)
	}
}
