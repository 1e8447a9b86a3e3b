//go:build unix

package state

import (
	"os"
	"path/filepath"
	"strconv"
)

func noHomeBase() string { return filepath.Join(os.TempDir(), "uid-"+strconv.Itoa(os.Geteuid())) }
