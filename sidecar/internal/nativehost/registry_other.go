//go:build !windows

package nativehost

import "errors"

// setRegistry exists on Windows only; elsewhere the browser finds the
// manifest by its folder and Install never asks for a key.
func setRegistry(key, manifest string) (bool, error) {
	return false, errors.New("the registry exists on Windows only")
}
