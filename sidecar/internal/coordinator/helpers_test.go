package coordinator

import (
	"net"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/fsnotify/fsnotify"
)

// watchState delivers the state file's content each time it is replaced.
func watchState(t *testing.T, path string) <-chan state.File {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	out := make(chan state.File, 64)
	go func() {
		for ev := range w.Events {
			if ev.Name != path || !ev.Has(fsnotify.Create|fsnotify.Rename|fsnotify.Write) {
				continue
			}
			if f, err := state.Read(path); err == nil {
				out <- f
			}
		}
		close(out)
	}()
	t.Cleanup(func() { w.Close() })
	return out
}

// waitFor waits until the state file satisfies ok.
func waitFor(t *testing.T, files <-chan state.File, ok func(state.File) bool) {
	t.Helper()
	timeout := time.After(testutil.Guard)
	for {
		select {
		case f := <-files:
			if ok(f) {
				return
			}
		case <-timeout:
			t.Fatal("state file never reached the expected state")
		}
	}
}

// deadPID is the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// deadPort is a loopback port nothing listens on.
func deadPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}
