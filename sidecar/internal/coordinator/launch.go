package coordinator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// Launching a browser is one more connector: the one the coordinator uses
// when it fronts nothing else, and the one a source that does not answer
// falls back on.

// launchSource is the Source of the browsers launch starts.
func launchSource(launch backend.Connector) *Source {
	return &Source{Kind: state.BackendTier1, Key: "launch", Describe: "a browser the coordinator launches", Connector: launch, Launches: true, Lazy: true}
}

// launchConnector launches browsers (package launcher).
type launchConnector struct {
	detect                     *browsers.Detector // without version reading: launch must be fast
	profileRoot                string
	launchTimeout, stopTimeout time.Duration
	log                        *slog.Logger
}

func (k launchConnector) Connect(ctx context.Context, o Options) (backend.Connection, error) {
	exe, err := resolve(ctx, k.detect, o)
	if err != nil {
		return nil, err
	}
	// The browser lives until Close; until it is ready, a start taken back
	// (ctx) ends it.
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopOnCancel := context.AfterFunc(ctx, cancel)
	b, err := launcher.Launch(life, launcher.Options{
		Path:          exe.Path,
		Headless:      o.Headless,
		UserDataDir:   o.UserDataDir,
		ProfileRoot:   k.profileRoot,
		URL:           o.URL,
		LaunchTimeout: k.launchTimeout,
		StopTimeout:   k.stopTimeout,
		Logger:        k.log,
	})
	if err != nil || !stopOnCancel() {
		cancel()
		if err == nil {
			_ = b.Stop(context.Background())
			err = ctx.Err()
		}
		return nil, err
	}
	return &launched{b: b, exe: exe, headless: o.Headless, cancel: cancel}, nil
}

// resolve finds the executable for o.
func resolve(ctx context.Context, d *browsers.Detector, o Options) (browsers.Browser, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if o.BrowserPath != "" {
		return d.FromPath(ctx, o.BrowserPath)
	}
	return d.Find(ctx, o.BrowserType)
}

// launched is a browser the coordinator started, on its pipe.
type launched struct {
	b        *launcher.Browser
	exe      browsers.Browser
	headless bool
	cancel   context.CancelFunc // its life
}

func (l *launched) Conn() *cdp.Conn         { return l.b.Conn }
func (l *launched) Endpoint() *cdp.Endpoint { return nil }
func (l *launched) Version() cdp.Version    { return l.b.Version }
func (l *launched) Done() <-chan struct{}   { return l.b.Done() }

func (l *launched) Browser() state.Browser {
	return state.Browser{Type: string(l.exe.Type), Path: l.exe.Path, Version: backend.ProductVersion(l.b.Version.Product), PID: l.b.PID, Headless: l.headless}
}

// Close stops the browser (gracefully, then by force), waits until it is
// reaped and removes a temporary profile.
func (l *launched) Close(ctx context.Context) error {
	err := l.b.Stop(ctx)
	l.cancel()
	return err
}

// Gone says how the browser ended.
func (l *launched) Gone() error {
	// The pipe breaks as the browser dies: give the exit a moment to be
	// reaped, so that the reason is the real one.
	select {
	case <-l.b.Done():
		return fmt.Errorf("the browser exited on its own (%v); the next need launches it again", l.b.ExitErr())
	case <-time.After(time.Second):
		if err := l.b.Conn.Err(); err != nil {
			return fmt.Errorf("the connection to the browser broke (%v); the next need launches it again", err)
		}
		return errors.New("the connection to the browser broke; the next need launches it again")
	}
}
