// Package everyday is the coordinator's side of the everyday browser: the
// user's own browser, reached through the Browser Coordinator extension and
// its native host (see nativehost), presented as a CDP browser connection.
//
// Conn behaves like Chromium's --remote-debugging-pipe for what the
// coordinator's CDP core and the clients behind its proxy send: whole CDP
// messages in (WriteMessage) and out (ReadMessage). Behind it there is no
// browser endpoint, only chrome.debugger on single tabs, so Conn runs a
// virtual browser (cdp.Virtual, whose TabHost it is): browser sessions (the root one and one per
// Target.attachToBrowserTarget), each with its own discovery and
// auto-attach settings; tab and page targets for the tabs this coordinator
// may see (the ones it opened and the ones the user shared with it); page
// sessions that map to the extension's one chrome.debugger attachment per
// tab. Browser-level calls chrome.debugger does not offer are answered the
// way Playwright MCP's own extension relay answers them, or refused with a
// CDP error that says why (Browser.close never reaches the user's browser).
//
// Every command passes the reach policy first (package reach, an
// allowlist): a client reaches the tabs it sees and nothing else — cookies
// and storage only of those tabs' sites, no local files (unless
// Options.Reach allows them), none of the browser's own pages. A tab a
// page session creates (Target.createTarget) is opened through the
// extension, as the agent's: CloseAgentTabs closes it with the others.
//
// The virtual browser outlives the extension: when it disconnects (browser
// quit, extension reloaded, service worker stopped) every tab target is
// destroyed and every page session detached, calls get an error naming the
// cause, and Status says so; when a native host announces itself again Conn
// reconnects by itself and the tabs come back as new targets, auto-attached
// where a session asked for it, in the order they were active before (the
// tab in front last, as a tab follower takes the last new target for the
// tab in front). Browser sessions stay valid throughout.
//
// The tab in front: CDP has no event for a tab the browser brings to the
// front (the user clicked it), so Conn says it for the tabs it sees
// (Activations, Active); the coordinator's tab follower reads it.
//
// The way to the extension: the native host (which Chrome starts for the
// extension, and which coordinators find through its announcement)
// carries the handshake; the conversation itself goes over a channel the
// coordinator offers in its hello and the extension opens, a WebSocket on
// 127.0.0.1 (channel.go says who may open it and how each side proves
// itself); through the host only when the extension cannot open it.
// Messages travel as the bytes they are: a CDP event or answer from the
// extension is passed to the virtual browser as a slice of what came, and a
// command goes out as its client's parameters, never decoded and encoded
// again on the way (the virtual browser and the reach policy read each
// command once, before). What is written while the writer is busy goes out
// together in its next write (link.go).
//
// Several page sessions on one tab (two clients in the same tab) share the
// extension's one debugger session there, so Conn makes them look apart
// where it matters: a domain one of them disables stays on while another
// uses it, and a later session's Runtime.enable (or page-level
// Target.setAutoAttach) hears of the execution contexts (or the iframes and
// workers) that exist, as the browser reports them only once. What stays
// shared: each sees the events of the domains any of them enabled.
package everyday

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/reach"
	"github.com/fsnotify/fsnotify"
)

// Options configure a Conn.
type Options struct {
	StateDir string // the per-user state folder (state.DefaultDir); hosts announce themselves below it
	Folder   string // the workspace this coordinator serves, shown in the extension's popup
	Version  string // this binary's version
	// Reach is what the clients may do through the tabs (see package
	// reach); its zero value keeps local files closed.
	Reach  reach.Policy
	Logger *slog.Logger
}

// Status is what a Conn can say about the user's browser.
type Status struct {
	Connected bool
	Browser   nativemsg.Browser
	Extension nativemsg.Extension
	HostPID   int
	Tabs      int // tabs this coordinator sees
	// Reason says why it is not connected: no host yet, the extension
	// disconnected, a protocol mismatch, or busy: it has not answered yet.
	Reason string
	busy   bool // the host is there; the extension has not answered yet
}

// ErrClosed is returned by ReadMessage and WriteMessage after Close.
var ErrClosed = errors.New("everyday connection closed")

// ErrBusy is the error of WaitConnected when the extension is there (its
// native host answered) but has not answered this coordinator yet: it is
// busy, not gone.
var ErrBusy = errors.New("the browser extension is busy")

