package coordinator

import (
	"net"
	"strconv"
	"testing"
)

// A coordinator restarted in the same folder serves the same endpoint; when
// its port is taken meanwhile, the secret changes with the port (whoever
// holds the port may have been sent the old secret).
func TestTheEndpointOutlivesTheCoordinator(t *testing.T) {
	dir, ws := stateDir(t), t.TempDir()
	first := newCoordinator(t, Config{StateDir: dir, Workspace: ws})
	was := readState(t, first)
	first.Close()

	again := newCoordinator(t, Config{StateDir: dir, Workspace: ws})
	now := readState(t, again)
	if now.ProxyPort != was.ProxyPort || now.ProxySecret != was.ProxySecret {
		t.Fatalf("restarted in the same folder: port %d secret %q, was %d %q", now.ProxyPort, now.ProxySecret, was.ProxyPort, was.ProxySecret)
	}
	other := newCoordinator(t, Config{StateDir: dir, Workspace: t.TempDir()})
	if o := readState(t, other); o.ProxySecret == was.ProxySecret || o.ProxyPort == was.ProxyPort {
		t.Fatalf("another folder shares the endpoint: %d %q", o.ProxyPort, o.ProxySecret)
	}
	again.Close()

	squat, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(was.ProxyPort)))
	if err != nil {
		t.Fatal(err)
	}
	defer squat.Close()
	moved := readState(t, newCoordinator(t, Config{StateDir: dir, Workspace: ws}))
	if moved.ProxyPort == was.ProxyPort || moved.ProxySecret == was.ProxySecret {
		t.Fatalf("the port was taken: now port %d secret %q, was %d %q", moved.ProxyPort, moved.ProxySecret, was.ProxyPort, was.ProxySecret)
	}
}
