package reach

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/tidwall/gjson"
)

// scope is what the coordinator's tabs reach: the hosts and the origins of
// the web pages they show.
type scope struct {
	hosts   []string // lower case
	origins []string // scheme://host[:port], the port only when not the scheme's default
}

func newScope(tabs []string) scope {
	var s scope
	for _, t := range tabs {
		if o, host, ok := webOrigin(t); ok {
			s.hosts = append(s.hosts, host)
			s.origins = append(s.origins, o)
		}
	}
	return s
}

func (s scope) hasOrigin(o string) bool { return slices.Contains(s.origins, o) }
func (s scope) hasHost(h string) bool   { return slices.Contains(s.hosts, strings.ToLower(h)) }

// webOrigin is the origin and host of an http(s) URL.
func webOrigin(raw string) (origin, host string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", "", false
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	hostport := host
	if strings.Contains(host, ":") {
		hostport = "[" + host + "]" // IPv6
	}
	if p := u.Port(); p != "" && !(scheme == "http" && p == "80") && !(scheme == "https" && p == "443") {
		hostport += ":" + p
	}
	return scheme + "://" + hostport, host, true
}

// scheme is a URL's scheme, lower case ("" when it has none).
func scheme(raw string) string {
	i := strings.IndexByte(raw, ':')
	if i <= 0 {
		return ""
	}
	s := strings.ToLower(strings.TrimSpace(raw[:i]))
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return ""
		}
	}
	return s
}

// webSchemes are where a tab may be sent.
var webSchemes = set("http", "https", "data", "blob")

// opens is the rule of a command that loads the URL in field into a tab.
func opens(field string) rule {
	return func(p Policy, _ Where, m *cdp.Message) cdp.Verdict {
		u := gjson.GetBytes(m.Params, field).String()
		if err := p.CheckFile(u); err != nil {
			return refuseMsg(m, "%s to %s refused: %v", m.Method, shorten(u), err)
		}
		switch s := scheme(u); {
		case u == "", webSchemes[s], s == "file":
			return cdp.Verdict{}
		case u == "about:blank" || u == "about:srcdoc" || strings.HasPrefix(u, "about:blank#") || strings.HasPrefix(u, "about:blank?"):
			return cdp.Verdict{}
		case s == "":
			return refuseMsg(m, "%s to %q refused: not an absolute URL; give an http(s):// URL", m.Method, shorten(u))
		default:
			return refuseMsg(m, "%s to %s refused: the everyday browser opens web pages only (http, https, data, blob, about:blank); "+
				"%s: URLs reach past the tabs the user shared (the browser's own pages and settings, extensions, DevTools, other programs)", m.Method, shorten(u), s)
		}
	}
}

// FileError is a file: URL refused: local files are closed to the agent
// unless the coordinator allows them.
type FileError struct {
	URL  string
	Hint string // how to allow them
}

func (e *FileError) Error() string {
	msg := "local files (file:// URLs) are closed to the agent"
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// loadResource: Network.loadNetworkResource fetches a URL as the page's
// frame, with the user's cookies and past the page's CORS checks: only
// from the origins of the tabs.
func loadResource(_ Policy, w Where, m *cdp.Message) cdp.Verdict {
	s := newScope(w.Tabs)
	u := gjson.GetBytes(m.Params, "url").String()
	if o, _, ok := webOrigin(u); ok && s.hasOrigin(o) {
		return cdp.Verdict{}
	}
	return refuseMsg(m, "%s of %s refused: it reads a resource with the user's cookies, past the page's CORS checks, so only from the origins of the tabs the agent sees (%s); "+
		"navigate a tab there, or fetch it from the page with Runtime.evaluate", m.Method, shorten(u), listed(s.origins))
}

// originParams are where storage commands name an origin, directly or in a
// storage key ("https://site.example/" and, for partitioned storage,
// "^0…" after it).
var originParams = []string{"origin", "securityOrigin", "ownerOrigin", "storageKey", "storageId.securityOrigin", "storageId.storageKey",
	"storageBucket.storageKey", "bucket.storageKey", "bucketFileSystemLocator.storageKey", "cacheId"}

// sameOrigins: every origin a storage command names is a tab's.
func sameOrigins(_ Policy, w Where, m *cdp.Message) cdp.Verdict {
	s := newScope(w.Tabs)
	for _, path := range originParams {
		v := gjson.GetBytes(m.Params, path)
		if !v.Exists() || v.String() == "" {
			continue
		}
		key := v.String()
		if path == "cacheId" {
			key, _, _ = strings.Cut(key, "|") // a cache's id is its storage key, "|", its name
		}
		key, _, _ = strings.Cut(key, "^")
		if o, _, ok := webOrigin(key); ok && s.hasOrigin(o) {
			continue
		}
		return refuseMsg(m, "%s for %s refused: the agent reaches the storage of the origins of the tabs it sees only (%s); "+
			"the user can share a tab of that site", m.Method, shorten(v.String()), listed(s.origins))
	}
	return cdp.Verdict{}
}

func shorten(s string) string {
	if len(s) > 200 {
		return fmt.Sprintf("%s… (%d bytes)", s[:200], len(s))
	}
	return s
}
