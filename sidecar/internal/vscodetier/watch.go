package vscodetier

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/portowner"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/fsnotify/fsnotify"
)

// debounce lets a burst of events from one write settle: an atomic replace
// gives CREATE and RENAME, an in-place write a truncating WRITE and another.
const debounce = 15 * time.Millisecond

// Watcher keeps the coordinator on the right tier as VS Code's CDP port
// comes and goes: it watches the port file's folder (filtered by name) and
// switches the proxy's backend live. It learns from the coordinator's
// events when VS Code's port stopped answering and a launched browser took
// its place.
type Watcher struct {
	c        Coordinator
	env      Env
	noVSCode bool
	log      *slog.Logger
	fs       *fsnotify.Watcher
	events   <-chan backend.Event
	unsub    func()
	done     chan struct{}

	mu      sync.Mutex
	current backend.VSCodeStatus
}

// Coordinator is what the watcher drives (a *coordinator.Coordinator).
type Coordinator interface {
	// SetSource switches what the coordinator fronts (nil: a browser it
	// launches).
	SetSource(src *backend.Source)
	// SetVSCodeStatus records how it relates to VS Code, for its status.
	SetVSCodeStatus(v *backend.VSCodeStatus)
	// Subscribe follows its events (FellBack).
	Subscribe() (<-chan backend.Event, func())
	// Words phrase what VS Code's browser view tells CDP clients.
	Words() remedy.Words
}

// Start decides the tier now and, inside VS Code, keeps deciding it.
func Start(ctx context.Context, c Coordinator, env Env, noVSCode bool, log *slog.Logger) (*Watcher, error) {
	w := &Watcher{c: c, env: env, noVSCode: noVSCode, log: log, done: make(chan struct{}), unsub: func() {}}
	w.events, w.unsub = c.Subscribe()
	d := Detect(ctx, env, noVSCode)
	w.apply(d, true)
	if noVSCode || !d.Inside || len(env.PortFiles) == 0 {
		if d.Tier != 2 {
			w.unsub()
			close(w.done)
			return w, nil
		}
		// VSCODE_CDP_PORT outside VS Code: no port file to watch, but its
		// fall-back must still be told.
		go w.loop()
		return w, nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		close(w.done)
		return w, fmt.Errorf("watch the VS Code port file: %w", err)
	}
	watched := 0
	for _, file := range env.PortFiles {
		if err := fw.Add(filepath.Dir(file)); err != nil {
			log.Debug("cannot watch a port file's folder", "folder", filepath.Dir(file), "err", err)
			continue
		}
		watched++
	}
	if watched == 0 {
		fw.Close()
		w.unsub()
		close(w.done)
		return w, fmt.Errorf("watch %s: no folder of a port file can be watched", filepath.Dir(env.PortFiles[0]))
	}
	w.fs = fw
	go w.loop()
	return w, nil
}

// Close stops watching.
func (w *Watcher) Close() {
	if w.fs != nil {
		w.fs.Close()
	}
	w.unsub()
	<-w.done
}

