//go:build !linux

package launcher

import "os"

// enlarge is Linux's alone (F_SETPIPE_SZ).
func enlarge(...*os.File) {}
