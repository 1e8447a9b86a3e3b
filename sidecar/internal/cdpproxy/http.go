package cdpproxy

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// maxRewriteBody bounds the /json bodies read into memory for rewriting; a
// browser with thousands of targets stays far below it.
const maxRewriteBody = 16 << 20

// serveJSON answers /json requests: over CDP for a connection the
// coordinator holds or a WebSocket-only endpoint, forwarded to a TCP
// backend's own /json otherwise.
func (p *Proxy) serveJSON(w http.ResponseWriter, r *http.Request, path string) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyTimeout))
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(w, r.Body, maxRewriteBody)
	}
	for attempt := 1; ; attempt++ {
		b, ok := p.backend(w, r)
		if !ok {
			return
		}
		if p.refuseAgent(w, r, b) || (b.Isolation != nil && p.isolatedJSON(w, r, path, b)) {
			return
		}
		if b.Conn == nil {
			p.serveJSONOn(w, r, path, b)
			return
		}
		// The browser on the coordinator's connection may have just died: a
		// request that meets its end waits for the next one, as a request
		// that came a moment later would.
		err := p.synthesizeJSON(w, r, path, b.Conn, b.Version, attempt == attempts)
		if err == nil {
			return
		}
		p.log.Debug("a /json request met a browser going away; trying the next one", "path", p.shown(r.URL.Path), "err", err)
	}
}

// serveJSONOn answers a /json request for a backend the coordinator reaches
// by address.
func (p *Proxy) serveJSONOn(w http.ResponseWriter, r *http.Request, path string, b Backend) {
	switch {
	case b.Endpoint.NoHTTP:
		ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
		defer cancel()
		if isVersion(path) && b.Endpoint.Product != "" {
			// A service may start a browser for every connection: answer
			// /json/version without one.
			_ = p.synthesizeJSON(w, r, path, nil, cdp.Version{Product: b.Endpoint.Product}, true)
			return
		}
		conn, err := b.Endpoint.Dial(ctx, nil)
		if err != nil {
			http.Error(w, "browser-coordinator: browser not reachable: "+err.Error(), http.StatusBadGateway)
			return
		}
		defer conn.Close()
		_ = p.synthesizeJSON(w, r, path, conn, cdp.Version{Product: b.Endpoint.Product}, true)
	default:
		p.forward(w, r, path, b)
	}
}

// serveFrontend forwards the DevTools frontend's files from a TCP backend
// that serves them.
func (p *Proxy) serveFrontend(w http.ResponseWriter, r *http.Request, path string) {
	b, ok := p.backend(w, r)
	if !ok {
		return
	}
	if b.Conn != nil || b.Endpoint.NoHTTP {
		http.Error(w, "browser-coordinator: this browser serves no DevTools frontend files (it is reached over a pipe or a WebSocket only)", http.StatusNotFound)
		return
	}
	p.forward(w, r, path, b)
}

// forward sends a plain HTTP request to a TCP backend and rewrites the
// browser's address in the answer.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, path string, b Backend) {
	e := b.Endpoint
	out, err := e.Request(r.Context(), r.Method, path, r.URL.RawQuery, r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for k, vs := range r.Header {
		if _, set := out.Header[k]; set || k == "Origin" || k == "Connection" || k == "Keep-Alive" {
			continue // the backend's own headers win
		}
		out.Header[k] = vs
	}
	out.ContentLength = r.ContentLength
	resp, err := e.Do(out)
	if err != nil {
		http.Error(w, "browser-coordinator: browser not reachable: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()

	for k, vs := range resp.Header {
		if k == "Content-Length" || k == "Connection" || k == "Referrer-Policy" {
			continue
		}
		w.Header()[k] = vs
	}
	if !rewritesURLs(path) {
		if resp.ContentLength >= 0 {
			w.Header().Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		return
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRewriteBody+1))
	if err != nil || len(body) > maxRewriteBody {
		http.Error(w, fmt.Sprintf("browser-coordinator: bad answer from the browser for %s", path), http.StatusBadGateway)
		return
	}
	body = RewriteURLs(body, p.proxyHost(r))
	writeJSON(w, resp.StatusCode, body)
}

func writeJSON(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

func isVersion(path string) bool { return strings.TrimSuffix(path, "/") == "/json/version" }

func isList(path string) bool {
	p := strings.TrimSuffix(path, "/")
	return p == "/json" || p == "/json/list"
}

// rewritesURLs: the endpoints whose JSON names WebSocket URLs.
func rewritesURLs(path string) bool {
	switch strings.TrimSuffix(path, "/") {
	case "/json", "/json/list", "/json/version", "/json/new":
		return true
	}
	return false
}

// RewriteURLs points the URL fields of a /json answer at the proxy: the
// webSocketDebuggerUrl becomes ws://<to><its path> (to is the proxy's
// host:port and secret prefix; the browser's query, which may hold a
// service's token, is dropped: the proxy adds it), and the ws= parameter of
// a devtoolsFrontendUrl names <to>. The answer is one object (/json/version,
// /json/new) or an array (/json/list); only those two fields change. A body
// that is not JSON is returned as is.
func RewriteURLs(body []byte, to string) []byte {
	doc := gjson.ParseBytes(body)
	rewrite := func(prefix string, obj gjson.Result) {
		if v := obj.Get("webSocketDebuggerUrl"); v.Type == gjson.String {
			if u, err := url.Parse(v.Str); err == nil && u.Host != "" {
				body, _ = sjson.SetBytes(body, prefix+"webSocketDebuggerUrl", "ws://"+to+u.EscapedPath())
			}
		}
		if v := obj.Get("devtoolsFrontendUrl"); v.Type == gjson.String {
			body, _ = sjson.SetBytes(body, prefix+"devtoolsFrontendUrl", rewriteFrontend(v.Str, to))
		}
	}
	switch {
	case doc.IsArray():
		i := 0
		doc.ForEach(func(_, item gjson.Result) bool {
			if item.IsObject() {
				rewrite(strconv.Itoa(i)+".", item)
			}
			i++
			return true
		})
	case doc.IsObject():
		rewrite("", doc)
	}
	return body
}

// rewriteFrontend points the ws= (or wss=) parameter of a DevTools frontend
// URL at to, keeping its path; a frontend served by the browser itself (a
// path) is reached through the proxy too, under the secret.
func rewriteFrontend(frontend, to string) string {
	if strings.HasPrefix(frontend, "/") {
		if _, prefix, ok := strings.Cut(to, "/"); ok {
			frontend = "/" + prefix + frontend
		}
	}
	for _, key := range []string{"ws=", "wss="} {
		i := strings.Index(frontend, key)
		if i < 0 || (i > 0 && frontend[i-1] != '?' && frontend[i-1] != '&') {
			continue
		}
		start := i + len(key)
		end := strings.IndexByte(frontend[start:], '&')
		if end < 0 {
			end = len(frontend) - start
		}
		value := frontend[start : start+end]
		if slash := strings.IndexByte(value, '/'); slash >= 0 {
			value = value[slash:]
		} else {
			value = ""
		}
		return frontend[:i] + "ws=" + to + value + frontend[start+end:]
	}
	return frontend
}
