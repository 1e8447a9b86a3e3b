//go:build unix

package nativemsg

import (
	"os"
	"path/filepath"
	"testing"
)

// A folder others may enter is closed; a file where the folder should be is refused.
func TestEnsureDirClosesAndRefuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dir, 0o777)
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("the folder stayed %o", fi.Mode().Perm())
	}
	file := filepath.Join(t.TempDir(), "file")
	_ = os.WriteFile(file, nil, 0o600)
	if err := EnsureDir(file); err == nil {
		t.Fatal("a file was taken for the folder")
	}
}
