// Package proc answers questions about other processes that several layers
// need (is this pid alive?) without them importing each other.
package proc

// Alive reports whether pid names a running process. A zombie (exited but not
// yet reaped, common in containers whose PID 1 does not reap) counts as dead.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	return alive(pid)
}

// Mine reports whether pid is a process of this user: a state file or port
// file that names another user's process was not written by one of ours.
// Where the owner cannot be told (root on a system without /proc), it
// answers true and the caller's other checks stand.
func Mine(pid int) bool {
	if pid <= 0 {
		return false
	}
	return mine(pid)
}
