// Package userfile keeps a coordinator's files out of other local users'
// reach. The state folder is trusted only when this user owns it and no one
// else can write it; files in it are written without following a link an
// attacker could have planted, and read only when they are regular files of
// this user that no one else can change (the state file, which holds a
// bearer token, also that no one else can read).
//
// Why not trust the folder alone: a folder given with --state-dir may be a
// shared one, and a file that is not ours in our folder means someone got
// in; reading it would let them steer us (a forged endpoint, a forged port).
//
// On Windows the checks are the folder's ACL's business (the default folder
// is in the user's profile): uid and mode bits do not exist there, so only
// "a regular file, not a link" is checked.
package userfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Access is how private a file must be to be trusted.
type Access int

const (
	// Private files (state files, tokens): no group or other permission at all.
	Private Access = iota
	// NoOthersWrite files (the VS Code port file): others may read, not write.
	NoOthersWrite
)

// ErrNotTrusted marks a file or folder that exists but fails the checks.
var ErrNotTrusted = errors.New("not trusted")

// maxRead bounds what Read reads: these files are a few kilobytes.
const maxRead = 1 << 20

// EnsureDir creates dir (mode 0700, parents too) when it is missing, then
// checks it with CheckDir. It is how every folder of ours comes to exist.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return CheckDir(dir)
}

// CheckDir trusts dir (after following links: --state-dir may name a
// link the user made) when it is a folder owned by this user that no one
// else can write.
func CheckDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	if why := foreign(st, NoOthersWrite); why != "" {
		return fmt.Errorf("%w: the folder %s %s: another local user could plant or swap the coordinator's files there; "+
			"use a folder of your own (chmod 700 %s, or another folder)", ErrNotTrusted, dir, why, dir)
	}
	// A folder of ours inside another user's folder (or one that others may
	// write without the sticky bit) can be renamed away and replaced.
	for _, p := range []string{dir, resolved(dir)} {
		if above, why := unsafeAncestor(p); why != "" {
			return fmt.Errorf("%w: the folder %s is inside %s, which %s: another local user could swap the folder; "+
				"use a folder whose parents are yours or root's", ErrNotTrusted, dir, above, why)
		}
	}
	return nil
}

// CheckNoLinks trusts dir as a folder to write a file into that a program
// will later trust (a browser reads a native host manifest from it): dir
// and its parent, where they exist, are real folders, never links, owned
// by this user and closed to others' writes; the folders above are this
// user's or root's (see CheckDir). A folder missing yet is fine: the
// caller creates it, then checks again before writing.
func CheckNoLinks(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for _, p := range []string{abs, filepath.Dir(abs)} {
		st, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return err
		case st.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			return fmt.Errorf("%w: %s is a symbolic link (to %s): what is written through it lands wherever the link points, and whoever can change the link decides; "+
				"replace the link with a folder of your own, or name the folder it points to instead", ErrNotTrusted, p, target)
		case !st.IsDir():
			return fmt.Errorf("%s is not a folder", p)
		}
		if why := foreign(st, NoOthersWrite); why != "" {
			return fmt.Errorf("%w: the folder %s %s: another local user could swap what is written there; use a folder of your own", ErrNotTrusted, p, why)
		}
	}
	first := filepath.Dir(abs)
	for _, err := os.Lstat(first); errors.Is(err, fs.ErrNotExist) && first != filepath.Dir(first); _, err = os.Lstat(first) {
		first = filepath.Dir(first)
	}
	if above, why := unsafeFrom(first); why != "" {
		return fmt.Errorf("%w: the folder %s is inside %s, which %s: another local user could swap the folder; "+
			"use a folder whose parents are yours or root's", ErrNotTrusted, dir, above, why)
	}
	return nil
}

// resolved is dir with its links followed (dir itself when that fails).
func resolved(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}

// Read returns the content of a regular file of this user that passes
// access. A link is refused, not followed.
func Read(path string, access Access) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrNotTrusted, path)
	}
	if why := foreign(st, access); why != "" {
		return nil, fmt.Errorf("%w: %s %s", ErrNotTrusted, path, why)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRead+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxRead {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrNotTrusted, path, maxRead)
	}
	return data, nil
}

// Write stores data at path atomically (a temp file beside it, then a
// rename) with mode 0600. A link at path is replaced, never followed: the
// rename swaps the name, whatever it pointed at stays untouched.
func Write(path string, data []byte) error {
	dir, base := filepath.Split(path)
	var r [6]byte
	_, _ = rand.Read(r[:])
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.tmp-%x", base, r))
	// O_EXCL: the temp name is new; a link planted there is not followed.
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// IsNotExist reports whether err says the file is not there.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
