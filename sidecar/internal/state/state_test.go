package state

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/osdirs"
)

func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	p := Path(dir, "1-ab")
	in := &File{PID: os.Getpid(), ProxyPort: 4000, CDPEndpoint: "http://127.0.0.1:4000", Backend: BackendTier1,
		Browser: &Browser{Type: "chromium", PID: 7, Headless: true}, State: "running", Workspace: dir, StartedAt: time.Now().UTC()}
	if err := Write(p, in); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	out, err := Read(p)
	if err != nil || out.ProxyPort != 4000 || out.Browser.Type != "chromium" || !out.StartedAt.Equal(in.StartedAt) {
		t.Fatalf("read back %+v %v", out, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("atomic write left %d files", len(entries))
	}
}

func TestReadCorrupt(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"bad.json":     "{not json",
		"empty.json":   "",
		"noport.json":  `{"pid": 5}`,
		"string.json":  `"hello"`,
		"halfway.json": `{"pid": 5, "proxyPort": 40`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		if _, err := Read(p); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
}

func TestScanDirAndPick(t *testing.T) {
	dir := t.TempDir()
	ws1, ws2 := filepath.Join(dir, "ws1"), filepath.Join(dir, "ws2")
	os.Mkdir(ws1, 0o700)
	os.Mkdir(ws2, 0o700)
	link := filepath.Join(dir, "link-to-ws1")
	os.Symlink(ws1, link)
	now := time.Now()
	Write(Path(dir, "a"), &File{PID: os.Getpid(), ProxyPort: 1, Workspace: ws1, StartedAt: now.Add(-time.Minute)})
	Write(Path(dir, "b"), &File{PID: os.Getpid(), ProxyPort: 2, Workspace: ws2, StartedAt: now})
	Write(Path(dir, "dead"), &File{PID: deadPID(t), ProxyPort: 3, Workspace: ws1, StartedAt: now.Add(time.Minute)})
	os.WriteFile(filepath.Join(dir, "corrupt.json"), []byte("{"), 0o600)
	os.WriteFile(filepath.Join(dir, ".x.json.tmp-123"), []byte("{"), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o600)

	s := ScanDir(dir)
	if len(s.Live) != 2 || len(s.Stale) != 1 || len(s.Corrupt) != 1 {
		t.Fatalf("live %d stale %d corrupt %d", len(s.Live), len(s.Stale), len(s.Corrupt))
	}
	if s.Live[0].File.ProxyPort != 2 {
		t.Fatal("live coordinators must be newest first")
	}
	if e, ok := s.Pick(link, false); !ok || e.File.ProxyPort != 1 {
		t.Fatalf("pick by workspace through a symlink: %+v %v", e, ok)
	}
	if _, ok := s.Pick(filepath.Join(dir, "elsewhere"), false); ok {
		t.Fatal("picked another workspace without fallback")
	}
	if e, ok := s.Pick(filepath.Join(dir, "elsewhere"), true); !ok || e.File.ProxyPort != 2 {
		t.Fatal("fallback must pick the newest live coordinator")
	}
	if n := s.Sweep(); n != 1 {
		t.Fatalf("swept %d", n)
	}
	if _, err := os.Stat(Path(dir, "dead")); !os.IsNotExist(err) {
		t.Fatal("stale file still there")
	}
	if _, err := os.Stat(filepath.Join(dir, "corrupt.json")); err != nil {
		t.Fatal("sweep removed a corrupted file; it must only be ignored")
	}
}

func TestMissingDirIsEmpty(t *testing.T) {
	s := ScanDir(filepath.Join(t.TempDir(), "nope"))
	if len(s.Live)+len(s.Stale)+len(s.Corrupt) != 0 {
		t.Fatal("scan of a missing folder found something")
	}
}

func TestEnsureDir(t *testing.T) {
	d := filepath.Join(t.TempDir(), "a", "b")
	if err := EnsureDir(d); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(d); st.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v", st.Mode())
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if err := EnsureDir(filepath.Join(file, "sub")); err == nil {
		t.Fatal("EnsureDir under a file succeeded")
	}
}

func TestDefaultDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	home := func() (string, error) { return "/home/u", nil }
	noHome := func() (string, error) { return "", errors.New("no home") }
	// Each OS's base folder is osdirs' (tested there, on every OS's rules).
	base, _ := osdirs.Env{GOOS: runtime.GOOS, Home: "/home/u", Getenv: env(nil)}.StateBase()
	for _, tc := range []struct {
		name string
		flag string
		vars map[string]string
		want string
	}{
		{"the flag wins", "/flag", map[string]string{EnvDir: "/env"}, "/flag"},
		{"then the variable", "", map[string]string{EnvDir: "/env"}, "/env"},
		{"then the OS's per-user base", "", nil, filepath.Join(base, DirName)},
	} {
		if got := dirFrom(tc.flag, env(tc.vars), home); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	// dirFrom is the function DefaultDir runs: the flag, the variable, then this OS's base.
	if got := dirFrom("", env(map[string]string{EnvDir: "/e"}), noHome); got != "/e" {
		t.Fatal(got)
	}
	if got := dirFrom("/f", env(nil), noHome); got != "/f" {
		t.Fatal(got)
	}
	if got := dirFrom("", env(nil), home); !strings.HasSuffix(got, DirName) || strings.HasPrefix(got, os.TempDir()+"/browser-coordinator") {
		t.Fatalf("the default is in the shared temp folder: %s", got)
	}
}