// Conn is the user's browser, through the extension, as a CDP browser
// connection. Safe for concurrent use; ReadMessage has one reader.
//
// Its state has one owner: mu guards the Conn's fields below it and its
// link's (link.go), and nothing else is shared between its goroutines (the
// connection loop, a link's readers and writer, the calls run for
// clients). The virtual browser keeps its own.
type Conn struct {
	o   Options
	log *slog.Logger
	ch  *channels // where the extension opens its channel

	mu      sync.Mutex
	closed  bool
	link    *link // nil while disconnected
	status  Status
	tabs    tabState // what the extension says of the tabs beyond the virtual browser (tabs.go)
	changes chan struct{}
	b       *cdp.Virtual
	// activations signals (coalesced) that the browser brought one of
	// this coordinator's tabs to the front (Active says which).
	activations chan struct{}

	stop context.CancelFunc
	done chan struct{}
	wg   sync.WaitGroup // the connection loop and the calls running for clients
}

// Open starts a Conn. It returns at once: the Conn connects whenever a
// native host (a browser with the extension) is there, and again after it
// went away, until Close.
func Open(o Options) (*Conn, error) {
	if o.StateDir == "" {
		return nil, errors.New("everyday: no state folder given (use state.DefaultDir)")
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	dir := nativemsg.Dir(o.StateDir)
	if err := nativemsg.EnsureDir(dir); err != nil {
		return nil, err
	}
	ch, err := listenChannels(log.With("component", "everyday"))
	if err != nil {
		return nil, fmt.Errorf("listen for the browser extension's channel on 127.0.0.1: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		o:       o,
		ch:      ch,
		log:     log.With("component", "everyday"),
		changes: make(chan struct{}, 1),
		stop:    cancel,
		done:    make(chan struct{}),
		status:  Status{Reason: "waiting for the browser: open it with the Browser Coordinator extension installed"},

		activations: make(chan struct{}, 1),
	}
	c.b = c.newVirtual()
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		cancel()
		ch.close()
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	if err := watcher.Add(dir); err != nil {
		watcher.Close()
		cancel()
		ch.close()
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	c.wg.Go(ch.serve)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer watcher.Close()
		c.run(ctx, dir, watcher)
	}()
	return c, nil
}

// ReadMessage returns the next answer or event (what the virtual browser
// says); ErrClosed after Close.
func (c *Conn) ReadMessage() ([]byte, error) {
	msg, err := c.b.ReadMessage()
	if err != nil {
		return nil, ErrClosed
	}
	hop(hopMessageOut, msg)
	return msg, nil
}

// WriteMessage takes one CDP command. Its answer, and the events it causes,
// come from ReadMessage. A command that is not CDP gets an error answer.
func (c *Conn) WriteMessage(ctx context.Context, msg []byte) error {
	hop(hopCommandIn, msg)
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	c.b.Command(msg)
	return nil
}

// Close lets go of the user's browser: detaches from its tabs and
// disconnects. The browser and its tabs stay as they are.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	l := c.link
	c.mu.Unlock()
	c.b.Close() // what waits for ReadMessage is read, then ErrClosed
	c.stop()
	if l != nil {
		l.fail(ErrClosed) // the host tells the extension, which detaches this client's tabs
	}
	c.ch.close()
	c.wg.Wait()
	close(c.done)
	return nil
}

// Done is closed once Close has finished.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Status says whether the user's browser is connected, and which.
func (c *Conn) Status() Status {
	c.mu.Lock()
	s := c.status
	c.mu.Unlock()
	s.Tabs = c.b.TabCount() // after unlocking: the browser's lock is never taken inside the Conn's
	return s
}

// Changes receives (coalesced) after every change of Status.
func (c *Conn) Changes() <-chan struct{} { return c.changes }

// WaitConnected waits until the extension is connected or ctx ends. When
// it ends while the extension is there but has not answered yet, the error
// is ErrBusy.
func (c *Conn) WaitConnected(ctx context.Context) error {
	for {
		s := c.Status()
		if s.Connected {
			return nil
		}
		select {
		case <-c.changes:
		case <-ctx.Done():
			if s.busy {
				return fmt.Errorf("%w: %s (%w)", ErrBusy, s.Reason, ctx.Err())
			}
			return fmt.Errorf("the browser extension did not connect (%s): %w", s.Reason, ctx.Err())
		case <-c.done:
			return ErrClosed
		}
	}
}

// Activations receives (coalesced) each time the browser brings a tab
// this coordinator sees to the front: the user clicked it, or focusTab.
// CDP has no event for that; Active says which tab it is.
func (c *Conn) Activations() <-chan struct{} { return c.activations }

// Active is the page target id of the tab the browser brought to the front
// last, among the tabs this coordinator sees; "" when none (or that tab
// is gone).
func (c *Conn) Active() string { return c.b.Active() }

func (c *Conn) activated() {
	select {
	case c.activations <- struct{}{}:
	default:
	}
}

func (c *Conn) notify() {
	select {
	case c.changes <- struct{}{}:
	default:
	}
}

func (c *Conn) currentLink() *link {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.link
}

// run connects to the newest live host, serves it until it goes, and waits
// for the next, until ctx ends.
func (c *Conn) run(ctx context.Context, dir string, w *fsnotify.Watcher) {
	me := nativemsg.Coordinator{Folder: c.o.Folder, PID: os.Getpid(), Version: c.o.Version}
	tried := map[int]bool{} // hosts that refused us: not retried until they announce again
	for ctx.Err() == nil {
		var l *link
		var lastErr error
		for _, h := range nativemsg.LiveHosts(dir) {
			if tried[h.PID] {
				continue
			}
			o := c.ch.offer(h.Extension.ID)
			var err error
			if l, err = c.dialLink(h.Socket, me, o); err == nil {
				break
			}
			c.ch.withdraw(o)
			tried[h.PID] = true
			if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
				// A host on its way out (its browser closed): not worth a word.
				c.log.Debug("a native host that is going away", "pid", h.PID, "err", err)
				continue
			}
			lastErr = err
			c.log.Warn("cannot use a native host", "pid", h.PID, "err", err)
		}
		if l == nil {
			if lastErr != nil {
				c.setStatus(Status{Reason: lastErr.Error()})
			}
			if !c.waitForHost(ctx, w, tried) {
				return
			}
			continue
		}
		clear(tried)
		c.serve(ctx, l)
	}
}

