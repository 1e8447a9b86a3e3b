package vscodetier

import "os"

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 32

// ancestorCommandLines walks from our parent up to the root, collecting
// command lines (parentOf and commandLine are per OS).
func ancestorCommandLines() ([][]string, error) {
	var out [][]string
	pid := os.Getpid()
	for range maxAncestors {
		ppid, err := parentOf(pid)
		if err != nil || ppid <= 1 || ppid == pid {
			break
		}
		if args, err := commandLine(ppid); err == nil {
			out = append(out, args)
		}
		pid = ppid
	}
	return out, nil
}
