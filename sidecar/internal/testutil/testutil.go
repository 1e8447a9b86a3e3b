// Package testutil holds what integration tests share: finding a real
// browser under the project's rule (skip outside CI, fail under CI), and a
// TestMain that fails on leaked processes and leaked temporary folders.
package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// BrowserPath returns a Chromium-family executable for integration tests:
// $BROWSER_COORDINATOR_TEST_BROWSER, else the first of chromium, chromium-browser,
// google-chrome on PATH. Without one the test is skipped, unless CI is set:
// then it fails, because CI must exercise the real thing.
func BrowserPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("BROWSER_COORDINATOR_TEST_BROWSER"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium-family browser installed (apt-get install chromium)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg + "; CI must run the integration tests")
	}
	t.Skip(msg)
	return ""
}

// Main runs the package's tests in a private TMPDIR, then fails the run if a
// test left a process behind (a child, or an orphan of a child: the test
// process is made a child subreaper where the OS allows) or a file in TMPDIR.
// Each of after runs once the tests ran and before those checks: it stops
// what the package's tests shared (a browser launched once for all).
func Main(m *testing.M, after ...func()) int {
	tmp, err := os.MkdirTemp("", "bt") // short: browsers keep sockets below it
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv("TMPDIR", tmp)
	becomeSubreaper()

	code := m.Run()
	for _, f := range after {
		f()
	}

	if leaked := stillLeaked(); len(leaked) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: tests leaked processes:\n%s\n", leaked)
		code = 1
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		fmt.Fprintf(os.Stderr, "FAIL: tests leaked files in TMPDIR: %v\n", names)
		code = 1
	}
	os.RemoveAll(tmp)
	return code
}

// stillLeaked is leakedProcesses once what was exiting as the tests ended
// has gone (a process between its exit and its zombie state reads as
// running with an empty command line): a child still there after the
// guard is a leak.
func stillLeaked() string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		leaked := leakedProcesses()
		if leaked == "" || time.Now().After(deadline) {
			return leaked
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ShortDir is a folder of the test's own with a short path (in Main's
// TMPDIR, not t.TempDir's, which names the test), removed after it. A
// coordinator's state folder must be one: its browsers' profiles go below
// it, and a profile whose path is too long for Chromium's socket keeps its
// temporary files in TMPDIR instead, where a browser killed under load
// leaves them behind.
func ShortDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}
