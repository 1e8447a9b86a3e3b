package reach

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// The coordinator sees a shared tab on shop.example (port 8080) and one on
// a.news.example; the user's bank, mail and the rest of their browser are
// not shared.
var tabs = []string{"http://shop.example:8080/cart", "https://a.news.example/today", "about:blank", "file:///home/u/notes.txt"}

const hint = "start the coordinator with --allow-unrestricted-file-access"

// verdict names what Command decided: "pass", "reply", "then", or the
// refusal's message.
func verdict(p Policy, page, agent bool, method, params string) string {
	m := &cdp.Message{ID: json.RawMessage(`7`), Method: method}
	if params != "" {
		m.Params = json.RawMessage(params)
	}
	v := p.Command(Where{Page: page, AgentTab: agent, Tabs: tabs}, m)
	switch {
	case v.Reply != nil && v.Reply.Error != nil:
		if string(v.Reply.ID) != "7" {
			return "a refusal with another id: " + string(v.Reply.ID)
		}
		return v.Reply.Error.Message
	case v.Reply != nil:
		return "reply"
	case v.Then != nil:
		return "then"
	}
	return "pass"
}

func TestCommands(t *testing.T) {
	p := Policy{FilesHint: hint}
	for _, tc := range []struct {
		page   bool
		method string
		params string
		want   string // "pass", "reply", "then", or part of the refusal
	}{
		// A browser session: the virtual browser's Browser and Target
		// domains, the cookie jar as the tabs see it, nothing else.
		{false, "Browser.getVersion", ``, "pass"},
		{false, "Target.getTargets", ``, "pass"},
		{false, "Target.attachToTarget", `{"targetId":"X","flatten":true}`, "pass"},
		{false, "Browser.setDownloadBehavior", `{"behavior":"allow","downloadPath":"/home/u/.config/autostart"}`, "reply"},
		{false, "Browser.grantPermissions", `{"permissions":["geolocation"]}`, "reply"},
		{false, "Browser.close", ``, "the coordinator never closes it"},
		{false, "Browser.crashGpuProcess", ``, "the coordinator never closes it"},
		{false, "Target.createBrowserContext", ``, "it has one profile, the user's"},
		{false, "Storage.getCookies", ``, "then"},
		{false, "Storage.clearCookies", ``, "would delete the cookies of every site in the user's browser; delete the cookies of the tabs' sites (a.news.example, shop.example) with Network.deleteCookies"},
		{false, "Storage.setCookies", `{"cookies":[{"name":"a","value":"b","domain":"bank.example"}]}`, "Storage.setCookies refused: cookie a: its domain bank.example is not a site of the tabs the agent sees. The agent reaches the cookies of the sites of the tabs it sees only (a.news.example, shop.example)"},
		{false, "Storage.setCookies", `{"cookies":[{"name":"a","value":"b","url":"http://shop.example/"}]}`, "pass"},
		{false, "Network.getAllCookies", ``, "Network.getAllCookies on a browser session would run on the whole of the user's browser"},
		{false, "Tracing.start", ``, "send it on the session of a tab the agent sees"},
		{false, "SystemInfo.getProcessInfo", ``, "would run on the whole of the user's browser"},
		{false, "Target.createTarget", `{"url":"https://shop.example/"}`, "pass"},
		{false, "Target.createTarget", `{"url":""}`, "pass"},
		{false, "Target.createTarget", `{"url":"file:///etc/hostname"}`, "Target.createTarget to file:///etc/hostname refused: local files (file:// URLs) are closed to the agent; " + hint},
		{false, "Target.createTarget", `{"url":"chrome://settings"}`, "the everyday browser opens web pages only (http, https, data, blob, about:blank); chrome: URLs reach past the tabs the user shared"},

		// Navigation from a page.
		{true, "Page.navigate", `{"url":"https://anywhere.example/x"}`, "pass"},
		{true, "Page.navigate", `{"url":"data:text/html,hi"}`, "pass"},
		{true, "Page.navigate", `{"url":"about:blank"}`, "pass"},
		{true, "Page.navigate", `{"url":"file:///etc/"}`, "Page.navigate to file:///etc/ refused: local files (file:// URLs) are closed to the agent; " + hint},
		{true, "Page.navigate", `{"url":"FILE:///etc/passwd"}`, "closed to the agent"},
		{true, "Page.navigate", `{"url":" file:///etc/passwd"}`, "closed to the agent"},
		{true, "Page.navigate", `{"url":"chrome-extension://abc/popup.html"}`, "chrome-extension: URLs reach past"},
		{true, "Page.navigate", `{"url":"devtools://devtools/bundled/inspector.html"}`, "devtools: URLs reach past"},
		{true, "Page.navigate", `{"url":"view-source:https://shop.example/"}`, "view-source: URLs reach past"},
		{true, "Page.navigate", `{"url":"about:settings"}`, "about: URLs reach past"},
		{true, "Page.navigate", `{"url":"filesystem:http://bank.example/temporary/a"}`, "filesystem: URLs reach past"},
		{true, "Page.navigate", `{"url":"vscode://file/etc/passwd"}`, "vscode: URLs reach past"},
		{true, "Page.navigate", `{"url":"fi\nle:///etc/passwd"}`, "not an absolute URL"},
		{true, "Target.createTarget", `{"url":"file:///etc/hostname"}`, "closed to the agent"},
		{true, "Target.createTarget", `{"url":"https://shop.example/new"}`, "pass"},

		// Cookies, from a page.
		{true, "Network.getAllCookies", ``, "then"},
		{true, "Network.getCookies", `{"urls":["https://bank.example/"]}`, "then"},
		{true, "Network.setCookie", `{"name":"a","value":"b","domain":"bank.example"}`, "Network.setCookie refused: its domain bank.example is not a site of the tabs the agent sees"},
		{true, "Network.setCookie", `{"name":"a","value":"b","url":"https://bank.example/"}`, "its url https://bank.example/ is not on a site of the tabs the agent sees"},
		{true, "Network.setCookie", `{"name":"a","value":"b"}`, "it names neither a url nor a domain"},
		{true, "Network.setCookie", `{"name":"a","value":"b","url":"http://shop.example:8080/"}`, "pass"},
		{true, "Network.setCookie", `{"name":"a","value":"b","domain":".news.example"}`, "pass"}, // a.news.example may set it itself
		{true, "Network.setCookie", `{"name":"a","value":"b","domain":"b.news.example"}`, "is not a site of the tabs"},
		{true, "Network.setCookie", `{"name":"a","value":"b","domain":"example"}`, "pass"}, // the browser refuses a public suffix itself
		{true, "Network.setCookie", `{"name":"a","value":"b","domain":"xample"}`, "is not a site of the tabs"},
		{true, "Network.setCookie", `{"name":"a","value":"b","url":"http://shop.example/","domain":"bank.example"}`, "its domain bank.example"},
		{true, "Network.setCookies", `{"cookies":[{"name":"ok","value":"b","url":"http://shop.example/"},{"name":"bad","value":"b","domain":"bank.example"}]}`, "cookie bad: its domain bank.example"},
		{true, "Network.deleteCookies", `{"name":"sid","domain":"bank.example"}`, "its domain bank.example is not the host of a tab"},
		{true, "Network.deleteCookies", `{"name":"sid","domain":"news.example"}`, "its domain news.example is not the host of a tab"},
		{true, "Network.deleteCookies", `{"name":"sid","url":"https://bank.example/"}`, "its url https://bank.example/ is not on a site"},
		{true, "Network.deleteCookies", `{"name":"sid"}`, "on every site"},
		{true, "Network.deleteCookies", `{"name":"sid","url":"https://a.news.example/"}`, "pass"},
		{true, "Network.deleteCookies", `{"name":"sid","domain":"shop.example"}`, "pass"},
		{true, "Page.deleteCookie", `{"cookieName":"sid","url":"https://bank.example/"}`, "is not on a site"},
		{true, "Network.clearBrowserCookies", ``, "would delete the cookies of every site"},
		{true, "Storage.clearCookies", ``, "would delete the cookies of every site"},
		{true, "Storage.getCookies", ``, "then"},

		// Storage, by origin: the tabs' origins, port and scheme included.
		{true, "Storage.clearDataForOrigin", `{"origin":"http://shop.example:8080","storageTypes":"all"}`, "pass"},
		{true, "Storage.clearDataForOrigin", `{"origin":"https://shop.example","storageTypes":"all"}`, "Storage.clearDataForOrigin for https://shop.example refused: the agent reaches the storage of the origins of the tabs it sees only (http://shop.example:8080, https://a.news.example)"},
		{true, "Storage.clearDataForOrigin", `{"origin":"*","storageTypes":"all"}`, "for * refused"},
		{true, "Storage.clearDataForStorageKey", `{"storageKey":"https://a.news.example/","storageTypes":"all"}`, "pass"},
		{true, "Storage.clearDataForStorageKey", `{"storageKey":"https://bank.example/^0https://a.news.example","storageTypes":"all"}`, "refused"},
		{true, "Storage.getUsageAndQuota", `{"origin":"https://bank.example"}`, "refused"},
		{true, "Storage.getStorageKeyForFrame", `{"frameId":"F"}`, "pass"},
		{true, "Storage.getTrustTokens", ``, "the Storage domain reaches past the tab"},
		{true, "Storage.runBounceTrackingMitigations", ``, "reaches past the tab"},
		{true, "IndexedDB.requestDatabaseNames", `{"securityOrigin":"https://bank.example"}`, "refused"},
		{true, "IndexedDB.requestDatabaseNames", `{"storageKey":"https://a.news.example/"}`, "pass"},
		{true, "DOMStorage.getDOMStorageItems", `{"storageId":{"securityOrigin":"https://bank.example","isLocalStorage":true}}`, "refused"},
		{true, "DOMStorage.getDOMStorageItems", `{"storageId":{"storageKey":"http://shop.example:8080/","isLocalStorage":true}}`, "pass"},
		{true, "CacheStorage.requestEntries", `{"cacheId":"https://bank.example/|v1"}`, "refused"},
		{true, "CacheStorage.requestEntries", `{"cacheId":"https://a.news.example/|v1"}`, "pass"},
		{true, "FileSystem.getDirectory", `{"bucketFileSystemLocator":{"storageKey":"https://bank.example/","pathComponents":[]}}`, "refused"},

		// Other origins' data through the page's own network.
		{true, "Network.loadNetworkResource", `{"frameId":"F","url":"https://bank.example/statement","options":{"includeCredentials":true}}`,
			"Network.loadNetworkResource of https://bank.example/statement refused: it reads a resource with the user's cookies, past the page's CORS checks"},
		{true, "Network.loadNetworkResource", `{"frameId":"F","url":"file:///etc/hostname","options":{}}`, "refused"},
		{true, "Network.loadNetworkResource", `{"frameId":"F","url":"http://shop.example:8080/app.js.map","options":{}}`, "pass"},
		{true, "Network.clearBrowserCache", ``, "it empties the cache of every site"},

		// The tab's own domains pass; the ones past it do not.
		{true, "Runtime.evaluate", `{"expression":"1"}`, "pass"},
		{true, "DOM.setFileInputFiles", `{"files":["/tmp/a"],"objectId":"1"}`, "pass"},
		{true, "Input.dispatchMouseEvent", `{}`, "pass"},
		{true, "Tracing.start", `{}`, "pass"},
		{true, "IO.read", `{"handle":"1"}`, "pass"},
		{true, "Page.setDownloadBehavior", `{"behavior":"allow","downloadPath":"/home/u/.config/autostart"}`, "reply"},
		{true, "ServiceWorker.enable", ``, "the ServiceWorker domain reaches past the tab"},
		{true, "Extensions.getStorageItems", `{"id":"x","storageArea":"local"}`, "the Extensions domain reaches past the tab"},
		{true, "PWA.install", `{"manifestId":"x"}`, "reaches past the tab"},
		{true, "Browser.close", ``, "reaches past the tab"},
		{true, "NoSuch.thing", ``, "reaches past the tab"},
		{true, "Target.setAutoAttach", `{"autoAttach":true,"flatten":true}`, "pass"},
		{true, "Target.getTargets", ``, "Target.getTargets is not offered on a page session"},
		{true, "Target.attachToTarget", `{"targetId":"X"}`, "find and attach to the other tabs from a browser session"},
	} {
		got := verdict(p, tc.page, false, tc.method, tc.params)
		if got == tc.want || (len(tc.want) > 6 && strings.Contains(got, tc.want)) {
			continue
		}
		t.Errorf("page=%v %s %s:\n got %q\nwant %q", tc.page, tc.method, tc.params, got, tc.want)
	}
}

