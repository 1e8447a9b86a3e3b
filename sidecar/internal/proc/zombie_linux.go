package proc

import (
	"bytes"
	"os"
	"strconv"
)

// zombie reads the state field of /proc/<pid>/stat ("pid (comm) S ...").
// comm may contain spaces and parentheses, so the state follows the last ')'.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'Z' || b[i+2] == 'X'
}
