package pagetools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

// npmFile is a file of a package npm ci installed (the real HTML, CSS
// and scripts that apps nobody here wrote are built from).
func npmFile(t testing.TB, elem ...string) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(append([]string{filepath.Dir(here), "..", "..", "..", "node_modules"}, elem...)...))
	if err != nil {
		t.Fatalf("a file of an npm package (npm ci installs it): %v", err)
	}
	return string(b)
}

// govukFixture is one of the component fixtures govuk-frontend ships on
// npm (the HTML its own tests render), as the package has it.
func govukFixture(t testing.TB, component, file string) string {
	t.Helper()
	return npmFile(t, "govuk-frontend", "dist", "govuk", component, file)
}

// govukPage is a question page the way a GOV.UK service builds one: the
// design system's stylesheet, a form, the fixtures, a "Continue" button.
func govukPage(t testing.TB, action string, fixtures ...string) string {
	t.Helper()
	css := govukFixture(t, ".", "govuk-frontend.min.css")
	return `<!doctype html><html lang="en" class="govuk-template"><head><meta charset="utf-8"><title>Your details – GOV.UK</title>
<style>` + css + `</style></head><body class="govuk-template__body js-enabled govuk-frontend-supported">
<div class="govuk-width-container"><main class="govuk-main-wrapper" id="main-content">
<form method="get" action="` + action + `" novalidate>
` + strings.Join(fixtures, "\n") + `
<button type="submit" class="govuk-button" data-module="govuk-button">Continue</button>
</form></main></div></body></html>`
}

// A legend names a form only whole, and a field is named from its label
// or legend, never from the fixture's example ids. On GOV.UK's own date
// input and radios, a real service's form became what_is_your_date_of
// (the legend "What is your date of birth?" cut mid-phrase) with a radio
// parameter example_default (the fixture's name attribute); a legend too
// long to be a name must not give its first words either.
func TestLegendsNameTheFormWholeOnGOVUKFixtures(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	s.page("received.html", `<!doctype html><title>Answers received</title><h1>Answers received</h1>`)

	t.Run("date of birth and radios", func(t *testing.T) {
		tb := b.newTab(t, s.page("dob.html", govukPage(t, "received.html",
			govukFixture(t, "components/date-input", "template-default.html"),
			govukFixture(t, "components/radios", "template-default.html"))), Config{})
		tools := tb.waitTools("what_is_your_date_of_birth")
		props := schemaOf(t, tools[0])["properties"].(map[string]any)
		if len(props) != 4 {
			t.Fatalf("parameters %v, want day, month, year and have_you_changed_your_name", props)
		}
		for _, p := range []string{"day", "month", "year", "have_you_changed_your_name"} {
			prop(t, schemaOf(t, tools[0]), p)
		}
		res := tb.call("what_is_your_date_of_birth", map[string]any{"day": "31", "month": "3", "year": "1980", "have_you_changed_your_name": "No"})
		if got := tb.eval(`location.pathname + location.search`); got != "/t/received.html?day=31&month=3&year=1980&example-default=no" {
			t.Fatalf("the tab is at %v, want the answers sent (%s)", got, res.Text())
		}
	})

	t.Run("a legend too long to be a name", func(t *testing.T) {
		const legend = "Which part of the Housing Act was your licence issued under?"
		html := govukFixture(t, "components/radios", "template-with-legend-as-page-heading.html")
		if !strings.Contains(html, legend) {
			t.Fatalf("the fixture no longer asks %q", legend)
		}
		tb := b.newTab(t, s.page("licence.html", govukPage(t, "received.html", html)), Config{})
		var tools []Tool
		for tools = tb.eng.Tools(); len(tools) == 0; tools = tb.eng.Tools() {
			tb.waitChanged(testutil.Guard)
		}
		if len(tools) != 1 {
			t.Fatalf("tools = %v, want the form's one", Names(tools))
		}
		whole := snake(legend, 0, 1<<20) // which_part_of_the_housing_act_was_your_licence_issued_under
		if name := tools[0].Name; strings.HasPrefix(whole, name+"_") {
			t.Fatalf("the form is named %s: the legend %q cut short", name, legend)
		}
		res := tb.call(tools[0].Name, map[string]any{"housing_act": "part-3"})
		if got := tb.eval(`location.pathname + location.search`); got != "/t/received.html?housing-act=part-3" {
			t.Fatalf("the tab is at %v, want the answer sent (%s)", got, res.Text())
		}
	})
}
