package nativemsg

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestAnnouncements(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "everyday")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(dir)
		if fi.Mode().Perm() != 0o700 {
			t.Fatalf("the folder is %o, want 0700", fi.Mode().Perm())
		}
	}
	// A live host (this process), an older live one, and a dead one.
	me := Host{PID: os.Getpid(), Socket: SocketPath(dir, os.Getpid()), Protocol: Protocol, StartedAt: time.Now()}
	if err := WriteHost(dir, me); err != nil {
		t.Fatal(err)
	}
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := Host{PID: dead.Process.Pid, Socket: SocketPath(dir, dead.Process.Pid), StartedAt: time.Now().Add(time.Hour)}
	if err := WriteHost(dir, gone); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(gone.Socket, nil, 0o600)
	_ = os.WriteFile(filepath.Join(dir, "junk.host"), []byte("{"), 0o600)

	live := LiveHosts(dir)
	if len(live) != 1 || live[0].PID != os.Getpid() {
		t.Fatalf("live hosts: %+v", live)
	}
	for _, p := range []string{HostPath(dir, gone.PID), gone.Socket} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s of a dead host is still there", p)
		}
	}
	if fi, _ := os.Stat(HostPath(dir, me.PID)); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("the announcement is %o, want 0600", fi.Mode().Perm())
	}
}
