//go:build !linux

package childmcp

// awaitInput: the stall test runs on Linux only (group_linux_test.go), where
// the unread bytes of a pipe can be counted.
func awaitInput() {}
