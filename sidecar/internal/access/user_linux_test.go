package access

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestParseProcAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"00000000000000000000000001000000:0050": "[::1]:80",
		"0000000000000000FFFF00000100007F:A4C1": "127.0.0.1:42177", // IPv4 on a dual-stack socket
	} {
		got, err := parseProcAddr(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if !sameAddr(got, netip.MustParseAddrPort(want)) {
			t.Errorf("%s = %v, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", "0100007F", "XYZ:1F90", "0100007F:XYZ", "01007F:0050"} {
		if _, err := parseProcAddr(bad); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
}

func TestPeerUIDIsOurs(t *testing.T) {
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
		uid, err := PeerUID(server)
		if err != nil || uid != os.Geteuid() {
			t.Fatalf("%s: PeerUID = %d, %v; want %d", network, uid, err, os.Geteuid())
		}
	}
}

// Another local user (nobody, started by root) connects: the connection is
// closed unread, and this user's next request is served.
func TestOwnUserRefusesAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a client as another user needs root")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "served") })}
	go srv.Serve(OwnUser(ln, slog.New(slog.NewTextHandler(&logged, nil))))
	defer srv.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)

	// bash's /dev/tcp: a client that needs nothing the other user cannot run.
	cmd := exec.Command("bash", "-c", `trap '' PIPE; exec 3<>/dev/tcp/127.0.0.1/`+port+`; printf 'GET / HTTP/1.0\r\n\r\n' >&3; cat <&3; echo "[end]"`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "served") || !strings.Contains(string(out), "[end]") {
		t.Fatalf("another user's request got: %q (%v)", out, err)
	}
	if !strings.Contains(logged.String(), "uid=65534") {
		t.Errorf("the refusal was not logged: %q", logged.String())
	}

	resp, err := http.Get("http://127.0.0.1:" + port + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "served" {
		t.Fatalf("our own request got %q", body)
	}
}
