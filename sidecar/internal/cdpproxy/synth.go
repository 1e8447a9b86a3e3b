package cdpproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// synthesizeJSON answers /json requests for a backend that has only a
// WebSocket (wss://… of a browser service): over CDP, the way Chromium's own
// HTTP handler would.
func (p *Proxy) synthesizeJSON(w http.ResponseWriter, r *http.Request, b Backend) {
	host := p.proxyHost(r)
	path := strings.TrimSuffix(r.URL.Path, "/")
	if path == "/json/version" && b.Product != "" {
		data, _ := json.Marshal(map[string]string{"Browser": b.Product, "webSocketDebuggerUrl": "ws://" + host + "/devtools/browser"})
		writeJSON(w, http.StatusOK, data)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	conn, err := b.DialCDP(ctx, nil)
	if err != nil {
		http.Error(w, "browser-coordinator: browser not reachable: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer conn.Close()
	var body any
	switch {
	case path == "/json/version":
		res, err := conn.Call(ctx, "", "Browser.getVersion", nil)
		if err != nil {
			break
		}
		var v struct{ ProtocolVersion, Product, UserAgent, JsVersion string }
		_ = json.Unmarshal(res, &v)
		body = map[string]string{
			"Browser": v.Product, "Protocol-Version": v.ProtocolVersion, "User-Agent": v.UserAgent, "V8-Version": v.JsVersion,
			"webSocketDebuggerUrl": "ws://" + host + "/devtools/browser",
		}
	case path == "/json" || path == "/json/list":
		var res json.RawMessage
		if res, err = conn.Call(ctx, "", "Target.getTargets", nil); err != nil {
			break
		}
		var got struct{ TargetInfos []targetInfo }
		_ = json.Unmarshal(res, &got)
		list := make([]map[string]string, 0, len(got.TargetInfos))
		for _, t := range got.TargetInfos {
			list = append(list, listEntry(t, host))
		}
		body = list
	case path == "/json/new":
		var res json.RawMessage
		if res, err = conn.Call(ctx, "", "Target.createTarget", map[string]any{"url": firstOr(r.URL.RawQuery, "about:blank")}); err != nil {
			break
		}
		var created struct{ TargetID string }
		_ = json.Unmarshal(res, &created)
		body = listEntry(targetInfo{TargetID: created.TargetID, Type: "page", URL: firstOr(r.URL.RawQuery, "about:blank")}, host)
	case strings.HasPrefix(path, "/json/activate/"):
		if _, err = conn.Call(ctx, "", "Target.activateTarget", map[string]string{"targetId": strings.TrimPrefix(path, "/json/activate/")}); err == nil {
			fmt.Fprint(w, "Target activated")
		}
	case strings.HasPrefix(path, "/json/close/"):
		if _, err = conn.Call(ctx, "", "Target.closeTarget", map[string]string{"targetId": strings.TrimPrefix(path, "/json/close/")}); err == nil {
			fmt.Fprint(w, "Target is closing")
		}
	default:
		http.Error(w, "browser-coordinator: "+r.URL.Path+" is not available from a WebSocket-only endpoint", http.StatusNotFound)
		return
	}
	switch {
	case err != nil:
		http.Error(w, "browser-coordinator: "+err.Error(), http.StatusBadGateway)
	case body != nil:
		data, _ := json.Marshal(body)
		writeJSON(w, http.StatusOK, data)
	}
}

type targetInfo struct {
	TargetID string `json:"targetId"`
	Type     string `json:"type"`
	Title    string `json:"title"`
	URL      string `json:"url"`
}

func listEntry(t targetInfo, host string) map[string]string {
	return map[string]string{
		"description": "", "id": t.TargetID, "title": t.Title, "type": t.Type, "url": t.URL,
		"devtoolsFrontendUrl":  "/devtools/inspector.html?ws=" + host + "/devtools/page/" + t.TargetID,
		"webSocketDebuggerUrl": "ws://" + host + "/devtools/page/" + t.TargetID,
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
