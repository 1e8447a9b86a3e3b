// Package testbrowser starts real headless Chromiums for the tests of the
// packages above the launcher: one on its pipe, as the coordinator launches
// it (OnPipe), or one the code under test did not start (one to attach to,
// or one standing in for VS Code), so one that listens on a loopback port,
// as such browsers do (Launch); or one that a package's tests share, each
// in a browser context of its own (Shared). It lives apart from testutil
// because the launcher's own tests use testutil.
package testbrowser

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/fsnotify/fsnotify"
)

// Browser is a launched browser with its debugging port.
type Browser struct {
	*launcher.Browser
	Port   int    // its CDP port on 127.0.0.1
	WSPath string // "/devtools/browser/<guid>"
}

// Addr is "127.0.0.1:PORT".
func (b *Browser) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port)) }

// OnPipe starts a headless Chromium on its pipe, as the coordinator does;
// it is stopped and its profile removed when the test ends.
func OnPipe(t testing.TB) *launcher.Browser {
	t.Helper()
	return launch(t, launcher.Options{Path: testutil.BrowserPath(t), Headless: true})
}

func launch(t testing.TB, o launcher.Options) *launcher.Browser {
	t.Helper()
	b, stop, err := start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return b
}

// start launches a browser with a profile of its own below TMPDIR; stop
// stops and reaps it, then removes the profile.
func start(o launcher.Options) (b *launcher.Browser, stop func(), err error) {
	root, err := os.MkdirTemp("", "tb")
	if err != nil {
		return nil, nil, err
	}
	o.ProfileRoot = root
	b, err = launcher.Launch(context.Background(), o)
	if err != nil {
		os.RemoveAll(root)
		return nil, nil, err
	}
	return b, func() { _ = b.Stop(context.Background()); os.RemoveAll(root) }, nil
}

// Launch starts a headless Chromium on url ("" for a blank page) with a
// profile of its own below TMPDIR and a debugging port. When the test ends
// its whole process group is stopped and reaped, and only then is the
// profile removed, so no helper writes into it afterwards.
func Launch(t testing.TB, url string) *Browser {
	t.Helper()
	b := launch(t, launcher.Options{Path: testutil.BrowserPath(t), Headless: true, URL: url, Args: []string{"--remote-debugging-port=0"}})
	port, path, err := activePort(b)
	if err != nil {
		t.Fatal(err)
	}
	return &Browser{Browser: b, Port: port, WSPath: path}
}

// activePort waits for the port and path Chromium writes into its profile
// soon after it answers, reading the file again at each change of the
// folder.
func activePort(b *launcher.Browser) (port int, path string, err error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return 0, "", err
	}
	defer w.Close()
	if err := w.Add(b.UserDataDir); err != nil {
		return 0, "", err
	}
	guard := time.After(testutil.Guard)
	for {
		data, err := os.ReadFile(filepath.Join(b.UserDataDir, launcher.ActivePortFile))
		if err == nil {
			if port, path, err := launcher.ParseActivePort(data); err == nil {
				return port, path, nil
			}
		}
		select {
		case <-w.Events:
		case <-guard:
			return 0, "", fmt.Errorf("the browser wrote no DevToolsActivePort: %v", err)
		}
	}
}

// Shared is one browser with a debugging port that a package's tests share,
// for tests that need only pages of their own (each in a browser context of
// its own): the first test to ask launches it, and the package's TestMain
// stops it (testutil.Main(m, shared.Close)) once all tests ran. A test that
// watches the browser itself (its crash, close or restart, its flags, the
// targets across it) launches its own.
type Shared struct {
	once sync.Once
	b    *Browser
	stop func()
	err  error
}

// Get answers the shared browser, launching it on the first call.
func (s *Shared) Get(t testing.TB) *Browser {
	t.Helper()
	path := testutil.BrowserPath(t)
	s.once.Do(func() {
		var b *launcher.Browser
		b, s.stop, s.err = start(launcher.Options{Path: path, Headless: true, Args: []string{"--remote-debugging-port=0"}})
		if s.err != nil {
			return
		}
		port, wsPath, err := activePort(b)
		if err != nil {
			s.err = err
			return
		}
		s.b = &Browser{Browser: b, Port: port, WSPath: wsPath}
	})
	if s.err != nil {
		t.Fatalf("the shared browser: %v", s.err)
	}
	return s.b
}

// Close stops the shared browser, if one was launched, and removes its
// profile.
func (s *Shared) Close() {
	if s.stop != nil {
		s.stop()
	}
}
