//go:build windows

package userfile

import (
	"fmt"
	"io/fs"
	"os"
)

// foreign: Windows has no uid or mode bits to check; the folder's ACL
// (the user's profile) keeps other users out.
func foreign(fs.FileInfo, Access) string { return "" }

// openNoFollow refuses a link (checked, then opened: Windows has no
// O_NOFOLLOW; the folder is the user's own).
func openNoFollow(path string) (*os.File, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%w: %s is a symbolic link", ErrNotTrusted, path)
	}
	return os.Open(path)
}

// unsafeAncestor: Windows keeps a user's folders in their profile, closed to
// other users by its ACLs; owners are not checked here.
func unsafeAncestor(string) (string, string) { return "", "" }

func unsafeFrom(string) (string, string) { return "", "" }
