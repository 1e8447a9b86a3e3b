// Package testbrowser starts real headless Chromiums for the tests of the
// packages above the launcher: a browser the code under test did not start
// (one to attach to, or one standing in for VS Code). It lives apart from
// testutil because the launcher's own tests use testutil.
package testbrowser

import (
	"context"
	"os"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

// Launch starts a headless Chromium on url ("" for a blank page) with a
// profile of its own below TMPDIR. When the test ends its whole process
// group is stopped and reaped, and only then is the profile removed, so no
// helper writes into it afterwards.
func Launch(t testing.TB, url string) *launcher.Browser {
	t.Helper()
	root, err := os.MkdirTemp("", "tb")
	if err != nil {
		t.Fatal(err)
	}
	b, err := launcher.Launch(context.Background(), launcher.Options{Path: testutil.BrowserPath(t), Headless: true, ProfileRoot: root, URL: url})
	if err != nil {
		os.RemoveAll(root)
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Stop(context.Background()); os.RemoveAll(root) })
	return b
}