// waitForHost blocks until an announcement appears or changes.
func (c *Conn) waitForHost(ctx context.Context, w *fsnotify.Watcher, tried map[int]bool) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case ev := <-w.Events:
			if nativemsg.IsHostFileName(filepath.Base(ev.Name)) && ev.Has(fsnotify.Create|fsnotify.Write|fsnotify.Rename) {
				clear(tried)
				return true
			}
		case err := <-w.Errors:
			c.log.Debug("watch for native hosts", "err", err)
		}
	}
}

// serve runs one link: connect, then the extension's messages into the
// virtual browser until the link ends.
func (c *Conn) serve(ctx context.Context, l *link) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		l.fail(ErrClosed)
		return
	}
	c.link = l
	c.mu.Unlock()
	stopWatch := context.AfterFunc(ctx, func() { l.fail(ErrClosed) })
	defer stopWatch()
	ran := make(chan struct{})
	go func() { // owned by serve, which waits for it below
		defer close(ran)
		l.run()
	}()
	c.setStatus(Status{Reason: "the browser extension has not answered this coordinator yet: it is busy", busy: true})

	// Ask for the tabs; connected means the tabs are in. An extension that
	// never answers is as good as gone.
	slow := time.AfterFunc(connectTimeout, func() {
		l.fail(fmt.Errorf("%w: it did not answer within %s: it is stuck or overloaded", ErrDisconnected, connectTimeout))
	})
	// The tabs are taken on the reader's goroutine, in the order of the
	// messages: a tab closed or unshared just after the answer goes after
	// it, never before.
	f, err := l.callThen(body("connect"), func(f nativemsg.Fields) { c.connected(f.Tabs) })
	slow.Stop()
	if err == nil {
		s := Status{Connected: true}
		if l.hello.Browser != nil {
			s.Browser = *l.hello.Browser
		}
		var b nativemsg.Browser
		if json.Unmarshal(f.Browser, &b) == nil && b.Version != "" {
			s.Browser = b
		}
		if l.hello.Extension != nil {
			s.Extension = *l.hello.Extension
		}
		if l.hello.Host != nil {
			s.HostPID = l.hello.Host.PID
		}
		c.setStatus(s)
		c.log.Info("connected to the user's browser", "browser", s.Browser.Name, "version", s.Browser.Version, "tabs", c.b.TabCount())
	} else {
		c.log.Warn("the browser extension did not answer connect", "err", err)
		l.fail(err)
	}
	<-ran

	c.mu.Lock()
	if c.link == l {
		c.link = nil
	}
	c.mu.Unlock()
	if ctx.Err() == nil {
		// Said before the tabs go: whoever hears of their sessions ending
		// (the page tools) can tell a disconnection from a closed tab.
		reason := l.gone().Error()
		c.log.Info("the user's browser disconnected; waiting for it to come back", "reason", reason)
		c.setStatus(Status{Reason: reason})
	}
	c.b.Disconnected()
}

// connectTimeout bounds the wait for the extension's answer to connect.
const connectTimeout = 15 * time.Second

func (c *Conn) setStatus(s Status) {
	c.mu.Lock()
	c.status = s
	c.mu.Unlock()
	c.notify()
}

// spawn runs fn for a client's call, owned by the Conn; after Close it
// does not run.
func (c *Conn) spawn(fn func()) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		fn()
	}()
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
