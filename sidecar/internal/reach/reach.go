// Package reach is the everyday browser's reach policy: what a CDP client
// of the user's own browser (package everyday) may do through the tabs its
// coordinator sees, the ones the agent opened and the ones the user shared.
// It is an allowlist, one table per kind of session:
//
//   - A browser session keeps the Browser and Target domains, which the
//     everyday backend answers itself for those tabs alone, and the cookie
//     jar as those tabs see it; downloads and permissions stay as the user
//     set them, and nothing closes the browser or makes another profile.
//     Anything else would run on the whole browser (every site's data,
//     every tab) and is refused.
//   - A page session (and a frame's or a worker's below it) keeps the
//     domains that act on its tab. Cookies and storage are reachable only
//     for the origins of the tabs the coordinator sees: cookie lists are
//     filtered, and a write, a deletion or a clear for another site is
//     refused. Navigation goes to web pages only (http, https, data, blob,
//     about:blank); file: only when Policy.AllowFiles says so; never the
//     browser's own pages (chrome:, chrome-extension:, devtools:,
//     view-source:, …) nor other programs' schemes. Closing or crashing a
//     tab is for the agent's own tabs.
//
// A refusal is a CDP error that says why and what to do instead.
//
// The policy is pure: Command sees one command, where it was sent (Where)
// and the URLs of the tabs, and answers with a cdp.Verdict — pass it on,
// answer it here, or rewrite the browser's answer — so that whatever
// presents the user's tabs as a browser can call it as its hook.
package reach

