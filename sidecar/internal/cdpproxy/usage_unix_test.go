//go:build unix

package cdpproxy

import (
	"syscall"
	"testing"
	"time"
)

// usage is what this process (every thread: the proxy and the client, not
// the browsers) spent from startUsage to report: CPU time and context
// switches a round trip, the counts a loaded machine does not blur as it
// blurs wall time.
type usage syscall.Rusage

func startUsage() (u usage) {
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, (*syscall.Rusage)(&u))
	return u
}

func (u usage) report(b *testing.B) {
	var now syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &now)
	n := float64(b.N)
	cpu := time.Duration(now.Utime.Nano() + now.Stime.Nano() - u.Utime.Nano() - u.Stime.Nano())
	sys := time.Duration(now.Stime.Nano() - u.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/n, "cpu-µs/op")
	b.ReportMetric(float64(sys.Nanoseconds())/1e3/n, "sys-µs/op") // of cpu, in the kernel
	b.ReportMetric(float64(now.Nvcsw+now.Nivcsw-u.Nvcsw-u.Nivcsw)/n, "ctxsw/op")
}
