package pagetools

import (
	"strings"
	"testing"
)

func TestSnake(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"Search flights", "search_flights"},
		{"  Sign in  ", "sign_in"},
		{"departDate", "depart_date"},
		{"E-mail address:", "e_mail_address"},
		{"Don't miss out!", "dont_miss_out"},
		{"Café au lait", "cafe_au_lait"},
		{"URL", "url"},
		{"Step 2 of 3", "step_2_of_3"},
		{"検索", ""},
		{"→", ""},
		{strings.Repeat("word ", 30), "word_word_word_word_word_word_word_word_word_word"[:len("word_word_word_word_word_word_word_word_word")]},
	} {
		if got := snake(c.in, 0, MaxNameLen); got != c.want {
			t.Errorf("snake(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := snake("one two three four five", 3, 100); got != "one_two_three" {
		t.Errorf("three words: %q", got)
	}
	if got := snake("supercalifragilisticexpialidocious", 0, 10); got != "supercalif" {
		t.Errorf("one long word is cut: %q", got)
	}
}

func TestNamerUnique(t *testing.T) {
	n := newNamer(MaxNameLen)
	got := []string{n.unique("search"), n.unique("search"), n.unique("search"), n.unique("search_2")}
	want := []string{"search", "search_2", "search_3", "search_2_2"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %v, want %v", got, want)
	}
	long := strings.Repeat("a", MaxNameLen)
	n.unique(long)
	if second := n.unique(long); len(second) > MaxNameLen || !strings.HasSuffix(second, "_2") {
		t.Fatalf("a long name's second use %q (%d bytes)", second, len(second))
	}
}

func TestDeclaredName(t *testing.T) {
	for in, want := range map[string]string{
		"book_table":            "book_table",
		"searchFlights":         "searchFlights", // exactly as declared when valid
		"search-cars":           "search-cars",
		"Book a table!":         "book_a_table",
		"1st":                   "1st",
		strings.Repeat("x", 60): strings.Repeat("x", MaxNameLen),
	} {
		if got := declaredName(in); got != want {
			t.Errorf("declaredName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFormName(t *testing.T) {
	for _, c := range []struct {
		name string
		f    rawForm
		want string
	}{
		{"accessible name first", rawForm{Label: "Flight search", Submit: "Go", Heading: "Travel"}, "flight_search"},
		{"submit label", rawForm{Submit: "Search flights", Heading: "Find flights"}, "search_flights"},
		{"sign in", rawForm{Submit: "Sign in", Heading: "Welcome"}, "sign_in"},
		{"one verb plus heading", rawForm{Submit: "Search", Heading: "Flights"}, "search_flights"},
		{"filler words of the heading dropped", rawForm{Submit: "Search", Heading: "Find your flights"}, "search_flights"},
		{"heading that starts with the verb", rawForm{Submit: "Subscribe", Heading: "Subscribe to our newsletter"}, "subscribe"},
		{"long heading not appended", rawForm{Submit: "Search", Heading: "Everything you ever wanted to know"}, "search"},
		{"generic submit uses the heading", rawForm{Submit: "Submit", Heading: "Contact us"}, "contact_us"},
		{"legend before heading", rawForm{Submit: "OK", Legend: "Shipping address", Heading: "Checkout"}, "shipping_address"},
		{"form name", rawForm{Submit: "Go", FormName: "quickSearch"}, "quick_search"},
		{"search role", rawForm{Search: true}, "search"},
		{"nothing", rawForm{}, "submit_form"},
	} {
		if got := formName(c.f); got != c.want {
			t.Errorf("%s: formName = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestListNoun(t *testing.T) {
	for _, c := range []struct {
		l    rawList
		want string
	}{
		{rawList{Label: "Flight results"}, "result"},
		{rawList{Label: "Threads"}, "thread"},
		{rawList{Heading: "Latest stories"}, "story"},
		{rawList{Hint: "search-results list"}, "result"},
		{rawList{Hint: "grid", ItemHint: "product-card"}, "product"},
		{rawList{Label: "Matches"}, "match"},
		{rawList{Label: "Addresses"}, "address"},
		{rawList{Tag: "tbody"}, "row"},
		{rawList{}, "item"},
	} {
		if got := listNoun(c.l); got != c.want {
			t.Errorf("listNoun(%+v) = %q, want %q", c.l, got, c.want)
		}
	}
}

func TestPropertyName(t *testing.T) {
	for _, c := range []struct {
		f    rawField
		want string
	}{
		{rawField{Label: "Depart date", Name: "d1"}, "depart_date"},
		{rawField{Aria: "Search mail", Name: "q"}, "search_mail"},
		{rawField{Placeholder: "Your email", Name: "em"}, "your_email"},
		{rawField{Name: "zipCode"}, "zip_code"},
		{rawField{Label: "Please enter the city you will be departing from", Name: "origin"}, "origin"},
		{rawField{Label: "Please enter the city you will be departing from"}, "please_enter_the_city"},
		{rawField{Type: "checkbox"}, "checked"},
		{rawField{Type: "select"}, "choice"},
		{rawField{}, "value"},
	} {
		if got := propertyName(c.f); got != c.want {
			t.Errorf("propertyName(%+v) = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestSingular(t *testing.T) {
	for in, want := range map[string]string{"results": "result", "stories": "story", "boxes": "box", "matches": "match", "status": "status", "news": "new", "class": "class", "bus": "bus"} {
		if got := singular(in); got != want {
			t.Errorf("singular(%q) = %q, want %q", in, got, want)
		}
	}
}