import (
	"slices"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// Policy is the reach policy of one coordinator.
type Policy struct {
	// AllowFiles lets file: URLs be opened and navigated to.
	AllowFiles bool
	// FilesHint says how to allow local files, at the end of a refusal
	// ("start the coordinator with …"); the caller knows its flags.
	FilesHint string
}

// Where says where a command was sent and what the coordinator sees at
// that moment: the virtual browser's Place (see cdp.Virtual).
type Where = cdp.Place

// rule decides about one method.
type rule func(p Policy, w Where, m *cdp.Message) cdp.Verdict

// browserRules are what a browser session may send besides the Browser and
// Target domains (the cookie jar, as the tabs see it), and the rules of
// those domains: downloads and permissions stay as the user set them in
// their own browser (as Playwright MCP's extension relay does), and
// nothing closes it or makes another profile.
var browserRules = map[string]rule{
	"Target.createTarget":          opens("url"),
	"Browser.setDownloadBehavior":  asUserSet,
	"Browser.setPermission":        asUserSet,
	"Browser.grantPermissions":     asUserSet,
	"Browser.resetPermissions":     asUserSet,
	"Browser.close":                neverCloses,
	"Browser.crash":                neverCloses,
	"Browser.crashGpuProcess":      neverCloses,
	"Target.createBrowserContext":  oneProfile,
	"Target.disposeBrowserContext": oneProfile,
	"Storage.getCookies":           readCookies,
	"Storage.setCookies":           writeCookies,
	"Storage.clearCookies":         clearAllCookies,
}

// pageRules are the methods of a page session's domains with a rule of
// their own; the domains' other methods pass.
var pageRules = map[string]rule{
	"Page.navigate":            opens("url"),
	"Target.createTarget":      opens("url"), // the everyday backend makes it the agent's tab
	"Page.setDownloadBehavior": asUserSet,
	"Page.close":               agentTabOnly,
	"Page.crash":               agentTabOnly,
	"Page.deleteCookie":        deleteCookies,

	"Network.getAllCookies":             readCookies,
	"Network.getCookies":                readCookies,
	"Network.setCookie":                 writeCookie,
	"Network.setCookies":                writeCookies,
	"Network.deleteCookies":             deleteCookies,
	"Network.clearBrowserCookies":       clearAllCookies,
	"Network.clearBrowserCache":         refuse("it empties the cache of every site in the user's browser; Network.setCacheDisabled turns the cache off for this tab"),
	"Network.loadNetworkResource":       loadResource,
	"Network.enableDeviceBoundSessions": refuse("it reports the device-bound sessions of every site"),
	"Network.deleteDeviceBoundSession":  refuse("it deletes a site's device-bound session"),

	"Storage.getCookies":   readCookies,
	"Storage.setCookies":   writeCookies,
	"Storage.clearCookies": clearAllCookies,

	// Target, on a page: its frames and workers, and new tabs for the agent.
	"Target.setAutoAttach":       pass,
	"Target.getTargetInfo":       pass,
	"Target.detachFromTarget":    pass,
	"Target.sendMessageToTarget": refuse("the everyday backend offers flat sessions only: send the command with the child's sessionId"),
}

// tabDomains act on the page session's own tab (its document, scripts,
// network, input, rendering): they pass, but for pageRules.
var tabDomains = set("Accessibility", "Ads", "Animation", "Audits", "Autofill", "BluetoothEmulation", "CSS", "Console",
	"CrashReportContext", "DOM", "DOMDebugger", "DOMSnapshot", "Debugger", "DeviceAccess", "DeviceOrientation",
	"DigitalCredentials", "Emulation", "EventBreakpoints", "FedCm", "Fetch", "FindInPage", "HeadlessExperimental",
	"HeapProfiler", "IO", "Input", "Inspector", "LayerTree", "Log", "Media", "Memory", "Network", "Overlay", "Page",
	"Performance", "PerformanceTimeline", "Preload", "Profiler", "Runtime", "Schema", "Security", "Tracing",
	"WebAudio", "WebAuthn", "WebMCP")

// originDomains keep a site's storage: each origin a command names must be
// the origin of a tab the coordinator sees.
var originDomains = set("CacheStorage", "DOMStorage", "FileSystem", "IndexedDB")

// storageMethods are the Storage domain's methods a page session may use
// (for the origins of the tabs); the others (trust tokens, interest groups,
// attribution reporting, bounce tracking, …) span every site.
var storageMethods = set("getStorageKeyForFrame", "getStorageKey", "clearDataForOrigin", "clearDataForStorageKey",
	"getUsageAndQuota", "overrideQuotaForOrigin",
	"trackCacheStorageForOrigin", "trackCacheStorageForStorageKey", "trackIndexedDBForOrigin", "trackIndexedDBForStorageKey",
	"untrackCacheStorageForOrigin", "untrackCacheStorageForStorageKey", "untrackIndexedDBForOrigin", "untrackIndexedDBForStorageKey",
	"setStorageBucketTracking", "deleteStorageBucket",
	"getSharedStorageMetadata", "getSharedStorageEntries", "setSharedStorageEntry", "deleteSharedStorageEntry",
	"clearSharedStorageEntries", "resetSharedStorageBudget")

// Command decides about one command; the zero Verdict passes it on.
func (p Policy) Command(w Where, m *cdp.Message) cdp.Verdict {
	domain, method, _ := strings.Cut(m.Method, ".")
	if !w.Page {
		if r := browserRules[m.Method]; r != nil {
			return r(p, w, m)
		}
		if domain == "Browser" || domain == "Target" {
			return pass(p, w, m)
		}
		return refuseMsg(m, "%s on a browser session would run on the whole of the user's browser (every site's data, every tab), which the everyday backend does not offer: "+
			"send it on the session of a tab the agent sees (Target.attachToTarget with flatten: true)", m.Method)
	}
	if r := pageRules[m.Method]; r != nil {
		return r(p, w, m)
	}
	switch {
	case domain == "Target":
		return refuseMsg(m, "%s is not offered on a page session of the everyday browser: a page offers Target.setAutoAttach (its frames and workers), getTargetInfo, detachFromTarget and createTarget (a new tab for the agent); "+
			"find and attach to the other tabs from a browser session", m.Method)
	case domain == "Storage" && storageMethods[method], originDomains[domain]:
		return sameOrigins(p, w, m)
	case tabDomains[domain]:
		return pass(p, w, m)
	}
	return refuseMsg(m, "%s is not offered in the everyday browser: the %s domain reaches past the tab (other sites' data, the browser's own settings, other programs); "+
		"the tab's own domains (Page, Runtime, DOM, Network, Input, Emulation, …) are", m.Method, domain)
}

// CheckFile refuses a file: URL unless p allows local files. The coordinator's
// own tab opening asks it too, in every backend.
func (p Policy) CheckFile(url string) error {
	if p.AllowFiles || scheme(url) != "file" {
		return nil
	}
	return &FileError{URL: url, Hint: p.FilesHint}
}

func pass(Policy, Where, *cdp.Message) cdp.Verdict { return cdp.Verdict{} }

// refuse is a rule that refuses its method, because.
func refuse(because string) rule {
	return func(_ Policy, _ Where, m *cdp.Message) cdp.Verdict {
		return refuseMsg(m, "%s is refused in the everyday browser: %s", m.Method, because)
	}
}

func refuseMsg(m *cdp.Message, format string, a ...any) cdp.Verdict {
	return cdp.Verdict{Reply: cdp.Fail(m, "browser-coordinator: "+format, a...)}
}

// asUserSet answers a change of a setting without making it: downloads
// and permissions stay as the user set them in their own browser.
func asUserSet(_ Policy, _ Where, m *cdp.Message) cdp.Verdict {
	return cdp.Verdict{Reply: cdp.Reply(m, struct{}{})}
}

func neverCloses(_ Policy, _ Where, m *cdp.Message) cdp.Verdict {
	return refuseMsg(m, "%s refused: this is the user's own browser (the everyday backend); the coordinator never closes it", m.Method)
}

func oneProfile(_ Policy, _ Where, m *cdp.Message) cdp.Verdict {
	return refuseMsg(m, "%s is not available in the user's own browser (the everyday backend): it has one profile, the user's; use a launched browser for isolated contexts", m.Method)
}

// agentTabOnly: a page may close or crash only a tab the agent opened.
func agentTabOnly(_ Policy, w Where, m *cdp.Message) cdp.Verdict {
	if w.AgentTab {
		return cdp.Verdict{}
	}
	return refuseMsg(m, "%s refused: this tab is the user's, shared with the agent, and the coordinator never closes a tab it did not open; "+
		"close the agent's own tabs (Target.closeTarget), or ask the user", m.Method)
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// listed names a scope's hosts for a refusal.
func listed(names []string) string {
	if len(names) == 0 {
		return "none: no tab shows a web page"
	}
	return strings.Join(slices.Compact(slices.Sorted(slices.Values(names))), ", ")
}
