//go:build !linux

package portowner

// Mine: only Linux tells a socket's owner without privileges; elsewhere
// the checks of the file that named the port stand.
func Mine(int) error { return nil }
