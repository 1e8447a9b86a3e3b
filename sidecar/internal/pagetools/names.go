package pagetools

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/lazyre"
)

// MaxNameLen is the longest tool name the engine makes (well inside MCP's
// 64 and leaving room for a "page_" prefix the owner may add).
const MaxNameLen = 48

// snake turns text from the page ("Search flights", "departDate",
// "E-mail address:") into a snake_case identifier of ASCII letters and
// digits, at most maxWords words and max bytes, cut at a word boundary.
// Text with no ASCII letters or digits gives "".
func snake(s string, maxWords, max int) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	prev := rune(0)
	for _, r := range foldAccents(s) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			// departDate → depart_date; but keep "URL" and "ID" whole.
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			cur = append(cur, unicode.ToLower(r))
		case r == '\'' || r == '’':
			// "Don't" is one word.
		default:
			flush()
		}
		prev = r
	}
	flush()
	if maxWords > 0 && len(words) > maxWords {
		words = words[:maxWords]
	}
	out := ""
	for _, w := range words {
		next := w
		if out != "" {
			next = out + "_" + w
		}
		if len(next) > max {
			if out == "" {
				out = w[:max]
			}
			break
		}
		out = next
	}
	return out
}

// whole is s as a name when all of it fits (at most maxWords words and
// MaxNameLen bytes), else "": a legend or heading cut short names the form
// wrongly ("What is your date of" for a date of birth).
func whole(s string, maxWords int) string {
	n := snake(s, 0, 1<<20)
	if n == "" || strings.Count(n, "_")+1 > maxWords || len(n) > MaxNameLen {
		return ""
	}
	return n
}

// foldAccents maps common Latin letters with diacritics to their base
// letter, so "Café" names as "cafe" rather than "caf".
func foldAccents(s string) string {
	return accentFolder.Replace(s)
}

var accentFolder = strings.NewReplacer(
	"à", "a", "á", "a", "â", "a", "ã", "a", "ä", "a", "å", "a", "æ", "ae", "ç", "c",
	"è", "e", "é", "e", "ê", "e", "ë", "e", "ì", "i", "í", "i", "î", "i", "ï", "i",
	"ñ", "n", "ò", "o", "ó", "o", "ô", "o", "õ", "o", "ö", "o", "ø", "o", "œ", "oe",
	"ù", "u", "ú", "u", "û", "u", "ü", "u", "ý", "y", "ÿ", "y", "ß", "ss",
	"À", "A", "Á", "A", "Â", "A", "Ã", "A", "Ä", "A", "Å", "A", "Æ", "AE", "Ç", "C",
	"È", "E", "É", "E", "Ê", "E", "Ë", "E", "Ì", "I", "Í", "I", "Î", "I", "Ï", "I",
	"Ñ", "N", "Ò", "O", "Ó", "O", "Ô", "O", "Õ", "O", "Ö", "O", "Ø", "O",
	"Ù", "U", "Ú", "U", "Û", "U", "Ü", "U", "Ý", "Y",
)

