package pagetools

import (
	"strings"
	"testing"
)

// flatpickrPage is a form with flatpickr's calendar (npm flatpickr, as its
// documentation sets it up) on its date field, and a submit handler that
// writes into the page the date the widget holds when the form is sent.
func flatpickrPage(t testing.TB, options string) string {
	t.Helper()
	js := npmFile(t, "flatpickr", "dist", "flatpickr.min.js")
	css := npmFile(t, "flatpickr", "dist", "flatpickr.min.css")
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Book a trip</title><style>` + css + `</style></head>
<body><main><h1>Book a trip</h1>
<form id="trip">
  <label for="depart">Departure date</label> <input id="depart" name="depart" placeholder="Pick a date">
  <p><button type="submit">Book trip</button></p>
</form>
<p id="booked"></p></main>
<script>` + js + `</script>
<script>
const fp = flatpickr('#depart', ` + options + `);
fp.open(); // the calendar shows: what discovery must leave alone
document.getElementById('trip').addEventListener('submit', (e) => {
  e.preventDefault();
  const d = fp.selectedDates[0];
  document.getElementById('booked').textContent = 'Booked for ' + (d ? fp.formatDate(d, 'Y-m-d') : 'no date');
});
</script></body></html>`
}

// A date picker's calendar is no tool and no parameter: its week rows
// and day cells (a real app's became open_datepicker(index)), its month
// select (choose_month) and its year field are the widget's; the date
// field is the parameter, and the date the widget holds after the call
// is the one asked, read in the page. flatpickr, inline in the form and
// as a popup open over the page.
func TestADatePickersCalendarIsNoTool(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	for _, tc := range []struct{ name, options string }{
		{"inline", `{ inline: true, allowInput: true, dateFormat: 'Y-m-d' }`},
		{"popup", `{ allowInput: true, dateFormat: 'Y-m-d' }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := b.newTab(t, s.page(tc.name+".html", flatpickrPage(t, tc.options)), Config{})
			if days := tb.eval(`document.querySelectorAll('.flatpickr-calendar.open .flatpickr-day, .flatpickr-calendar.inline .flatpickr-day').length`); days.(float64) < 28 {
				t.Fatalf("the calendar shows %v days: not the case under test", days)
			}
			tools := tb.waitTools("book_trip")
			props := schemaOf(t, tools[0])["properties"].(map[string]any)
			if len(props) != 1 {
				keys := []string{}
				for k := range props {
					keys = append(keys, k)
				}
				t.Fatalf("book_trip's parameters are %v: want the date field alone, none of the calendar's", keys)
			}
			prop(t, schemaOf(t, tools[0]), "departure_date")
			res := tb.call("book_trip", map[string]any{"departure_date": "2026-05-01"})
			got := tb.eval(`document.getElementById('booked').textContent + '|' + (fp.selectedDates.length === 1 ? fp.formatDate(fp.selectedDates[0], 'Y-m-d') : fp.selectedDates.length + ' dates')`)
			if got != "Booked for 2026-05-01|2026-05-01" {
				t.Fatalf("the page shows %q, want the trip booked for 2026-05-01 and the widget holding it (%s)", got, res.Text())
			}
			for _, tl := range tb.eng.Tools() {
				if strings.HasPrefix(tl.Name, "open_") || strings.HasPrefix(tl.Name, "choose_") {
					t.Fatalf("after the call the calendar is a tool: %v", Names(tb.eng.Tools()))
				}
			}
		})
	}
}
