//go:build unix

package cli

import (
	"os"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/procgroup"
)

// runInternal dispatches the hidden subcommands the binary runs itself with.
func runInternal(args []string) (int, bool) {
	if len(args) > 0 && args[0] == procgroup.WatchdogCommand {
		return procgroup.RunWatchdog(args[1:], os.Stdin), true
	}
	return 0, false
}
