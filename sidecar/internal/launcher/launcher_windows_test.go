package launcher

import (
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"golang.org/x/sys/windows"
)

func runTestHelper() (int, bool) { return 0, false }

func TestWindowsGuard(t *testing.T) {
	if proc.KillOnCloseLimits().BasicLimitInformation.LimitFlags&windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE == 0 {
		t.Fatal("the job would not kill the browser when the coordinator dies")
	}
	if needsNoSandbox() {
		t.Fatal("--no-sandbox on Windows")
	}
}
