// Package lazyre is a regular expression compiled when it is first used,
// not when the program starts.
//
// A package-level regexp.MustCompile runs in the package's init, before
// main, and its compiled program stays on the heap: the coordinator's own
// expressions (two long alternations in pagetools, the browser version,
// the MCP config judge) made 7 million of the 38.7 million instructions
// from exec to tools/list answered (callgrind; with them lazy, 31.5
// million) and 1.1 MB of its idle memory, though initialize and tools/list
// use none of them.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is an expression compiled on first use. It panics then if expr
// does not compile, as regexp.MustCompile does (a test that uses it finds
// that out).
type Regexp struct {
	get func() *regexp.Regexp
}

// New returns expr, to be compiled on first use.
func New(expr string) *Regexp {
	return &Regexp{get: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// MatchString is regexp.Regexp's.
func (r *Regexp) MatchString(s string) bool { return r.get().MatchString(s) }

// FindString is regexp.Regexp's.
func (r *Regexp) FindString(s string) string { return r.get().FindString(s) }

// FindStringSubmatch is regexp.Regexp's.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.get().FindStringSubmatch(s) }
