//go:build !windows

package state

func samePath(a, b string) bool { return a == b }
