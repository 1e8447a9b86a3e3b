package reach

import (
	"encoding/json"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The cookie jar, as the tabs see it: a cookie is the agent's to read,
// write or delete when a tab the coordinator sees would be sent it (or, for
// a write, could set it itself). Ports, paths and the secure flag do not
// separate sites for cookies, so neither do they here.

// sees reports whether a tab of s would be sent a cookie of domain (as the
// browser lists it: ".site.example" for a domain cookie, "site.example"
// for a host-only one).
func (s scope) sees(domain string) bool {
	d := strings.ToLower(domain)
	if parent, ok := strings.CutPrefix(d, "."); ok {
		return s.under(parent)
	}
	return s.hasHost(d)
}

// under reports whether a tab's host is domain or below it: the pages that
// may set a cookie for domain.
func (s scope) under(domain string) bool {
	d := strings.ToLower(strings.TrimPrefix(domain, "."))
	if d == "" {
		return false
	}
	for _, h := range s.hosts {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return false
}

// readCookies keeps, in the browser's answer, the cookies the tabs see.
func readCookies(_ Policy, w Where, m *cdp.Message) cdp.Verdict {
	s := newScope(w.Tabs)
	return cdp.Verdict{Then: func(a *cdp.Message) *cdp.Message {
		if a.Error != nil {
			return a
		}
		kept := []json.RawMessage{}
		gjson.GetBytes(a.Result, "cookies").ForEach(func(_, c gjson.Result) bool {
			if s.sees(c.Get("domain").String()) {
				kept = append(kept, json.RawMessage(c.Raw))
			}
			return true
		})
		if out, err := sjson.SetBytes(a.Result, "cookies", kept); err == nil {
			a.Result = out
		} else {
			a.Result = json.RawMessage(`{"cookies":[]}`)
		}
		return a
	}}
}

// cookieRefusal says why s may not write cookie c (a Network.CookieParam),
// or "".
func cookieRefusal(s scope, c gjson.Result) string {
	u, domain := c.Get("url").String(), c.Get("domain").String()
	if u == "" && domain == "" {
		return "it names neither a url nor a domain"
	}
	if u != "" {
		if _, host, ok := webOrigin(u); !ok || !s.hasHost(host) {
			return "its url " + shorten(u) + " is not on a site of the tabs the agent sees"
		}
	}
	if domain != "" && !s.under(domain) {
		return "its domain " + shorten(domain) + " is not a site of the tabs the agent sees"
	}
	return ""
}

// writeCookie checks Network.setCookie, whose params are the cookie.
func writeCookie(_ Policy, w Where, m *cdp.Message) cdp.Verdict {
	s := newScope(w.Tabs)
	return refuseCookie(m, s, cookieRefusal(s, gjson.ParseBytes(m.Params)))
}

// writeCookies checks every cookie of Network.setCookies and
// Storage.setCookies: one the tabs may not set refuses them all.
func writeCookies(_ Policy, w Where, m *cdp.Message) cdp.Verdict {
	s := newScope(w.Tabs)
	why := ""
	gjson.GetBytes(m.Params, "cookies").ForEach(func(_, c gjson.Result) bool {
		if r := cookieRefusal(s, c); r != "" {
			why = "cookie " + shorten(c.Get("name").String()) + ": " + r
			return false
		}
		return true
	})
	return refuseCookie(m, s, why)
}

// deleteCookies checks Network.deleteCookies (a url or a domain, which
// Chromium matches exactly) and Page.deleteCookie (a url).
func deleteCookies(_ Policy, w Where, m *cdp.Message) cdp.Verdict {
	s := newScope(w.Tabs)
	p := gjson.ParseBytes(m.Params)
	u, domain := p.Get("url").String(), p.Get("domain").String()
	why := ""
	switch {
	case u == "" && domain == "":
		why = "it names neither a url nor a domain (it would delete the cookies of that name on every site)"
	case domain != "" && !s.hasHost(strings.TrimPrefix(domain, ".")):
		why = "its domain " + shorten(domain) + " is not the host of a tab the agent sees"
	case u != "":
		if _, host, ok := webOrigin(u); !ok || !s.hasHost(host) {
			why = "its url " + shorten(u) + " is not on a site of the tabs the agent sees"
		}
	}
	return refuseCookie(m, s, why)
}

func refuseCookie(m *cdp.Message, s scope, why string) cdp.Verdict {
	if why == "" {
		return cdp.Verdict{}
	}
	return refuseMsg(m, "%s refused: %s. The agent reaches the cookies of the sites of the tabs it sees only (%s); "+
		"the user can share a tab of that site", m.Method, why, listed(s.hosts))
}

// clearAllCookies refuses a clear of the whole cookie jar.
func clearAllCookies(_ Policy, w Where, m *cdp.Message) cdp.Verdict {
	s := newScope(w.Tabs)
	return refuseMsg(m, "%s refused: it would delete the cookies of every site in the user's browser; "+
		"delete the cookies of the tabs' sites (%s) with Network.deleteCookies and their url", m.Method, listed(s.hosts))
}
