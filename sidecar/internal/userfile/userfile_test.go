//go:build unix

package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// otherUID is a uid that is not ours, when the test may chown (root).
func otherUID(t *testing.T) int {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs root (CI runs as root)")
	}
	return 65534
}

func TestCheckDir(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		name string
		mode os.FileMode
		want string
	}{
		{"private", 0o700, ""},
		{"readable by others", 0o755, ""},
		{"group-writable", 0o770, "others may write it"},
		{"world-writable", 0o777, "others may write it"},
		{"sticky and world-writable like the temp folder", os.ModeSticky | 0o777, "others may write it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckDir(mk(strings.ReplaceAll(tc.name, " ", "-"), tc.mode))
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !errors.Is(err, ErrNotTrusted) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "chmod 700")) {
				t.Fatalf("%v; want %q", err, tc.want)
			}
		})
	}
	t.Run("owned by another user", func(t *testing.T) {
		uid := otherUID(t)
		d := mk("theirs", 0o700)
		if err := os.Chown(d, uid, uid); err != nil {
			t.Fatal(err)
		}
		if err := CheckDir(d); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Fatalf("%v", err)
		}
		if err := EnsureDir(d); err == nil {
			t.Fatal("EnsureDir accepted another user's folder")
		}
	})
}

// A folder of ours is only as safe as the folders above it: one that others
// may write (without the sticky bit), or another user's, lets them rename
// ours away and put theirs in its place.
func TestCheckDirLooksAbove(t *testing.T) {
	parent := func(mode os.FileMode) string {
		p := filepath.Join(t.TempDir(), "parent")
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ours := func(p string) string {
		d := filepath.Join(p, "browser-coordinator")
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		return d
	}
	if err := CheckDir(ours(parent(0o777))); err == nil || !strings.Contains(err.Error(), "no sticky bit") {
		t.Fatalf("inside a world-writable folder: %v", err)
	}
	if err := CheckDir(ours(parent(os.ModeSticky | 0o777))); err != nil {
		t.Fatalf("inside a sticky folder like /tmp: %v", err)
	}
	// Reached through a link from a safe place, the real place counts.
	p := parent(0o777)
	real := ours(p)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(link); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("through a link: %v", err)
	}
	t.Run("inside another user's folder", func(t *testing.T) {
		uid := otherUID(t)
		p := parent(0o755)
		d := ours(p)
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		if err := CheckDir(d); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Fatalf("%v", err)
		}
	})
}

func TestReadRefusesWhatIsNotOurs(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("victim's data"), 0o600)
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), mode)
		os.Chmod(p, mode)
		return p
	}
	ok := write("ok", "1234", 0o600)
	if data, err := Read(ok, Private); err != nil || string(data) != "1234" {
		t.Fatalf("%q %v", data, err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(secret, link)
	for _, tc := range []struct {
		path   string
		access Access
		want   string
	}{
		{link, Private, "symbolic link"},
		{write("readable", "1", 0o644), Private, "others may read or write it"},
		{write("writable", "1", 0o622), NoOthersWrite, "others may write it"},
		{dir, Private, "not a regular file"},
	} {
		if _, err := Read(tc.path, tc.access); err == nil || !errors.Is(err, ErrNotTrusted) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.path, err, tc.want)
		}
	}
	if _, err := Read(write("readable-port", "9222", 0o644), NoOthersWrite); err != nil {
		t.Errorf("a port file others may read: %v", err)
	}
	t.Run("owned by another user", func(t *testing.T) {
		uid := otherUID(t)
		p := write("theirs", "9222", 0o600)
		os.Chown(p, uid, uid)
		if _, err := Read(p, NoOthersWrite); err == nil || !strings.Contains(err.Error(), "belongs to uid") {
			t.Fatalf("%v", err)
		}
	})
}

func TestWriteReplacesALinkAndNeverFollowsIt(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("victim's data"), 0o600)
	state := filepath.Join(dir, "state.json")
	os.Symlink(secret, state)
	if err := Write(state, []byte(`{"pid":1}`)); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(secret); string(data) != "victim's data" {
		t.Fatalf("the link's target was written: %q", data)
	}
	st, err := os.Lstat(state)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v %v", st.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Fatalf("temp files left: %d entries", len(entries))
	}
}

// A folder to write into that a program will trust later (a native host
// manifest's): no link there or just above it, and no link another user
// made anywhere above it, even one that points at a folder of ours (they
// may point it elsewhere later).
func TestCheckNoLinks(t *testing.T) {
	base := t.TempDir()
	mine := filepath.Join(base, "mine")
	if err := os.MkdirAll(filepath.Join(mine, "profile"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckNoLinks(filepath.Join(mine, "profile", "NativeMessagingHosts")); err != nil {
		t.Fatalf("a missing folder in a folder of ours: %v", err)
	}
	if err := CheckNoLinks(filepath.Join(mine, "new", "profile", "NativeMessagingHosts")); err != nil {
		t.Fatalf("missing folders below a folder of ours: %v", err)
	}
	os.Symlink(mine, filepath.Join(base, "alias"))
	if err := CheckNoLinks(filepath.Join(base, "alias", "profile", "NativeMessagingHosts")); err != nil {
		t.Fatalf("a link of ours above the profile: %v", err)
	}
	if err := CheckNoLinks(filepath.Join(base, "alias", "NativeMessagingHosts")); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("the profile is a link: %v", err)
	}
	t.Run("another user's link above", func(t *testing.T) {
		uid := otherUID(t)
		theirs := filepath.Join(base, "theirs")
		os.Symlink(mine, theirs)
		if err := os.Lchown(theirs, uid, uid); err != nil {
			t.Fatal(err)
		}
		if err := CheckNoLinks(filepath.Join(theirs, "profile", "NativeMessagingHosts")); err == nil || !strings.Contains(err.Error(), "is a link made by uid 65534") {
			t.Fatalf("%v", err)
		}
		if err := CheckDir(filepath.Join(theirs, "profile")); err == nil {
			t.Fatal("CheckDir trusted a folder reached through another user's link")
		}
	})
}
