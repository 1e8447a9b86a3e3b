//go:build !linux && !darwin && !windows

package vscodetier

import "errors"

func parentOf(int) (int, error)         { return 0, errors.New("not supported on this OS") }
func commandLine(int) ([]string, error) { return nil, errors.New("not supported on this OS") }
