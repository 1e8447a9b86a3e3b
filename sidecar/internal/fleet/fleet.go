// Package fleet is a remote browser service as a backend: Browserless (v2,
// self-hosted or browserless.io), where every WebSocket to the service is
// a browser of its own, started when it connects and ended when it closes.
//
// A start opens one such session and the coordinator holds it: every
// client of the proxy gets a browser session of its own on it, as on a
// launched browser's pipe, so the agent's page tools and its child MCP
// drive the same browser. Nothing is opened before the first need (no
// probe: on a metered fleet a session is billed), a stop or the
// coordinator's exit closes it (the service ends the browser and frees
// the slot), a restart opens a new one.
//
// A fleet has limits: CONCURRENT sessions run, QUEUED more wait for a
// slot, any more are refused (429). A start says which it met — at
// capacity, queued, unreachable — in words and as errors callers can test
// (ErrAtCapacity, ErrQueued, backend.ErrUnreachable).
package fleet

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// TokenEnv is the environment variable the service's token comes from:
// never a flag (a command line is readable by every user) or a file.
const TokenEnv = "BROWSERLESS_TOKEN"

// Defaults of Config.
const (
	// DefaultStartTimeout bounds a start, a wait in the service's queue
	// included: a fleet starts a browser for the session (seconds on a busy
	// one), and a full one queues it until a slot frees.
	DefaultStartTimeout = 2 * time.Minute
)

// Errors callers branch on.
var (
	// ErrAtCapacity: the service refused the session, its sessions and its
	// queue all taken (429).
	ErrAtCapacity = errors.New("the browser service is at capacity")
	// ErrQueued: the start gave up while the service still held the session
	// in its queue.
	ErrQueued = errors.New("the session is still queued at the browser service")
)

// Config is one service.
type Config struct {
	// URL is the service: http(s)://HOST[:PORT][/PATH] or the same with
	// ws(s)://. The path is its route for a Chromium session ("/" and
	// "/chromium" on Browserless v2); its query, if any, is sent as given.
	URL string
	// Token is the service's token (from TokenEnv), sent as a bearer token
	// on every request; "" for a service without one.
	Token string
	// StartTimeout bounds one start, the service's queue included; 0 means
	// DefaultStartTimeout.
	StartTimeout time.Duration
	// Session is how long the service may keep a session (Browserless's
	// timeout); 0 asks for no limit of its own (unless the URL's query
	// asks for one): the session lasts until the coordinator closes it, or
	// until the service's own cap (browserless.io's plans have one).
	Session time.Duration
}

// service is a Config checked and taken apart.
type service struct {
	e     cdp.Endpoint // the WebSocket route (WSPath) and the HTTP API, with the token
	shown string       // the URL for messages: no credentials, no query
}

func parse(cfg Config) (service, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Host == "" {
		return service{}, fmt.Errorf("%q is not a browser service URL: use https://HOST[:PORT][/PATH] (or wss://)", cdp.Redact(cfg.URL))
	}
	if u.User != nil || hasCredential(u.Query()) {
		return service{}, fmt.Errorf("the browser service URL %s carries a credential; a command line is readable by every user of this machine: "+
			"remove it from the URL and put the token in the environment variable %s", cdp.Redact(cfg.URL), TokenEnv)
	}
	var tls bool
	switch u.Scheme {
	case "https", "wss":
		tls = true
	case "http", "ws":
	default:
		return service{}, fmt.Errorf("the browser service URL %s has scheme %q: use https://, http://, wss:// or ws://", cdp.Redact(cfg.URL), u.Scheme)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	q := u.Query()
	if cfg.Session > 0 || !q.Has("timeout") {
		q.Set("timeout", strconv.FormatInt(cfg.Session.Milliseconds(), 10))
	}
	header := http.Header{}
	if cfg.Token != "" {
		header.Set("Authorization", "Bearer "+cfg.Token)
	}
	shown := *u
	shown.RawQuery, shown.Fragment = "", ""
	return service{
		e:     cdp.Endpoint{Addr: hostPort(u, tls), TLS: tls, WSPath: path + "?" + q.Encode(), Header: header},
		shown: shown.String(),
	}, nil
}

// hasCredential: a query that carries a token or a key.
func hasCredential(q url.Values) bool {
	for k := range q {
		switch k := strings.ToLower(k); {
		case k == "token", strings.Contains(k, "key"), strings.Contains(k, "secret"), strings.Contains(k, "password"):
			return true
		}
	}
	return false
}

func hostPort(u *url.URL, tls bool) string {
	if u.Port() != "" {
		return u.Host
	}
	if tls {
		return u.Host + ":443"
	}
	return u.Host + ":80"
}

// Source is the service as the coordinator's backend: brought up at the
// first need, a session per start.
func Source(cfg Config) (*backend.Source, error) {
	s, err := parse(cfg)
	if err != nil {
		return nil, err
	}
	timeout := cfg.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	return &backend.Source{
		Kind:           state.BackendService,
		Key:            "service " + cfg.URL,
		Describe:       "the browser service at " + s.shown,
		Connector:      &connector{s: s, timeout: timeout},
		Lazy:           true,
		ConnectTimeout: timeout,
	}, nil
}
