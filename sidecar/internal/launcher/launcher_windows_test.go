package launcher

import "testing"

func runTestHelper() (int, bool) { return 0, false }

func TestKillOnCloseLimits(t *testing.T) {
	info := killOnCloseLimits()
	if info.BasicLimitInformation.LimitFlags&0x2000 == 0 { // JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
		t.Fatal("job object would not kill the browser when the coordinator dies")
	}
	if needsNoSandbox() {
		t.Fatal("--no-sandbox on Windows")
	}
}
