//go:build unix

package launcher

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

func stopSignal() os.Signal { return syscall.SIGSTOP }

// runTestHelper lets the test binary double as a stand-in coordinator that
// a test can kill.
func runTestHelper() (int, bool) {
	if os.Getenv("LAUNCHER_TEST_COORDINATOR") != "" {
		return fakeCoordinator(), true
	}
	return 0, false
}

// startFakeCoordinator runs this test binary as a coordinator that launches
// a browser; it returns the browser's pid and profile.
func startFakeCoordinator(t *testing.T, browser, profiles string, extraEnv []string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "LAUNCHER_TEST_COORDINATOR=1", "LAUNCHER_TEST_BROWSER="+browser, "LAUNCHER_TEST_PROFILES="+profiles)
	cmd.Env = append(cmd.Env, extraEnv...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fakeCoordinatorCmd = cmd
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("fake coordinator: %v", err)
	}
	var pid int
	var profile string
	if _, err := fmt.Sscanf(strings.TrimSpace(line), "%d %s", &pid, &profile); err != nil {
		t.Fatalf("fake coordinator said %q", line)
	}
	return pid, profile
}

var fakeCoordinatorCmd *exec.Cmd

func killFakeCoordinator(t *testing.T) {
	t.Helper()
	_ = fakeCoordinatorCmd.Process.Signal(syscall.SIGKILL)
	_ = fakeCoordinatorCmd.Wait()
}

// fakeCoordinator launches a browser, reports it on stdout and blocks until
// killed: the stand-in for a coordinator that dies without cleaning up.
func fakeCoordinator() int {
	b, err := Launch(context.Background(), Options{
		Path:        os.Getenv("LAUNCHER_TEST_BROWSER"),
		Headless:    true,
		ProfileRoot: os.Getenv("LAUNCHER_TEST_PROFILES"),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("%d %s\n", b.PID, b.UserDataDir)
	select {}
}