// validDeclaredName is what a name a page declares (WebMCP) must look like
// to be used exactly; others are made snake_case.
var validDeclaredName = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,47}$`)

// declaredName is a WebMCP tool name as the page wrote it when it is a
// valid tool name, else its snake_case form.
func declaredName(s string) string {
	if validDeclaredName.MatchString(s) {
		return s
	}
	return snake(s, 8, MaxNameLen)
}

// namer hands out names unique within one page (or one schema): the second
// "search" is "search_2". Taken names are reserved first, in page order,
// so a name depends only on the page, not on what the cap later drops.
type namer struct {
	taken map[string]bool
	max   int
}

func newNamer(max int) *namer { return &namer{taken: map[string]bool{}, max: max} }

func (n *namer) unique(base string) string {
	name := base
	for i := 2; n.taken[name]; i++ {
		suffix := "_" + strconv.Itoa(i)
		b := base
		if len(b)+len(suffix) > n.max {
			b = strings.TrimRight(b[:n.max-len(suffix)], "_")
		}
		name = b + suffix
	}
	n.taken[name] = true
	return name
}

// genericSubmit are submit labels that say nothing about a form.
var genericSubmit = map[string]bool{
	"submit": true, "go": true, "ok": true, "send": true, "continue": true, "next": true,
	"done": true, "enter": true, "apply": true, "confirm": true, "submit_form": true, "send_form": true,
}

// leadingFiller are words dropped from the front of a heading when it
// names a form together with a one-word submit label: "Search" + "Find
// flights" is search_flights, not search_find_flights.
var leadingFiller = map[string]bool{
	"find": true, "search": true, "get": true, "book": true, "your": true, "our": true, "the": true,
	"a": true, "an": true, "for": true, "check": true, "browse": true, "look": true, "up": true,
}

// formName derives a found form's tool name: its accessible name, else its
// submit button's label (with the nearest heading when the label is one
// verb: "Search" under "Flights" is search_flights), else a heading, else
// the form's name or id.
func formName(f rawForm) string {
	if n := groupName(f); n != "" {
		return n
	}
	heading := firstNonEmpty(whole(f.Legend, 7), whole(f.Inner, 7), whole(f.Heading, 7))
	if n := snake(f.Label, 6, MaxNameLen); n != "" {
		return n
	}
	if sub := snake(f.Submit, 6, MaxNameLen); sub != "" && !genericSubmit[sub] {
		if !strings.Contains(sub, "_") && heading != "" && !strings.HasPrefix(heading, sub) {
			words := strings.Split(heading, "_")
			for len(words) > 1 && leadingFiller[words[0]] {
				words = words[1:]
			}
			if len(words) <= 3 && !leadingFiller[words[0]] {
				if n := snake(sub+" "+strings.Join(words, " "), 6, MaxNameLen); n != "" {
					return n
				}
			}
		}
		return sub
	}
	if heading != "" {
		return heading
	}
	if n := snake(f.FormName, 5, MaxNameLen); n != "" {
		return n
	}
	if f.Search {
		return "search"
	}
	return "submit_form"
}

// listNoun is the item word of a list's tool (open_<noun>): the last word
// of its label, heading or class, singular. "Flight results" → result,
// "Inbox threads" → thread; table rows are row.
func listNoun(l rawList) string {
	for _, src := range []string{l.Label, l.Heading, l.ItemHint, l.Hint} {
		words := strings.Split(snake(src, 0, 200), "_")
		for i := len(words) - 1; i >= 0; i-- {
			w := words[i]
			if w == "" || genericListWord[w] || len(w) < 3 || isDigits(w) {
				continue
			}
			return singular(w)
		}
	}
	if l.Tag == "tbody" || l.ItemTag == "tr" {
		return "row"
	}
	return "item"
}

var genericListWord = map[string]bool{
	"list": true, "lists": true, "items": true, "item": true, "container": true, "wrapper": true, "grid": true,
	"group": true, "section": true, "content": true, "main": true, "body": true, "inner": true, "outer": true,
	"col": true, "cols": true, "row": true, "rows": true, "flex": true, "block": true, "card": true, "cards": true,
	"box": true, "panel": true, "area": true, "region": true, "view": true, "entries": true, "entry": true,
	"top": true, "all": true, "your": true, "our": true, "the": true, "and": true, "latest": true, "new": true,
	"recent": true, "more": true, "for": true, "with": true, "from": true, "ul": true, "ol": true, "li": true, "div": true,
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// singular is a small English singular for list nouns.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

// propertyName picks a found field's property name: the first of its
// label, aria-label, placeholder and name attribute that makes a short
// identifier (at most six words), else the first that makes any.
func propertyName(f rawField) string {
	cands := []string{f.Label, f.Aria, f.Placeholder, f.Name, f.ID, f.Title}
	for _, c := range cands {
		if n := snake(c, 0, 200); n != "" && strings.Count(n, "_") < 6 && len(n) <= 40 {
			return n
		}
	}
	for _, c := range cands {
		if n := snake(c, 4, 32); n != "" {
			return n
		}
	}
	switch f.Type {
	case "checkbox":
		return "checked"
	case "select", "select-multiple", "radio":
		return "choice"
	}
	return "value"
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
