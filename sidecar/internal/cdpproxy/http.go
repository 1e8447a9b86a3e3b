package cdpproxy

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// maxRewriteBody bounds the /json bodies read into memory for rewriting; a
// browser with thousands of targets stays far below it.
const maxRewriteBody = 16 << 20

// forwardHTTP forwards a plain HTTP request (/json/*, DevTools frontend
// files) to the backend and rewrites the browser's address in the answer.
func (p *Proxy) forwardHTTP(w http.ResponseWriter, r *http.Request) {
	b, ok := p.backend(w, r)
	if !ok {
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, "http://"+b.Addr+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for k, vs := range r.Header {
		if k == "Origin" || k == "Connection" || k == "Keep-Alive" {
			continue
		}
		out.Header[k] = vs
	}
	out.ContentLength = r.ContentLength
	resp, err := p.client.Do(out)
	if err != nil {
		http.Error(w, "browser-coordinator: browser not reachable: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()

	for k, vs := range resp.Header {
		if k == "Content-Length" || k == "Connection" {
			continue
		}
		w.Header()[k] = vs
	}
	if !rewritesURLs(r.URL.Path) {
		if resp.ContentLength >= 0 {
			w.Header().Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		return
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRewriteBody+1))
	if err != nil || len(body) > maxRewriteBody {
		http.Error(w, fmt.Sprintf("browser-coordinator: bad answer from the browser for %s", r.URL.Path), http.StatusBadGateway)
		return
	}
	body = RewriteURLs(body, b.Addr, p.proxyHost(r))
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
}

// rewritesURLs: the endpoints whose JSON names WebSocket URLs.
func rewritesURLs(path string) bool {
	switch strings.TrimSuffix(path, "/") {
	case "/json", "/json/list", "/json/version", "/json/new":
		return true
	}
	return false
}

// urlFields are the fields of /json answers that carry the browser's address.
var urlFields = [...]string{"webSocketDebuggerUrl", "devtoolsFrontendUrl"}

// RewriteURLs replaces the browser's address from with to in the URL fields
// of a /json answer: one object (/json/version, /json/new) or an array
// (/json/list). Only those fields change; page URLs and titles that happen to
// contain the address are left alone. A body that is not JSON is returned as is.
func RewriteURLs(body []byte, from, to string) []byte {
	doc := gjson.ParseBytes(body)
	rewrite := func(prefix string, obj gjson.Result) {
		for _, f := range urlFields {
			v := obj.Get(f)
			if v.Type != gjson.String || !strings.Contains(v.Str, from) {
				continue
			}
			if nb, err := sjson.SetBytes(body, prefix+f, strings.ReplaceAll(v.Str, from, to)); err == nil {
				body = nb
			}
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
