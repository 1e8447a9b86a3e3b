//go:build unix

package userfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// foreign says why st is not this user's to trust, or "".
func foreign(st fs.FileInfo, access Access) string {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return "has no owner information"
	}
	if uid := os.Geteuid(); int(sys.Uid) != uid {
		return fmt.Sprintf("belongs to uid %d, not to you (uid %d)", sys.Uid, uid)
	}
	perm := st.Mode().Perm()
	switch access {
	case Private:
		if perm&0o077 != 0 {
			return fmt.Sprintf("has mode %04o: others may read or write it (want 0600)", perm)
		}
	case NoOthersWrite:
		if perm&0o022 != 0 {
			return fmt.Sprintf("has mode %04o: others may write it", perm)
		}
	}
	return ""
}

func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok && pe.Err == syscall.ELOOP {
			return nil, fmt.Errorf("%w: %s is a symbolic link", ErrNotTrusted, path)
		}
		return nil, err
	}
	return f, nil
}
