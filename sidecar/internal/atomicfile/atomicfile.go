// Package atomicfile writes files so that readers see the old content or
// the new one, never a mix: a temp file beside the target, then a rename.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write stores data at path atomically with mode.
func Write(path string, data []byte, mode os.FileMode) error {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
