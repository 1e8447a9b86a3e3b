package vscodetier

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Tier 2's policy: the hook of the virtual browser whose only tab is VS
// Code's browser view (see View). The virtual browser answers the Target
// domain for the view alone, so VS Code's windows are never named to a
// client; this allowlist refuses anything that would close or reshape VS
// Code or reach past the view, answers the few browser-level reads
// clients make from VS Code's own browser session, and makes the Simple
// Browser's iframe behave as a page (an iframe refuses what only a window
// does).

// topLevelOnly is Chromium's answer to page commands sent to an iframe.
const topLevelOnly = "Command can only be executed on top-level targets"

// harmless commands that an iframe refuses as top-level-only: they tune
// the whole window (size, focus, background), which VS Code's view does not
// own; they succeed as no-ops.
var harmless = map[string]bool{
	"Emulation.setDeviceMetricsOverride":          true,
	"Emulation.clearDeviceMetricsOverride":        true,
	"Emulation.setFocusEmulationEnabled":          true,
	"Emulation.setDefaultBackgroundColorOverride": true,
	"Emulation.setVisibleSize":                    true,
	"Page.bringToFront":                           true,
	"Page.resetNavigationHistory":                 true,
	"Page.setWebLifecycleState":                   true,
	"Emulation.setScrollbarsHidden":               true,
}

// browserLevel are the commands a client may send on a browser session:
// what Playwright, Puppeteer (chrome-devtools-mcp) and raw CDP clients send
// as they connect and find their page. The virtual browser answers the
// Target domain for the view alone; the Browser reads are asked of VS Code
// for the view's window (see atBrowser). Anything else at that level would
// reach all of VS Code (its cookies, permissions, downloads, a trace of
// every window) and is refused.
var browserLevel = map[string]bool{
	"Browser.getVersion":           true,
	"Browser.setDownloadBehavior":  true, // answered here
	"Browser.getWindowForTarget":   true, // the view's window
	"Browser.getWindowBounds":      true, // read only (resizing it is refused)
	"Target.getTargets":            true,
	"Target.getTargetInfo":         true,
	"Target.getDevToolsTarget":     true, // the view's only: chrome-devtools-mcp asks for each page
	"Target.getBrowserContexts":    true, // Puppeteer, as it connects
	"Target.setDiscoverTargets":    true, // the events are the view's alone
	"Target.setAutoAttach":         true,
	"Target.attachToTarget":        true,
	"Target.attachToBrowserTarget": true, // a browser session of the virtual browser's (each proxy client has one)
	"Target.activateTarget":        true,
	"Target.detachFromTarget":      true,
}

// onPage are the Target commands a session on the view (or on a frame or
// worker below it) may send: its own frames and workers, and itself.
var onPage = map[string]bool{
	"Target.setAutoAttach":    true,
	"Target.getTargetInfo":    true,
	"Target.detachFromTarget": true,
}

// refused at any level: they would close or reshape VS Code, or reach past
// the view into VS Code's own data.
var refused = map[string]bool{
	"Browser.close":                 true,
	"Browser.crash":                 true,
	"Browser.crashGpuProcess":       true,
	"Browser.setWindowBounds":       true,
	"Browser.setContentsSize":       true,
	"Browser.setDockTile":           true,
	"Browser.executeBrowserCommand": true,
	"Target.closeTarget":            true,
	"Target.createTarget":           true,
	"Target.createBrowserContext":   true,
	"Target.disposeBrowserContext":  true,
	"Target.exposeDevToolsProtocol": true,
	"Target.sendMessageToTarget":    true,
	"Target.setRemoteLocations":     true,
	"Target.autoAttachRelated":      true,
	"Page.close":                    true,
	"Page.crash":                    true,
	"Storage.clearCookies":          true,
	"Storage.clearDataForOrigin":    true,
	"Network.clearBrowserCookies":   true,
	"Network.clearBrowserCache":     true,
}

// command is the policy: the virtual browser asks it about every command.
func (v *View) command(at cdp.Place, m *cdp.Message) cdp.Verdict {
	if refused[m.Method] {
		switch m.Method {
		case "Target.createTarget", "Target.createBrowserContext":
			return refuse(m, v.refuseNewWindow())
		case "Target.closeTarget", "Page.close":
			return refuse(m, refuseClose)
		}
		return refuse(m, fmt.Sprintf(refuseReshape, m.Method))
	}
	if at.Page {
		return v.onView(at, m)
	}
	if !browserLevel[m.Method] {
		v.log.Debug("Tier 2: refused a browser-level command", "method", m.Method)
		return refuse(m, v.refuseBrowserLevel(m.Method))
	}
	return v.atBrowser(m)
}

func refuse(m *cdp.Message, why string) cdp.Verdict {
	return cdp.Verdict{Reply: cdp.Fail(m, "browser-coordinator: %s", why)}
}

