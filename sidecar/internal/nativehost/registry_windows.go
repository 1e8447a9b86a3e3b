//go:build windows

package nativehost

import (
	"errors"

	"golang.org/x/sys/windows/registry"
)

// setRegistry points HKCU\key's default value at manifest, as Chrome, Edge
// and Brave read it on Windows. Reports whether it changed. Built for
// Windows, not run here (the tests run on Linux).
func setRegistry(key, manifest string) (bool, error) {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, key, registry.QUERY_VALUE|registry.SET_VALUE)
	if err != nil {
		return false, err
	}
	defer k.Close()
	if old, _, err := k.GetStringValue(""); err == nil && old == manifest {
		return false, nil
	} else if err != nil && !errors.Is(err, registry.ErrNotExist) {
		return false, err
	}
	return true, k.SetStringValue("", manifest)
}
