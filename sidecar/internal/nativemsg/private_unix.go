//go:build unix

package nativemsg

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate refuses a folder that another user owns or may enter: the
// host's socket would then be reachable by them.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder (remove it, or set BROWSER_COORDINATOR_STATE_DIR)", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to another user (uid %d): remove it, or set BROWSER_COORDINATOR_STATE_DIR to a folder you own", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("%s is open to other users (mode %o) and cannot be closed: %w", dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}
