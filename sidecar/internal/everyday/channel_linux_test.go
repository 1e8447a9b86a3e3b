package everyday

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// Another local user with the URL, the secret and the extension's Origin
// (all of it read somehow) gets nothing: the connection is closed unread,
// and the offer stays for the extension.
func TestTheChannelRefusesAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a client as another user needs root (CI runs as root)")
	}
	ch := openChannels(t)
	o := ch.offer(extensionIDForTest)
	hostport, path, _ := strings.Cut(strings.TrimPrefix(o.URL, "ws://"), "/")
	port := hostport[strings.LastIndexByte(hostport, ':')+1:]
	upgrade := "GET /" + path + " HTTP/1.1\r\nHost: " + hostport + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: " + theExtension + "\r\n\r\n"
	cmd := exec.Command("bash", "-c", `trap '' PIPE; exec 3<>/dev/tcp/127.0.0.1/`+port+`; printf '%s' "$1" >&3; timeout 20 cat <&3; echo "[end]"`, "bash", upgrade)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "101") || strings.Contains(string(out), "proof") || !strings.Contains(string(out), "[end]") {
		t.Fatalf("another user's attempt got: %q (%v)", out, err)
	}
	if accepted(o) {
		t.Fatal("another user took the offer")
	}
	ws, _, err := dialChannel(o.URL, theExtension)
	if err != nil {
		t.Fatalf("the extension after the attempt: %v", err)
	}
	ws.Close()
}
