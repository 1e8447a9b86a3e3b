package access

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
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
	var logged lockedBuffer
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
