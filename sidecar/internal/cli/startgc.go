package cli

import (
	"runtime/debug"
	"time"
)

// quietStart is how long after start the garbage collector stays off.
const quietStart = 250 * time.Millisecond

// startMemoryCap bounds the heap while the collector is off: past it the
// runtime collects anyway (a start that does far more than usual).
const startMemoryCap = 64 << 20

// collectAfterStart keeps the garbage collector out of the start and then
// collects once, handing what is free back to the OS.
//
// The start's garbage (package inits, above all the JSON Schema
// meta-schemas mcp-go's validator compiles; building the tools; the first
// tools/list) would otherwise sit in the heap of an idle coordinator until
// the runtime's forced collection two minutes later: collecting once, a
// moment after start, when the client has had its tools, takes idle RSS
// from 14.1 to 13.85 MB (anonymous 4.1 -> 3.6 MB). With the collector off
// until then, no collection lands in the client's first requests either
// (one did before the regular expressions became lazy: 14 % of the start's
// instructions); past startMemoryCap it collects anyway. GOGC and
// GOMEMLIMIT, if set, hold from then on.
func collectAfterStart() {
	gcPercent := debug.SetGCPercent(-1)
	memoryLimit := debug.SetMemoryLimit(startMemoryCap)
	time.AfterFunc(quietStart, func() {
		debug.SetMemoryLimit(memoryLimit)
		debug.SetGCPercent(gcPercent)
		debug.FreeOSMemory()
	})
}
