//go:build !unix

package cdpproxy

import "testing"

// usage reports nothing where getrusage is not (Windows): the benchmarks
// give their time alone.
type usage struct{}

func startUsage() usage { return usage{} }

func (usage) report(*testing.B) {}
