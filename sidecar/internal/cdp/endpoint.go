package cdp

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// Endpoint is a browser reached over TCP: a browser's debugging port, VS
// Code's, a remote browser service.
type Endpoint struct {
	Addr   string      // host:port to dial; also the Host header the browser gets
	TLS    bool        // https:// and wss:// (a remote browser service)
	WSPath string      // the browser endpoint, "/devtools/browser/<guid>", with its query if any
	Query  string      // a query the endpoint needs on every request (e.g. token=...)
	Header http.Header // headers the endpoint needs on every request (e.g. Authorization)
	// NoHTTP: a bare ws:// endpoint without /json (a browser service); the
	// proxy answers /json itself.
	NoHTTP bool
	// Product is what /json/version or Browser.getVersion said.
	Product string

	TLSConfig *tls.Config // tests: trust a test server's certificate
}

// ErrUnreachable marks an endpoint that does not answer.
var ErrUnreachable = errors.New("CDP endpoint unreachable")

// Probe checks that an endpoint answers and says how to reach it: an
// http(s) endpoint through /json/version, a ws(s) endpoint by opening it
// and asking Browser.getVersion. Credentials in the URL (user:password@)
// become a Basic Authorization header.
func Probe(ctx context.Context, endpoint string, header http.Header) (Endpoint, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return Endpoint{}, fmt.Errorf("%q is not a CDP endpoint URL: use http(s)://HOST:PORT or ws(s)://HOST:PORT/PATH", Redact(endpoint))
	}
	if header, err = withUserInfo(u, header); err != nil {
		return Endpoint{}, err
	}
	e := Endpoint{Addr: hostPort(u), Header: header, Query: u.RawQuery}
	switch u.Scheme {
	case "http", "https":
		e.TLS = u.Scheme == "https"
		var v struct {
			Browser string `json:"Browser"`
			WS      string `json:"webSocketDebuggerUrl"`
		}
		if err := e.GetJSON(ctx, strings.TrimSuffix(u.Path, "/")+"/json/version", &v); err != nil {
			return e, fmt.Errorf("%w: %s: %v", ErrUnreachable, Redact(endpoint), err)
		}
		ws, err := url.Parse(v.WS)
		if err != nil || ws.Path == "" {
			return e, fmt.Errorf("%w: %s answered /json/version without a webSocketDebuggerUrl", ErrUnreachable, Redact(endpoint))
		}
		// The browser may name an address of its own (0.0.0.0, a container's
		// name): only its path counts; the address is the one we reach.
		e.WSPath, e.Product = ws.RequestURI(), v.Browser
		return e, nil
	case "ws", "wss":
		e = wsEndpointOf(u, header)
		conn, err := e.Dial(ctx, nil)
		if err != nil {
			return e, fmt.Errorf("%w: %s: %v", ErrUnreachable, Redact(endpoint), err)
		}
		defer conn.Close()
		v, err := GetVersion(ctx, conn)
		if err != nil {
			return e, fmt.Errorf("%w: %s: %v", ErrUnreachable, Redact(endpoint), err)
		}
		e.Product = v.Product
		return e, nil
	}
	return e, fmt.Errorf("%q: unsupported scheme %q: use http://, https://, ws:// or wss://", Redact(endpoint), u.Scheme)
}

// wsEndpoint is a bare ws(s):// URL as an Endpoint.
func wsEndpoint(wsURL string, header http.Header) (Endpoint, error) {
	u, err := url.Parse(wsURL)
	if err != nil || u.Host == "" || (u.Scheme != "ws" && u.Scheme != "wss") {
		return Endpoint{}, fmt.Errorf("%q is not a CDP WebSocket URL: use ws(s)://HOST:PORT/devtools/browser/ID or a page's", Redact(wsURL))
	}
	if header, err = withUserInfo(u, header); err != nil {
		return Endpoint{}, err
	}
	return wsEndpointOf(u, header), nil
}

func wsEndpointOf(u *url.URL, header http.Header) Endpoint {
	return Endpoint{Addr: hostPort(u), TLS: u.Scheme == "wss", NoHTTP: true, WSPath: u.RequestURI(), Header: header}
}

// withUserInfo turns the URL's user:password into a Basic Authorization
// header (added to a copy of header).
func withUserInfo(u *url.URL, header http.Header) (http.Header, error) {
	if u.User == nil {
		return header, nil
	}
	if header.Get("Authorization") != "" {
		return nil, fmt.Errorf("%s: both user:password in the URL and an Authorization header: give one of them", Redact(u.String()))
	}
	pass, _ := u.User.Password()
	header = header.Clone()
	if header == nil {
		header = http.Header{}
	}
	header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass)))
	return header, nil
}

// redactErr takes credentials out of the URL net/http's errors carry
// (Get "https://…?token=…": …), so that they reach no log, status or client.
func redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = Redact(ue.URL)
	}
	return err
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" || u.Scheme == "wss" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Redact drops credentials (user info, the query) from a URL for logs and status.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	return u.String()
}

