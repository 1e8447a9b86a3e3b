package coordinator

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdpproxy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// run is one start of a backend: a Connection the proxy fronts, from its
// start to its shutdown. It owns what it runs: shutdown ends it.
type run struct {
	kind     string // its Source's
	conn     backend.Connection
	proxy    cdpproxy.Backend
	pages    backend.Pages // nil: no tabs the coordinator can follow
	info     state.Browser // as it was when it started
	describe string        // for messages: "chromium (pid 42)", "VS Code's CDP port 41234"
	launches bool          // its Source Launches: stopping it stops a browser process
	launched Options       // what it was started with

	done    chan struct{} // closed when it goes away (on its own or not)
	ended   chan struct{} // closed by shutdown: gone on purpose
	endOnce sync.Once
	watch   sync.WaitGroup // the goroutine that closes done
}

// start brings src's browser up (o: what a launch uses); it runs until it
// is shut down.
func (c *Coordinator) start(ctx context.Context, src *Source, o Options) (*run, error) {
	began := time.Now()
	if src.ConnectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, src.ConnectTimeout)
		defer cancel()
	}
	conn, err := src.Connector.Connect(ctx, o)
	if err != nil {
		return nil, err
	}
	r := &run{
		kind:     src.Kind,
		conn:     conn,
		proxy:    cdpproxy.Backend{Conn: conn.Conn(), Version: conn.Version(), Endpoint: conn.Endpoint()},
		info:     conn.Browser(),
		describe: src.Describe,
		launches: src.Launches,
		launched: o,
	}
	if p, ok := conn.(backend.Pager); ok {
		r.pages = p.Pages()
	} else if conn.Conn() != nil {
		r.pages = followPages(context.Background(), conn.Conn(), nil, false)
	}
	if r.info.PID != 0 {
		r.describe = fmt.Sprintf("%s (pid %d)", r.info.Type, r.info.PID)
	}
	var connDone <-chan struct{}
	if conn.Conn() != nil {
		connDone = conn.Conn().Done()
	}
	r.watchUntil(conn.Done(), connDone)
	c.log.Info("browser running", "backend", r.kind, "browser", r.describe, "version", r.info.Version, "took", time.Since(began).Round(time.Millisecond))
	return r, nil
}

// isGone reports at once whether the backend went away: what its watcher
// learns a moment later (a need must not be handed a dead browser).
func (r *run) isGone() bool {
	chans := []<-chan struct{}{r.done}
	if r.conn != nil {
		chans = append(chans, r.conn.Done())
	}
	if r.proxy.Conn != nil {
		chans = append(chans, r.proxy.Conn.Done())
	}
	for _, ch := range chans {
		select {
		case <-ch:
			return true
		default:
		}
	}
	return false
}

// gone says why the backend went away on its own.
func (r *run) gone() error {
	if e, ok := r.conn.(backend.Explainer); ok {
		return e.Gone()
	}
	return fmt.Errorf("lost the connection to %s; the next need reconnects", r.describe)
}

// watchUntil closes done when gone or also closes (a nil channel never
// does), or when shutdown ends the backend; the goroutine is the backend's.
func (r *run) watchUntil(gone, also <-chan struct{}) {
	r.done, r.ended = make(chan struct{}), make(chan struct{})
	r.watch.Add(1)
	go func() {
		defer r.watch.Done()
		defer close(r.done)
		select {
		case <-gone:
		case <-also:
		case <-r.ended:
		}
	}()
}

// changes receives when what status says of the backend changes (nil: it
// never does).
func (r *run) changes() <-chan struct{} {
	if w, ok := r.conn.(backend.Watcher); ok {
		return w.Changed()
	}
	return nil
}

// release lets go on purpose, before shutdown (see backend.Releaser).
func (r *run) release(ctx context.Context) {
	rel, ok := r.conn.(backend.Releaser)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rel.Release(ctx)
}

// shutdown ends the backend: a launched browser is stopped, an external one
// is only let go. Safe to call twice.
func (r *run) shutdown(ctx context.Context) {
	r.endOnce.Do(func() {
		close(r.ended)
		if r.pages != nil {
			r.pages.Shutdown()
		}
		_ = r.conn.Close(ctx)
		r.watch.Wait()
	})
}

// AttachSource fronts an existing browser at endpoint (http(s) or ws(s)),
// sending header with every request.
func AttachSource(endpoint string, header http.Header) *Source {
	return &Source{
		Kind:           state.BackendAttach,
		Key:            "attach " + endpoint,
		Describe:       "the browser at " + cdp.Redact(endpoint),
		Connector:      attachConnector{url: endpoint, header: header},
		ConnectTimeout: backend.DefaultConnectTimeout,
	}
}

type attachConnector struct {
	url    string
	header http.Header
}

func (a attachConnector) Connect(ctx context.Context, _ Options) (backend.Connection, error) {
	e, err := cdp.Probe(ctx, a.url, a.header)
	if err != nil {
		return nil, err
	}
	// A WebSocket-only endpoint is often a service that starts a browser
	// for every connection: follow its pages only when a tab tool asks.
	return &attached{e: e, url: a.url, pages: followPages(context.Background(), nil, &e, e.NoHTTP)}, nil
}

// attached is a browser at an endpoint. It holds no connection of its own:
// its page follower's says when it is gone.
type attached struct {
	e     cdp.Endpoint
	url   string
	pages *pages
}

func (a *attached) Conn() *cdp.Conn         { return nil }
func (a *attached) Endpoint() *cdp.Endpoint { return &a.e }
func (a *attached) Version() cdp.Version    { return cdp.Version{Product: a.e.Product} }
func (a *attached) Done() <-chan struct{}   { return a.pages.Lost() }
func (a *attached) Close(context.Context) error {
	a.pages.Shutdown()
	return nil
}
func (a *attached) Pages() backend.Pages { return a.pages }
func (a *attached) Browser() state.Browser {
	return state.Browser{Type: state.BackendAttach, Path: cdp.Redact(a.url), Version: backend.ProductVersion(a.e.Product)}
}
