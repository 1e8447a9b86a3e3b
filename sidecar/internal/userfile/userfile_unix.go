//go:build unix

package userfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// unsafeAncestor finds a folder above path that another user could use to
// swap path (see unsafeFrom).
func unsafeAncestor(path string) (string, string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", ""
	}
	return unsafeFrom(filepath.Dir(abs))
}

// unsafeFrom finds, from the folder dir up, one that another user could
// use to swap what is below it: one owned by neither this user nor root,
// a link someone else made (it could be pointed elsewhere), or one that
// others may write and that lacks the sticky bit (/tmp has it: there only
// an entry's owner may rename it).
func unsafeFrom(dir string) (string, string) {
	me := os.Geteuid()
	for p := dir; ; p = filepath.Dir(p) {
		if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			if sys, ok := lst.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != me && sys.Uid != 0 {
				return p, fmt.Sprintf("is a link made by uid %d", sys.Uid)
			}
		}
		st, err := os.Stat(p)
		if err != nil {
			return p, err.Error()
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != me && sys.Uid != 0 {
			return p, fmt.Sprintf("belongs to uid %d", sys.Uid)
		}
		if st.Mode().Perm()&0o022 != 0 && st.Mode()&fs.ModeSticky == 0 {
			return p, fmt.Sprintf("others may write (mode %04o, no sticky bit)", st.Mode().Perm())
		}
		if p == filepath.Dir(p) {
			return "", ""
		}
	}
}
