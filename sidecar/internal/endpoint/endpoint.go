// Package endpoint writes the coordinator's CDP endpoints down in one
// place: the proxy serves them (cdpproxy), the state file publishes them
// (state), and wrap and the tools hand them out, all from the proxy's port
// and secret on loopback.
//
//	http://127.0.0.1:PORT/SECRET                    the CDP endpoint ({cdp_endpoint})
//	ws://127.0.0.1:PORT/SECRET/devtools/browser/coordinator   the browser WebSocket ({ws_endpoint}), valid across restarts
//	http://127.0.0.1:PORT                           the control API's base (it has a token of its own)
package endpoint

import "strconv"

// Proxy is a coordinator's proxy: its port, and the secret that is the
// first segment of every path ("" when it serves without one).
type Proxy struct {
	Port   int
	Secret string
}

// redacted stands for the secret in what is shown (logs, status).
const redacted = "<secret>"

func (p Proxy) host() string { return "127.0.0.1:" + strconv.Itoa(p.Port) }

func (p Proxy) prefix() string {
	if p.Secret == "" {
		return ""
	}
	return "/" + p.Secret
}

// Authority is 127.0.0.1:PORT/SECRET: the host and path prefix of every URL
// the proxy hands out (the rewritten webSocketDebuggerUrl and
// devtoolsFrontendUrl of /json answers).
func (p Proxy) Authority() string { return p.host() + p.prefix() }

// Base is http://127.0.0.1:PORT, where the control API answers.
func (p Proxy) Base() string { return "http://" + p.host() }

// HTTP is the CDP endpoint clients are given: http://127.0.0.1:PORT/SECRET.
func (p Proxy) HTTP() string { return p.Base() + p.prefix() }

// BrowserPath is the browser WebSocket path the proxy hands out. Any
// /devtools/browser/<id> reaches whichever browser runs; this one's id is
// the coordinator's own, so that it stays the same across restarts, and it
// has one because clients that replace an endpoint's path (chromedp's
// remote allocator) take a URL as a browser's only when it has an id.
const BrowserPath = "/devtools/browser/coordinator"

// WS is the browser WebSocket that stays valid across browser restarts:
// the proxy maps it to whichever browser runs.
func (p Proxy) WS() string { return "ws://" + p.host() + p.prefix() + BrowserPath }

// Redacted is p with the secret left out, for logs and status.
func (p Proxy) Redacted() Proxy {
	if p.Secret != "" {
		p.Secret = redacted
	}
	return p
}
