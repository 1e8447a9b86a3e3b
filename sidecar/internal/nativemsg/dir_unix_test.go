//go:build unix

package nativemsg

import (
	"os"
	"path/filepath"
	"testing"
)

// A folder others may enter is closed; one others may write, or a file
// where the folder should be, is refused.
func TestEnsureDirClosesAndRefuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dir, 0o755)
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("the folder stayed %o", fi.Mode().Perm())
	}
	writable := filepath.Join(t.TempDir(), "writable")
	_ = os.Mkdir(writable, 0o777)
	_ = os.Chmod(writable, 0o777)
	if err := EnsureDir(writable); err == nil {
		t.Fatal("a folder anyone may write was taken")
	}
	file := filepath.Join(t.TempDir(), "file")
	_ = os.WriteFile(file, nil, 0o600)
	if err := EnsureDir(file); err == nil {
		t.Fatal("a file was taken for the folder")
	}
}
