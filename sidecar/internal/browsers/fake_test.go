package browsers

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
)

// fakeSys is a fake machine: executables, symlinks, directories, PATH and
// the version each executable would report.
type fakeSys struct {
	goos     string
	env      map[string]string
	files    []string            // existing executables
	links    map[string]string   // path → what it resolves to
	dirs     map[string][]string // directory → entry names
	onPath   map[string]string   // PATH name → path
	versions map[string]string   // path → version; missing: the read fails
}

func (f fakeSys) detector() *Detector {
	return &Detector{
		GOOS:   f.goos,
		Getenv: func(k string) string { return f.env[k] },
		Exists: func(p string) bool { return slices.Contains(f.files, p) },
		LookPath: func(name string) (string, error) {
			if p, ok := f.onPath[name]; ok {
				return p, nil
			}
			return "", fmt.Errorf("exec: %q: executable file not found in $PATH", name)
		},
		Version: func(_ context.Context, b Browser) (string, error) {
			if v, ok := f.versions[b.Path]; ok {
				return v, nil
			}
			return "", errors.New("no version for " + b.Path)
		},
		EvalSymlinks: func(p string) (string, error) {
			if r, ok := f.links[p]; ok {
				return r, nil
			}
			if slices.Contains(f.files, p) {
				return p, nil
			}
			return "", fs.ErrNotExist
		},
		ReadDir: func(dir string) ([]string, error) {
			if names, ok := f.dirs[dir]; ok {
				return names, nil
			}
			return nil, fs.ErrNotExist
		},
	}
}
