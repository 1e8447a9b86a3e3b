package vscodetier

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdpproxy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/fsnotify/fsnotify"
)

// debounce lets a burst of events from one write settle: an atomic replace
// gives CREATE and RENAME, an in-place write a truncating WRITE and another.
const debounce = 15 * time.Millisecond

// Watcher keeps the coordinator on the right tier as VS Code's CDP port
// comes and goes: it watches the port file's folder (filtered by name) and
// switches the proxy's backend live.
type Watcher struct {
	c        *coordinator.Coordinator
	env      Env
	noVSCode bool
	log      *slog.Logger
	fs       *fsnotify.Watcher
	done     chan struct{}

	mu      sync.Mutex
	current coordinator.VSCodeStatus
}

// Start decides the tier now and, inside VS Code, keeps deciding it.
func Start(ctx context.Context, c *coordinator.Coordinator, env Env, noVSCode bool, log *slog.Logger) (*Watcher, error) {
	w := &Watcher{c: c, env: env, noVSCode: noVSCode, log: log, done: make(chan struct{})}
	d := Detect(ctx, env, noVSCode)
	w.apply(d, true)
	if noVSCode || !d.Inside || len(env.PortFiles) == 0 {
		close(w.done)
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
	<-w.done
}

func (w *Watcher) loop() {
	defer close(w.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			if filepath.Base(ev.Name) == PortFileName {
				timer.Reset(debounce)
			}
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			w.log.Debug("port file watch", "err", err)
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
func (w *Watcher) apply(d coordinator.VSCodeStatus, first bool) {
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
		w.c.SetEndpoint(nil)
		return
	}
	port := d.Port
	w.c.SetEndpoint(&coordinator.Endpoint{
		Kind:     state.BackendTier2,
		URL:      "http://127.0.0.1:" + strconv.Itoa(port),
		Describe: fmt.Sprintf("VS Code's CDP port %d", port),
		View: func(ctx context.Context, b cdpproxy.Backend, onChange func()) (cdpproxy.Filter, coordinator.Pages, error) {
			v, err := NewView(ctx, b, onChange, w.log)
			if err != nil {
				return nil, nil, err
			}
			return v, v, nil
		},
		OnUnreachable: func(err error) { w.fellBack(port, err) },
	})
}

// fellBack records that VS Code's port died and a browser was launched. It
// runs on its own goroutine: if the watcher has moved on (another port, or
// Tier 1) meanwhile, it changes nothing.
func (w *Watcher) fellBack(port int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.current.Port != port {
		return
	}
	w.current = coordinator.VSCodeStatus{
		Inside: w.current.Inside,
		Tier:   1,
		Reason: fmt.Sprintf("VS Code's CDP port %d stopped answering (VS Code quit?): the coordinator launched its own browser; when VS Code's port is back in the port file it switches back", port),
	}
	d := w.current
	w.c.SetVSCodeStatus(&d)
	w.log.Warn("VS Code's CDP port is gone; using a launched browser", "port", port, "err", err)
}
