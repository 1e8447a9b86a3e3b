//go:build unix && !darwin

package state

import (
	"os"
	"strconv"
)

func userBase(getenv func(string) string, home func() (string, error)) string {
	return xdgBase(getenv, home)
}

func uidString() string { return strconv.Itoa(os.Geteuid()) }
