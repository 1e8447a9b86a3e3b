package nativehost

import (
	"os"
	"strings"
)

// HostName is the native messaging host's name: the manifest's "name" and
// what the extension passes to chrome.runtime.connectNative.
const HostName = "com.browser_coordinator.native_host"

// extensionID is the id of the Browser Coordinator extension, fixed by the
// public key in extension/browser/manifest.json (a test checks they agree).
const extensionID = "ccgooljpoihlpcjlebchdcobkpcdkffa"

// EnvExtensionIDs adds extension ids (comma-separated) to the ones the host
// serves and install allows: a build of the extension signed with another
// key, or a store listing with an id of its own.
const EnvExtensionIDs = "BROWSER_COORDINATOR_EXTENSION_IDS"

// DefaultExtensionIDs are the ids the host serves: the extension's own, and
// those in $BROWSER_COORDINATOR_EXTENSION_IDS.
func DefaultExtensionIDs(getenv func(string) string) []string {
	if getenv == nil {
		getenv = os.Getenv
	}
	ids := []string{extensionID}
	for _, id := range strings.Split(getenv(EnvExtensionIDs), ",") {
		if id = strings.TrimSpace(id); id != "" && ExtensionIDFromOrigin("chrome-extension://"+id+"/") != "" {
			ids = append(ids, id)
		}
	}
	return ids
}