// atBrowser judges an allowed command on a browser session.
func (v *View) atBrowser(m *cdp.Message) cdp.Verdict {
	id := gjson.GetBytes(m.Params, "targetId").String()
	switch m.Method {
	case "Browser.setDownloadBehavior":
		// Downloads are VS Code's business; accept and change nothing.
		return cdp.Verdict{Reply: cdp.Reply(m, struct{}{})}
	case "Target.activateTarget":
		if _, shown := v.host.Shown(id); shown {
			return cdp.Verdict{Reply: cdp.Reply(m, struct{}{})} // the view is VS Code's to bring forward
		}
	case "Browser.getWindowForTarget", "Target.getDevToolsTarget":
		if view, ok := v.Current(); id == "" && ok && m.Method == "Browser.getWindowForTarget" {
			id = view.ID // the client's only page
		}
		t, shown := v.host.Shown(id)
		if !shown {
			return cdp.Verdict{Reply: cdp.Fail(m, "No target with given id found")}
		}
		return cdp.Verdict{Async: func(ctx context.Context) *cdp.Message { return v.askForView(ctx, m, t) }}
	case "Browser.getWindowBounds":
		return cdp.Verdict{Async: func(ctx context.Context) *cdp.Message {
			res, err := v.conn.Call(ctx, "", m.Method, m.Params)
			return answer(m, res, err)
		}}
	case "Target.attachToBrowserTarget", "Target.getTargets":
		if m.SessionID == "" {
			// The proxy's own, for a client that connects or a /json/list:
			// the view is found (the Simple Browser opened when there is
			// none) and probed once more before a client is shown it.
			return cdp.Verdict{Async: v.whenShown(m)}
		}
	}
	return cdp.Verdict{}
}

// askForView asks VS Code's own browser session about the view's target:
// for an iframe view, its window is the VS Code window that holds it.
func (v *View) askForView(ctx context.Context, m *cdp.Message, t cdp.Target) *cdp.Message {
	id := t.ID
	if t.Type == "iframe" && m.Method == "Browser.getWindowForTarget" {
		window, err := v.parentPage(ctx, t.ID)
		if err != nil {
			return cdp.Fail(m, "%v", err)
		}
		id = window
	}
	res, err := v.conn.Call(ctx, "", m.Method, map[string]string{"targetId": id})
	return answer(m, res, err)
}

// whenShown finds the view before m goes on, or answers why there is none.
func (v *View) whenShown(m *cdp.Message) func(context.Context) *cdp.Message {
	return func(ctx context.Context) *cdp.Message {
		if _, err := v.ensureView(ctx, ""); err != nil {
			return cdp.Fail(m, "browser-coordinator: %v", v.words.Phrased(err))
		}
		v.show()
		return nil
	}
}

// onView judges a command on the view's session, or on a frame's or a
// worker's below it.
func (v *View) onView(at cdp.Place, m *cdp.Message) cdp.Verdict {
	if strings.HasPrefix(m.Method, "Target.") && !onPage[m.Method] {
		return refuse(m, fmt.Sprintf(refuseTarget, m.Method))
	}
	t, shown := v.host.Shown(at.Target)
	if !shown || t.Type != "iframe" || at.Child {
		return cdp.Verdict{}
	}
	switch m.Method {
	case "Page.captureScreenshot":
		return cdp.Verdict{Async: func(ctx context.Context) *cdp.Message { return v.screenshot(ctx, t.ID, m) }}
	case "Page.getFrameTree":
		return cdp.Verdict{Then: func(a *cdp.Message) *cdp.Message {
			a.Result, _ = sjson.DeleteBytes(a.Result, "frameTree.frame.parentId")
			return a
		}}
	case "Page.getNavigationHistory":
		return cdp.Verdict{Reply: cdp.Reply(m, map[string]any{"currentIndex": 0, "entries": []map[string]any{
			{"id": 0, "url": t.URL, "userTypedURL": t.URL, "title": t.Title, "transitionType": "typed"}}})}
	}
	return cdp.Verdict{Then: func(a *cdp.Message) *cdp.Message {
		if a.Error == nil || !strings.Contains(a.Error.Message, topLevelOnly) {
			return a
		}
		if harmless[m.Method] {
			return cdp.Reply(m, struct{}{})
		}
		a.Error.Message = fmt.Sprintf("browser-coordinator: %s is not available in VS Code's browser view (it is a frame of VS Code's window, not a window of its own)", m.Method)
		return a
	}}
}

// event is the host's hook on the view's events: an iframe view's
// navigations are a page's.
func (v *View) event(t cdp.Target, m *cdp.Message) *cdp.Message {
	if m.Method == "Page.frameNavigated" && t.Type == "iframe" && gjson.GetBytes(m.Params, "frame.id").String() == t.ID {
		m.Params, _ = sjson.DeleteBytes(m.Params, "frame.parentId")
	}
	return m
}

// answer turns a call's outcome into the answer to m.
func answer(m *cdp.Message, res json.RawMessage, err error) *cdp.Message {
	if err != nil {
		return cdp.Fail(m, "%v", err)
	}
	return &cdp.Message{ID: m.ID, SessionID: m.SessionID, Result: res}
}