func TestCloseIsForTheAgentsTabs(t *testing.T) {
	for _, method := range []string{"Page.close", "Page.crash"} {
		if got := verdict(Policy{}, true, true, method, ``); got != "pass" {
			t.Errorf("%s on the agent's tab: %q", method, got)
		}
		if got := verdict(Policy{}, true, false, method, ``); !strings.Contains(got, "this tab is the user's, shared with the agent, and the coordinator never closes a tab it did not open") {
			t.Errorf("%s on the user's tab: %q", method, got)
		}
	}
}

func TestAllowFiles(t *testing.T) {
	p := Policy{AllowFiles: true, FilesHint: hint}
	for _, tc := range []struct{ method, params, want string }{
		{"Page.navigate", `{"url":"file:///etc/hostname"}`, "pass"},
		{"Target.createTarget", `{"url":"file:///tmp/"}`, "pass"},
		{"Page.navigate", `{"url":"chrome://version"}`, "chrome: URLs reach past"},
	} {
		if got := verdict(p, true, false, tc.method, tc.params); got != tc.want && !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: %q, want %q", tc.method, tc.params, got, tc.want)
		}
	}
	if err := p.CheckFile("file:///etc/hostname"); err != nil {
		t.Errorf("CheckFile with AllowFiles: %v", err)
	}
	err := Policy{FilesHint: hint}.CheckFile("file:///etc/hostname")
	var fe *FileError
	if !errors.As(err, &fe) || fe.URL != "file:///etc/hostname" || err.Error() != "local files (file:// URLs) are closed to the agent; "+hint {
		t.Errorf("CheckFile without AllowFiles: %v", err)
	}
	if err := (Policy{}).CheckFile("https://shop.example/"); err != nil {
		t.Errorf("CheckFile of a web page: %v", err)
	}
}

