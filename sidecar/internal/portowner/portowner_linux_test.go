package portowner

import (
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func TestMine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := Mine(port); err != nil {
		t.Fatalf("a port this process listens on: %v", err)
	}
	ln.Close()
	if err := Mine(port); err == nil || !strings.Contains(err.Error(), "no listening socket") {
		t.Fatalf("a port nothing listens on: %v", err)
	}
}

func TestParseProcAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"00000000000000000000000001000000:0050": "[::1]:80",
		"0000000000000000FFFF00000100007F:A4C1": "127.0.0.1:42177", // IPv4 on a dual-stack socket
	} {
		got, err := parseAddr(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if !same(got, netip.MustParseAddrPort(want)) {
			t.Errorf("%s = %v, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", "0100007F", "XYZ:1F90", "0100007F:XYZ", "01007F:0050"} {
		if _, err := parseAddr(bad); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
}

func TestPeerIsOurs(t *testing.T) {
	for _, network := range []string{"127.0.0.1:0", "[::1]:0"} {
		ln, err := net.Listen("tcp", network)
		if err != nil {
			t.Logf("%s: %v (no IPv6 here?)", network, err)
			continue
		}
		defer ln.Close()
		client, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		server, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer server.Close()
		uid, err := Peer(server)
		if err != nil || uid != os.Geteuid() {
			t.Fatalf("%s: Peer = %d, %v; want %d", network, uid, err, os.Geteuid())
		}
	}
}

// A port another user listens on is told apart from ours.
func TestNotMine(t *testing.T) {
	ln := testutil.ListenAs(t, 65534)
	err := Mine(ln.Addr().(*net.TCPAddr).Port)
	if err == nil || !strings.Contains(err.Error(), "uid 65534") {
		t.Fatalf("another user's port: %v", err)
	}
}
