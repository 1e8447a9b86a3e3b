//go:build unix

package browsers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

// script writes an executable shell script standing in for a browser.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-browser")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVersionFromCommand(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    string
		wantErr string
	}{
		{
			name: "debian wrapper: version on stdout, noise on stderr",
			body: `echo "$0: 9: [: 25276514304: unexpected operator" >&2
[ "$1" = --version ] || exit 3
printf 'Chromium 156.0.8078.79 built on Debian GNU/Linux 12 (bookworm)\n'`,
			want: "156.0.8078.79",
		},
		{
			name: "stdout wins over stderr",
			body: `echo "Other 1.2.3.4" >&2; echo "Google Chrome 120.0.6099.71"`,
			want: "120.0.6099.71",
		},
		{
			name: "version only on stderr",
			body: `echo "Chromium 119.0.6045.199" >&2`,
			want: "119.0.6045.199",
		},
		{
			name: "version printed but non-zero exit",
			body: `echo "Vivaldi 6.5.3206.48 stable"; exit 1`,
			want: "6.5.3206.48",
		},
		{
			name:    "fails",
			body:    `echo "cannot open display" >&2; exit 1`,
			wantErr: "exit status 1",
		},
		{
			name:    "no version printed",
			body:    `echo "hello"`,
			wantErr: "printed no version number",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := versionFromCommand(t.Context(), script(t, tt.body))
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Errorf("versionFromCommand = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("versionFromCommand = %q, %v; want an error containing %q", got, err, tt.wantErr)
			}
		})
	}
}

func TestVersionFromCommandMissing(t *testing.T) {
	if got, err := versionFromCommand(t.Context(), filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Errorf("versionFromCommand(missing) = %q, want an error", got)
	}
}

// TestVersionFromCommandHangs checks that a browser that never answers is
// killed and reaped when the context ends.
func TestVersionFromCommandHangs(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	exe := script(t, `echo $$ > `+pidFile+`; exec sleep 30`)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	got, err := versionFromCommand(ctx, exe)
	if err == nil || !strings.Contains(err.Error(), "did not finish") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("versionFromCommand = %q, %v; want a timeout error", got, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("versionFromCommand took %s after a 300ms deadline", d)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("script did not start: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process %d still exists after versionFromCommand returned (kill 0: %v)", pid, err)
	}
}

func TestIsExecutableFile(t *testing.T) {
	dir := t.TempDir()
	exe := touch(t, dir, "exe")
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path          string
		exec, regular bool
	}{
		{exe, true, true},
		{link, true, true},
		{plain, false, true},
		{dir, false, false},
		{filepath.Join(dir, "missing"), false, false},
	}
	for _, tt := range tests {
		if got := isExecutableFile(tt.path); got != tt.exec {
			t.Errorf("isExecutableFile(%s) = %v, want %v", tt.path, got, tt.exec)
		}
		if got := isRegularFile(tt.path); got != tt.regular {
			t.Errorf("isRegularFile(%s) = %v, want %v", tt.path, got, tt.regular)
		}
	}
}

func TestSystemFromPathNoExecuteBit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "chrome")
	if err := os.WriteFile(p, []byte("not a browser"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := System().FromPath(t.Context(), p)
	if !errors.Is(err, ErrNotExecutable) || !remedy.Has(err, remedy.Executable) {
		t.Errorf("FromPath(%s): err = %v, want ErrNotExecutable with advice", p, err)
	}
}
