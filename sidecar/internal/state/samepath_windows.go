package state

import "strings"

// samePath: Windows paths are case-insensitive.
func samePath(a, b string) bool { return strings.EqualFold(a, b) }
