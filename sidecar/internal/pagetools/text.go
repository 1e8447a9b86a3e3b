package pagetools

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cleanText makes page text safe to show a model: control and format
// characters (bidi overrides, zero-width joiners) go, runs of white space
// become one space, and the result is at most max runes, the last one "…"
// when it was cut.
func cleanText(s string, max int) string {
	out := make([]rune, 0, min(len(s), max+1))
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Co, r) {
			r = ' '
		}
		if unicode.IsSpace(r) {
			space = len(out) > 0
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, r)
		if len(out) > max {
			cut := strings.TrimRight(string(out[:max-1]), " ")
			return cut + "…"
		}
	}
	return string(out)
}

// cleanBlock is cleanText for multi-line page text (what a call changed, a
// page's text): lines are kept, each cleaned, empty ones dropped, and the
// whole is at most max runes.
func cleanBlock(s string, max int) string {
	var out []string
	total := 0
	for _, line := range strings.Split(s, "\n") {
		line = cleanText(line, max)
		if line == "" {
			continue
		}
		n := utf8.RuneCountInString(line)
		if total+n > max {
			rest := max - total
			if rest > 20 {
				out = append(out, cleanText(line, rest))
			} else {
				out = append(out, "…")
			}
			break
		}
		out = append(out, line)
		total += n + 1
	}
	return strings.Join(out, "\n")
}

// quotePage puts cleaned page text in double quotes for a description the
// coordinator writes: quotes inside become single quotes, so the page's
// words cannot close the quote and pass for the coordinator's own.
func quotePage(s string, max int) string {
	s = cleanText(s, max)
	if s == "" {
		return ""
	}
	return `"` + strings.ReplaceAll(s, `"`, "'") + `"`
}

// pageLabel is page text inside the engine's words: cleaned, at most max
// characters, quoted and labelled as the page's ("" for none).
func pageLabel(s string, max int) string {
	if max <= 0 {
		return ""
	}
	q := quotePage(s, max)
	if q == "" {
		return ""
	}
	return "Page text: " + q
}

// Label is pageLabel for text from a page that others show (a tab's
// title): Page text: "…", cleaned and at most max characters.
func Label(s string, max int) string { return pageLabel(s, max) }

// redact replaces every occurrence of each secret in s (passwords the
// caller gave) with a fixed mask, so a page that echoes a password back
// does not get it into a result.
func redact(s string, secrets []string) string {
	for _, p := range secrets {
		if p != "" {
			s = strings.ReplaceAll(s, p, "••••••")
		}
	}
	return s
}

// Origin is a URL's origin (scheme://host[:port]) as a browser writes it,
// or the URL itself (cleaned, bounded) when it has none.
func Origin(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return cleanText(u, 200)
	}
	return p.Scheme + "://" + p.Host
}
