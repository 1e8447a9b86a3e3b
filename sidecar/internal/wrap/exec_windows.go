package wrap

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
)

// Exec runs the child with our stdio and environment env, and returns its
// exit code. Windows has
// no exec, so the child runs under us, in a kill-on-close Job: when the MCP
// host kills wrap, the child (and an npx tree under it) dies too. Console
// Ctrl+C reaches the child through the shared console; wrap ignores it and
// waits, so the child decides how to stop, and wrap exits with its code.
func Exec(argv, env []string) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signal.Ignore(os.Interrupt)
	job, err := proc.StartInJob(cmd)
	if err != nil {
		return 127, fmt.Errorf("wrap: %w", err)
	}
	defer job.Close()
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 1, fmt.Errorf("wrap: %w", err)
	}
	return 0, nil
}