// DialTCP opens a connection to the endpoint, through TLS when it wants it.
func (e Endpoint) DialTCP(ctx context.Context) (net.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if _, ok := ctx.Deadline(); ok {
		d.Timeout = 0 // the caller's deadline bounds the dial
	}
	if !e.TLS {
		return d.DialContext(ctx, "tcp", e.Addr)
	}
	cfg := e.TLSConfig
	if cfg == nil {
		host, _, _ := net.SplitHostPort(e.Addr)
		cfg = &tls.Config{ServerName: host}
	}
	return (&tls.Dialer{NetDialer: d, Config: cfg}).DialContext(ctx, "tcp", e.Addr)
}

// Target is the path and query a request for path (which may carry the
// endpoint's own query, as WSPath does) goes to: the client's query, and
// the endpoint's Query unless the path already has one.
func (e Endpoint) Target(path, clientQuery string) (string, string) {
	path, query, _ := strings.Cut(path, "?")
	if query == "" {
		query = e.Query
	}
	if clientQuery != "" {
		if query != "" {
			query += "&"
		}
		query += clientQuery
	}
	return path, query
}

// BrowserURL is the endpoint's browser WebSocket URL.
func (e Endpoint) BrowserURL() string {
	scheme := "ws://"
	if e.TLS {
		scheme = "wss://"
	}
	return scheme + e.Addr + e.WSPath
}

// DialWS opens a WebSocket to the endpoint's browser. The handshake ends
// with ctx's deadline, or after 10 s when ctx has none (a proxy that
// launches a browser first answers later: give the context the time).
func (e Endpoint) DialWS(ctx context.Context) (*websocket.Conn, error) {
	d := websocket.Dialer{
		NetDialContext:   func(ctx context.Context, _, _ string) (net.Conn, error) { return e.DialTCP(ctx) },
		HandshakeTimeout: 10 * time.Second,
		ReadBufferSize:   64 << 10,
		WriteBufferSize:  64 << 10,
	}
	if deadline, ok := ctx.Deadline(); ok {
		d.HandshakeTimeout = time.Until(deadline)
	}
	if e.TLS {
		// The TLS handshake is done by DialTCP; the dialer must not add one.
		d.NetDialTLSContext, d.NetDialContext = d.NetDialContext, nil
	}
	ws, resp, err := d.DialContext(ctx, e.BrowserURL(), e.Header.Clone())
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("%s answered %s", Redact(e.BrowserURL()), resp.Status)
		}
		return nil, fmt.Errorf("connect to %s: %w", Redact(e.BrowserURL()), redactErr(err))
	}
	return ws, nil
}

// Dial opens a connection to the endpoint's browser.
func (e Endpoint) Dial(ctx context.Context, onEvent func(Message)) (*Conn, error) {
	ws, err := e.DialWS(ctx)
	if err != nil {
		return nil, err
	}
	return NewConn(WebSocket(ws), Options{OnEvent: onEvent}), nil
}

// httpClient sends every HTTP request to an endpoint. It is shared: browsers
// keep connections alive, and a client per request would leak them.
var httpClient = &http.Client{
	Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second},
	// The browser never redirects /json; a redirect would leak its address.
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       30 * time.Second,
}

// Request builds a request for path (and the client's query) on the
// endpoint, with the endpoint's query and headers.
func (e Endpoint) Request(ctx context.Context, method, path, query string, body io.Reader) (*http.Request, error) {
	scheme := "http://"
	if e.TLS {
		scheme = "https://"
	}
	path, query = e.Target(path, query)
	uri := scheme + e.Addr + path
	if query != "" {
		uri += "?" + query
	}
	req, err := http.NewRequestWithContext(ctx, method, uri, body)
	if err != nil {
		return nil, redactErr(err)
	}
	for k, vs := range e.Header {
		req.Header[k] = vs
	}
	return req, nil
}

// Do sends a request built by Request. Its error does not show the
// endpoint's query.
func (e Endpoint) Do(req *http.Request) (*http.Response, error) {
	client := httpClient
	if e.TLSConfig != nil {
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: e.TLSConfig, DisableKeepAlives: true}, CheckRedirect: httpClient.CheckRedirect, Timeout: httpClient.Timeout}
	}
	resp, err := client.Do(req)
	return resp, redactErr(err)
}

// GetJSON asks the endpoint for path (e.g. /json/version) and decodes the
// answer into v.
func (e Endpoint) GetJSON(ctx context.Context, path string, v any) error {
	req, err := e.Request(ctx, http.MethodGet, path, "", nil)
	if err != nil {
		return err
	}
	resp, err := e.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", path, resp.Status)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(v)
}

// Version is a browser's Browser.getVersion answer.
type Version struct {
	ProtocolVersion string `json:"protocolVersion"`
	Product         string `json:"product"` // "HeadlessChrome/156.0.8078.79"
	Revision        string `json:"revision"`
	UserAgent       string `json:"userAgent"`
	JSVersion       string `json:"jsVersion"`
}

// GetVersion asks the browser on c what it is.
func GetVersion(ctx context.Context, c Caller) (Version, error) {
	var v Version
	res, err := c.Call(ctx, "", "Browser.getVersion", nil)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(res, &v); err != nil {
		return v, fmt.Errorf("Browser.getVersion: %w", err)
	}
	return v, nil
}
