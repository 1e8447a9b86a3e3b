//go:build unix

package cli

import (
	"os"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
)

// runInternal dispatches the hidden subcommands the binary runs itself with.
func runInternal(args []string) (int, bool) {
	if len(args) > 0 && args[0] == launcher.WatchdogCommand {
		return launcher.RunWatchdog(args[1:], os.Stdin), true
	}
	return 0, false
}
