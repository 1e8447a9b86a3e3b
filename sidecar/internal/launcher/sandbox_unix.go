//go:build unix

package launcher

import "os"

// needsNoSandbox: Chromium refuses to start as root with its sandbox on.
func needsNoSandbox() bool { return os.Geteuid() == 0 }