// Cookie lists keep what the tabs would be sent: host-only cookies of a
// tab's host, domain cookies of a tab's host or a parent of it.
func TestCookieListsAreFiltered(t *testing.T) {
	m := &cdp.Message{ID: json.RawMessage(`3`), SessionID: "S", Method: "Network.getAllCookies"}
	v := Policy{}.Command(Where{Page: true, Tabs: tabs}, m)
	answer := &cdp.Message{ID: m.ID, SessionID: "S", Result: json.RawMessage(`{"cookies":[
		{"name":"cart","domain":"shop.example","value":"1"},
		{"name":"sid","domain":"bank.example","value":"secret"},
		{"name":"pref","domain":".news.example","value":"2"},
		{"name":"host","domain":"news.example","value":"3"},
		{"name":"sub","domain":"b.news.example","value":"4"},
		{"name":"up","domain":".example","value":"5"},
		{"name":"evil","domain":"evilshop.example","value":"6"}
	],"other":true}`)}
	got := v.Then(answer)
	var out struct {
		Cookies []struct{ Name string }
		Other   bool
	}
	if err := json.Unmarshal(got.Result, &out); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range out.Cookies {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "cart,pref,up" || !out.Other || got.SessionID != "S" {
		t.Errorf("kept %v (other fields kept: %v) of %s", names, out.Other, got.Result)
	}
	// An error answer, and an answer with no cookies, stay as they are.
	failed := &cdp.Message{ID: m.ID, Error: &cdp.Error{Code: -32000, Message: "x"}}
	if v.Then(failed) != failed || failed.Error.Message != "x" {
		t.Error("an error answer was changed")
	}
	if got := v.Then(&cdp.Message{ID: m.ID, Result: json.RawMessage(`{}`)}); string(got.Result) != `{"cookies":[]}` {
		t.Errorf("an answer without cookies: %s", got.Result)
	}
	// With no web page among the tabs, no cookie at all.
	none := Policy{}.Command(Where{Tabs: []string{"about:blank"}}, &cdp.Message{ID: m.ID, Method: "Storage.getCookies"})
	if got := none.Then(&cdp.Message{ID: m.ID, Result: answer.Result}); !strings.HasPrefix(string(got.Result), `{"cookies":[]`) {
		t.Errorf("no tab with a web page, yet %s", got.Result)
	}
}

func TestWebOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"http://Shop.Example:80/a":  "http://shop.example",
		"https://shop.example:443/": "https://shop.example",
		"https://shop.example:8443": "https://shop.example:8443",
		"http://[::1]:9000/x":       "http://[::1]:9000",
		"http://127.0.0.2:5000/a?b": "http://127.0.0.2:5000",
		"file:///etc/hostname":      "",
		"about:blank":               "",
		"https:///nohost":           "",
	} {
		got, _, _ := webOrigin(in)
		if got != want {
			t.Errorf("webOrigin(%q) = %q, want %q", in, got, want)
		}
	}
}
