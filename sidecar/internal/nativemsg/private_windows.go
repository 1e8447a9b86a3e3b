//go:build windows

package nativemsg

import (
	"fmt"
	"os"
)

// checkPrivate: on Windows the folder lives below %LOCALAPPDATA% (or the
// state folder the user named), whose ACL already keeps other users out;
// Unix permission bits mean nothing there. Not tested on Windows here.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder (remove it, or set BROWSER_COORDINATOR_STATE_DIR)", dir)
	}
	return nil
}
