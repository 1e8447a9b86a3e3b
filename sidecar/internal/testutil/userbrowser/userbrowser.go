// Package userbrowser starts the user's own browser for the tests of the
// everyday browser: Debian's Chromium started as a user starts it, with no
// debugging port, the built Browser Coordinator extension loaded
// (dist/browser-extension, from `npm run build`) and the native host
// registered in its profile by the sidecar binary of this tree (`install
// --host chromium --user-data-dir`). The browser passes the test's state
// folder to the host through its environment, as a user's browser passes
// BROWSER_COORDINATOR_STATE_DIR.
//
// The harness keeps a --remote-debugging-pipe to that Chromium for what a
// user does by hand (open tabs, share one in the popup, look at their tabs)
// and to stop the extension's service worker; the code under test never sees
// the pipe. It is shared by the everyday package's tests and the
// coordinator's.
package userbrowser

// ExtensionID is the extension's id, fixed by its manifest key.
const ExtensionID = "ccgooljpoihlpcjlebchdcobkpcdkffa"

// Target is a target of the real browser, as Target.getTargets lists it.
type Target struct {
	TargetID string `json:"targetId"`
	Type     string `json:"type"`
	Title    string `json:"title"`
	URL      string `json:"url"`
}

// IsPage matches the page at url.
func IsPage(url string) func(Target) bool {
	return func(ti Target) bool { return ti.Type == "page" && ti.URL == url }
}
