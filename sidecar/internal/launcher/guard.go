package launcher

import "os"

// guard ties a browser's process tree to the coordinator's life. Each OS has
// its own (guard_linux.go, guard_darwin.go, guard_windows.go).
type guard interface {
	// kill ends the browser's whole process tree at once.
	kill(p *os.Process)
	// release drops what the guard holds, once the browser has been reaped.
	release()
}
