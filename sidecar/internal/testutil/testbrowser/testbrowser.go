// Package testbrowser starts real headless Chromiums for the tests of the
// packages above the launcher: a browser the code under test did not start
// (one to attach to, or one standing in for VS Code), so one that listens on
// a loopback port, as such browsers do. It lives apart from testutil because
// the launcher's own tests use testutil.
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
)

// Browser is a launched browser with its debugging port.
type Browser struct {
	*launcher.Browser
	Port   int    // its CDP port on 127.0.0.1
	WSPath string // "/devtools/browser/<guid>"
}

// Addr is "127.0.0.1:PORT".
func (b *Browser) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port)) }

// Launch starts a headless Chromium on url ("" for a blank page) with a
// profile of its own below TMPDIR and a debugging port. When the test ends
// its whole process group is stopped and reaped, and only then is the
// profile removed, so no helper writes into it afterwards.
func Launch(t testing.TB, url string) *Browser {
	t.Helper()
	root, err := os.MkdirTemp("", "tb")
	if err != nil {
		t.Fatal(err)
	}
	b, err := launcher.Launch(context.Background(), launcher.Options{
		Path: testutil.BrowserPath(t), Headless: true, ProfileRoot: root, URL: url,
		Args: []string{"--remote-debugging-port=0"},
	})
	if err != nil {
		os.RemoveAll(root)
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Stop(context.Background()); os.RemoveAll(root) })
	// Chromium writes its port next to the profile soon after it answers.
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, err := os.ReadFile(filepath.Join(b.UserDataDir, launcher.ActivePortFile))
		if err == nil {
			if port, path, err := launcher.ParseActivePort(data); err == nil {
				return &Browser{Browser: b, Port: port, WSPath: path}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the browser wrote no DevToolsActivePort: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
