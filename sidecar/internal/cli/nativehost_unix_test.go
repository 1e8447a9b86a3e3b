//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// install writes a manifest that names the program the browser starts as
// this user: it refuses a folder another user could swap, or a link that
// sends the manifest elsewhere, says what to do, and writes nothing.
func TestInstallRefusesAFolderOthersCouldSwap(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("folders of another user need root to chown (CI runs as root)")
	}
	const other = 65534
	mkdir := func(p string, uid int) string {
		t.Helper()
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, p string, uid int) {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	base := t.TempDir()
	theirs := mkdir(filepath.Join(base, "theirs"), other)
	for _, tc := range []struct {
		name  string
		setup func(dir string) (profile string)
		want  string
	}{
		{"NativeMessagingHosts is another user's link", func(dir string) string {
			profile := mkdir(filepath.Join(dir, "profile"), 0)
			link(theirs, filepath.Join(profile, "NativeMessagingHosts"), other)
			return profile
		}, "is a symbolic link (to " + theirs + ")"},
		{"NativeMessagingHosts is a link of the user's own", func(dir string) string {
			profile := mkdir(filepath.Join(dir, "profile"), 0)
			link(mkdir(filepath.Join(dir, "elsewhere"), 0), filepath.Join(profile, "NativeMessagingHosts"), 0)
			return profile
		}, "replace the link with a folder of your own"},
		{"NativeMessagingHosts is another user's folder", func(dir string) string {
			profile := mkdir(filepath.Join(dir, "profile"), 0)
			mkdir(filepath.Join(profile, "NativeMessagingHosts"), other)
			return profile
		}, "belongs to uid 65534"},
		{"the profile is another user's", func(dir string) string {
			return mkdir(filepath.Join(dir, "profile"), other)
		}, "belongs to uid 65534"},
		{"the profile is a link", func(dir string) string {
			profile := filepath.Join(dir, "profile")
			link(mkdir(filepath.Join(dir, "real"), 0), profile, other)
			return profile
		}, "is a symbolic link"},
		{"the profile is inside another user's folder", func(dir string) string {
			return filepath.Join(mkdir(filepath.Join(dir, "their-parent"), other), "profile")
		}, "which belongs to uid 65534"},
		{"a folder above is a link another user made", func(dir string) string {
			p := filepath.Join(dir, "via")
			link(mkdir(filepath.Join(dir, "mine"), 0), p, other)
			return filepath.Join(p, "sub", "profile")
		}, "is a link made by uid 65534"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := mkdir(filepath.Join(base, strings.ReplaceAll(tc.name, " ", "-")), 0)
			profile := tc.setup(dir)
			r := run(t, nil, "install", "--host", "chromium", "--user-data-dir", profile)
			if r.code != 1 || !strings.Contains(r.stderr, "refusing to register the host") || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 1 with %q", r.code, r.stdout, r.stderr, tc.want)
			}
			found, _ := filepath.Glob(filepath.Join(base, "*", "*.json"))
			more, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.json"))
			if len(found)+len(more) > 0 {
				t.Fatalf("a manifest was written: %v %v", found, more)
			}
		})
	}
}