func (w *Watcher) loop() {
	defer close(w.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var fsEvents <-chan fsnotify.Event
	var fsErrors <-chan error
	if w.fs != nil {
		fsEvents, fsErrors = w.fs.Events, w.fs.Errors
	}
	for {
		select {
		case ev, ok := <-fsEvents:
			if !ok {
				return
			}
			if filepath.Base(ev.Name) == PortFileName {
				timer.Reset(debounce)
			}
		case err, ok := <-fsErrors:
			if !ok {
				return
			}
			w.log.Debug("port file watch", "err", err)
		case ev, ok := <-w.events:
			if !ok {
				return
			}
			if ev.Kind == backend.FellBack {
				w.fellBack(ev)
			}
		case <-timer.C:
			w.recheck()
		}
	}
}

// recheck runs the chain again after a port file changed.
func (w *Watcher) recheck() {
	for _, file := range w.env.PortFiles {
		data, err := w.env.ReadFile(file)
		if err != nil {
			continue
		}
		if _, perr := ParsePort(string(data)); perr != nil {
			// Half-written (an in-place write truncates first): the next
			// event brings the rest.
			w.log.Debug("ignoring an incomplete port file", "file", file, "content", string(data))
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w.apply(Detect(ctx, w.env, w.noVSCode), false)
}

// apply switches the coordinator when the tier or the port changed.
func (w *Watcher) apply(d backend.VSCodeStatus, first bool) {
	w.mu.Lock()
	changed := first || d.Tier != w.current.Tier || d.Port != w.current.Port
	w.current = d
	w.c.SetVSCodeStatus(&d) // under w.mu, as in fellBack: in the order current changes
	w.mu.Unlock()
	if !changed {
		return
	}
	w.log.Info("VS Code tier", "tier", d.Tier, "port", d.Port, "reason", d.Reason)
	if d.Tier != 2 {
		w.c.SetSource(nil)
		return
	}
	w.c.SetSource(Source(d.Port, w.c.Words(), w.log))
}

// Source is VS Code's CDP port as a coordinator source: the View's virtual
// browser behind the proxy, and a launched browser instead when the port
// does not answer.
// words phrase the remedies in what the View tells CDP clients.
func Source(port int, words remedy.Words, log *slog.Logger) *backend.Source {
	return &backend.Source{
		Kind:           state.BackendTier2,
		Key:            sourceKey(port),
		Describe:       fmt.Sprintf("VS Code's CDP port %d", port),
		Remedies:       []remedy.Kind{remedy.OwnBrowser},
		Connector:      connector{port: port, words: words, log: log},
		Fallback:       true,
		ConnectTimeout: backend.DefaultConnectTimeout,
	}
}

func sourceKey(port int) string { return "tier2 port " + strconv.Itoa(port) }

// connector connects to VS Code's CDP port.
type connector struct {
	port  int
	words remedy.Words
	log   *slog.Logger
}

func (k connector) Connect(ctx context.Context, _ backend.Options) (backend.Connection, error) {
	url := "http://127.0.0.1:" + strconv.Itoa(k.port)
	// Checked at every connect, not only when the port was found: after VS
	// Code quits, another user may listen on its port.
	if err := portowner.Mine(k.port); err != nil {
		return nil, fmt.Errorf("%w: VS Code's port %d %v", cdp.ErrUnreachable, k.port, err)
	}
	e, err := cdp.Probe(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	v, err := NewView(ctx, &e, k.words, k.log)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", cdp.ErrUnreachable, err)
	}
	return &connection{url: url, product: e.Product, view: v}, nil
}

// connection is VS Code's browser view as the virtual browser's only tab:
// the coordinator holds its connection, and every client of the proxy gets
// a session of its own on it, as on a launched browser.
type connection struct {
	url, product string
	view         *View
}

func (k *connection) Conn() *cdp.Conn         { return k.view.Browser() }
func (k *connection) Endpoint() *cdp.Endpoint { return nil }
func (k *connection) Version() cdp.Version    { return k.view.version }
func (k *connection) Done() <-chan struct{}   { return k.view.Lost() }
func (k *connection) Pages() backend.Pages    { return k.view }
func (k *connection) Close(context.Context) error {
	k.view.Shutdown()
	return nil
}

func (k *connection) Browser() state.Browser {
	return state.Browser{Type: state.BackendTier2, Path: k.url, Version: backend.ProductVersion(k.product)}
}

// fellBack records that VS Code's port died and a browser was launched. If
// the watcher has moved on (another port, or Tier 1) meanwhile, it changes
// nothing.
func (w *Watcher) fellBack(ev backend.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.current.Tier != 2 || ev.Source != sourceKey(w.current.Port) {
		return
	}
	port := w.current.Port
	w.current = backend.VSCodeStatus{
		Inside: w.current.Inside,
		Tier:   1,
		Reason: fmt.Sprintf("VS Code's CDP port %d stopped answering (VS Code quit?): the coordinator launched its own browser; when VS Code's port is back in the port file it switches back", port),
	}
	d := w.current
	w.c.SetVSCodeStatus(&d)
	w.log.Warn("VS Code's CDP port is gone; using a launched browser", "port", port, "reason", ev.Reason)
}
