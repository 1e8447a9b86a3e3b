package cdpproxy

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// synthesizeJSON answers /json requests over CDP, the way Chromium's own
// HTTP handler would: for a browser on a pipe (which serves no HTTP) and a
// WebSocket-only service. conn may be nil for /json/version when product
// is known. Unless last, a connection that closed under the request is
// answered nothing and returned, for the caller to try the next backend.
func (p *Proxy) synthesizeJSON(w http.ResponseWriter, r *http.Request, path string, conn *cdp.Conn, v cdp.Version, last bool) error {
	host := p.proxyHost(r)
	path = strings.TrimSuffix(path, "/")
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	var body any
	var err error
	switch {
	case path == "/json/version":
		if conn != nil && v.UserAgent == "" {
			var asked cdp.Version
			if asked, err = cdp.GetVersion(ctx, conn); err == nil {
				v = asked
			}
		}
		body = map[string]string{
			"Browser": v.Product, "Protocol-Version": cmp.Or(v.ProtocolVersion, "1.3"), "User-Agent": v.UserAgent,
			"V8-Version": v.JSVersion, "WebKit-Version": v.Revision, "webSocketDebuggerUrl": "ws://" + host + BrowserPath,
		}
	case conn == nil:
		err = fmt.Errorf("%s needs a connection to the browser", path)
	case path == "/json" || path == "/json/list":
		var res json.RawMessage
		if res, err = conn.Call(ctx, "", "Target.getTargets", nil); err != nil {
			break
		}
		var got struct{ TargetInfos []cdp.Target }
		_ = json.Unmarshal(res, &got)
		list := make([]map[string]string, 0, len(got.TargetInfos))
		for _, t := range got.TargetInfos {
			if t.Type == "browser" || t.Type == "tab" {
				continue // not targets a client connects to by URL
			}
			list = append(list, listEntry(t, host))
		}
		body = list
	case path == "/json/new":
		if r.Method != http.MethodPut {
			http.Error(w, "browser-coordinator: /json/new needs PUT, as in Chromium", http.StatusMethodNotAllowed)
			return nil
		}
		u := firstOr(r.URL.RawQuery, "about:blank")
		var res json.RawMessage
		if res, err = conn.Call(ctx, "", "Target.createTarget", map[string]any{"url": u}); err != nil {
			break
		}
		var created struct{ TargetID string }
		_ = json.Unmarshal(res, &created)
		body = listEntry(cdp.Target{ID: created.TargetID, Type: "page", URL: u}, host)
	case strings.HasPrefix(path, "/json/activate/"):
		if _, err = conn.Call(ctx, "", "Target.activateTarget", map[string]string{"targetId": strings.TrimPrefix(path, "/json/activate/")}); err == nil {
			fmt.Fprint(w, "Target activated")
		}
	case strings.HasPrefix(path, "/json/close/"):
		if _, err = conn.Call(ctx, "", "Target.closeTarget", map[string]string{"targetId": strings.TrimPrefix(path, "/json/close/")}); err == nil {
			fmt.Fprint(w, "Target is closing")
		}
	case path == "/json/protocol":
		http.Error(w, "browser-coordinator: /json/protocol is not available: this browser is reached over a pipe or a WebSocket only, and CDP has no command that returns the protocol; "+
			"see https://chromedevtools.github.io/devtools-protocol/ or the devtools-protocol npm package", http.StatusNotFound)
		return nil
	default:
		http.Error(w, "browser-coordinator: "+path+" is not a /json endpoint", http.StatusNotFound)
		return nil
	}
	switch {
	case err != nil && !last && errors.Is(err, cdp.ErrClosed) && r.Context().Err() == nil && !namesTarget(path):
		return err
	case err != nil && refused(err) && (namesTarget(path) || path == "/json/new"):
		http.Error(w, "browser-coordinator: "+err.Error(), http.StatusForbidden)
	case err != nil:
		http.Error(w, "browser-coordinator: "+err.Error(), http.StatusBadGateway)
	case body != nil:
		data, _ := json.Marshal(body)
		writeJSON(w, http.StatusOK, data)
	}
	return nil
}

// refused: the backend's policy answered no (its refusals are the
// coordinator's words), as opposed to a browser that failed or went away.
func refused(err error) bool {
	var e *cdp.Error
	return errors.As(err, &e) && strings.HasPrefix(e.Message, "browser-coordinator: ")
}

// namesTarget: path acts on a target of the browser (a browser that went
// away took it along: trying the next one cannot help).
func namesTarget(path string) bool {
	return strings.HasPrefix(path, "/json/activate/") || strings.HasPrefix(path, "/json/close/")
}

// listEntry is a /json/list entry for t, reached through the proxy.
func listEntry(t cdp.Target, host string) map[string]string {
	return map[string]string{
		"description": "", "id": t.ID, "title": t.Title, "type": t.Type, "url": t.URL,
		"devtoolsFrontendUrl":  "devtools://devtools/bundled/inspector.html?ws=" + host + "/devtools/page/" + t.ID,
		"webSocketDebuggerUrl": "ws://" + host + "/devtools/page/" + t.ID,
	}
}

// firstOr is /json/new's page: Chromium takes the whole query as the URL.
func firstOr(rawQuery, def string) string {
	if rawQuery == "" {
		return def
	}
	if u, err := url.QueryUnescape(rawQuery); err == nil {
		return u
	}
	return rawQuery
}
