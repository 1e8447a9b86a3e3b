package state

import (
	"os"
	"strconv"
)

func userBase(getenv func(string) string, home func() (string, error)) string {
	return darwinBase(getenv, home)
}

func uidString() string { return strconv.Itoa(os.Geteuid()) }
