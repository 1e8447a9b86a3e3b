// Package testbrowser starts real headless Chromiums for the tests of the
// packages above the launcher: one on its pipe, as the coordinator launches
// it (OnPipe), or one the code under test did not start (one to attach to,
// or one standing in for VS Code), so one that listens on a loopback port,
// as such browsers do (Launch). It lives apart from testutil because the
// launcher's own tests use testutil.
package testbrowser

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
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
	root, err := os.MkdirTemp("", "tb")
	if err != nil {
		t.Fatal(err)
	}
	o.ProfileRoot = root
	b, err := launcher.Launch(context.Background(), o)
	if err != nil {
		os.RemoveAll(root)
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Stop(context.Background()); os.RemoveAll(root) })
	return b
}

// Launch starts a headless Chromium on url ("" for a blank page) with a
// profile of its own below TMPDIR and a debugging port. When the test ends
// its whole process group is stopped and reaped, and only then is the
// profile removed, so no helper writes into it afterwards.
func Launch(t testing.TB, url string) *Browser {
	t.Helper()
	b := launch(t, launcher.Options{Path: testutil.BrowserPath(t), Headless: true, URL: url, Args: []string{"--remote-debugging-port=0"}})
	// Chromium writes its port into the profile soon after it answers: read
	// it again at each change of the folder.
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(b.UserDataDir); err != nil {
		t.Fatal(err)
	}
	guard := time.After(testutil.Guard)
	for {
		data, err := os.ReadFile(filepath.Join(b.UserDataDir, launcher.ActivePortFile))
		if err == nil {
			if port, path, err := launcher.ParseActivePort(data); err == nil {
				return &Browser{Browser: b, Port: port, WSPath: path}
			}
		}
		select {
		case <-w.Events:
		case <-guard:
			t.Fatalf("the browser wrote no DevToolsActivePort: %v", err)
		}
	}
}
