//go:build unix

package wrap

import (
	"fmt"
	"os/exec"
	"syscall"
)

// Exec replaces this process with the child, with environment env: its
// stdio, signals and exit code are the child's own, and no wrapper process
// stays in between.
func Exec(argv, env []string) (int, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 127, fmt.Errorf("wrap: %w", err)
	}
	err = syscall.Exec(path, argv, env)
	return 126, fmt.Errorf("wrap: exec %s: %w", path, err)
}
