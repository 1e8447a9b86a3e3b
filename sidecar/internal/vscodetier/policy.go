package vscodetier

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// viewRules are Tier 2's side of one client's view of VS Code (see
// View): a cdp.Scope on the browser view shows the client a browser whose
// only page is the view; these rules refuse anything that would close or
// reshape VS Code or reach past the view (an allowlist), and make the
// Simple Browser's iframe behave as a page.
type viewRules struct {
	view   *View
	viewID string
	iframe bool // the view is the Simple Browser's iframe, not a page

	mu     sync.Mutex
	parent string // the bridge's own session on the window that holds an iframe view
}

// newViewPolicy is one client's policy in Tier 2.
func newViewPolicy(v *View, viewID string, iframe bool) *cdp.Scope {
	return cdp.NewScope(viewID, &viewRules{view: v, viewID: viewID, iframe: iframe}, "in Tier 2 the only target is VS Code's browser view")
}

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

// browserLevel are the commands a client may send without a session, on
// VS Code's own browser session: what Playwright, Puppeteer
// (chrome-devtools-mcp) and raw CDP clients send as they connect and find
// their page. The Target commands are answered for the view alone (see
// Command); anything else at that level would reach all of VS Code (its
// cookies, permissions, downloads, a trace of every window) and is refused.
var browserLevel = map[string]bool{
	"Browser.getVersion":          true,
	"Browser.setDownloadBehavior": true, // answered here
	"Browser.getWindowForTarget":  true, // the view's window
	"Browser.getWindowBounds":     true, // read only (resizing it is refused)
	"Target.getTargets":           true,
	"Target.getTargetInfo":        true,
	"Target.getDevToolsTarget":    true, // the view's only: chrome-devtools-mcp asks for each page
	"Target.getBrowserContexts":   true, // Puppeteer, as it connects
	"Target.setDiscoverTargets":   true, // the events are the view's alone
	"Target.setAutoAttach":        true,
	"Target.attachToTarget":       true,
	"Target.activateTarget":       true,
	"Target.detachFromTarget":     true,
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
	"Target.attachToBrowserTarget":  true,
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

// Command implements cdp.ScopeRules: the allowlist.
func (p *viewRules) Command(s *cdp.Relay, m *cdp.Message) (cdp.Verdict, bool) {
	if refused[m.Method] {
		switch m.Method {
		case "Target.createTarget", "Target.createBrowserContext":
			return cdp.Verdict{Reply: cdp.Fail(m, "browser-coordinator: %s", p.view.refuseNewWindow())}, true
		case "Target.closeTarget", "Page.close":
			return cdp.Verdict{Reply: cdp.Fail(m, "browser-coordinator: %s", refuseClose)}, true
		}
		return cdp.Verdict{Reply: cdp.Fail(m, "browser-coordinator: "+refuseReshape, m.Method)}, true
	}
	if m.SessionID != "" {
		return cdp.Verdict{}, false
	}
	if !browserLevel[m.Method] {
		p.view.log.Debug("Tier 2: refused a browser-level command", "method", m.Method)
		return cdp.Verdict{Reply: cdp.Fail(m, "browser-coordinator: %s", p.view.refuseBrowserLevel(m.Method))}, true
	}
	switch id := gjson.GetBytes(m.Params, "targetId").String(); m.Method {
	case "Browser.setDownloadBehavior":
		// Downloads are VS Code's business; accept and change nothing.
		return cdp.Verdict{Reply: cdp.Reply(m, struct{}{})}, true
	case "Browser.getWindowForTarget":
		if p.iframe && (id == "" || id == p.viewID) {
			return cdp.Verdict{Async: func(ctx context.Context) *cdp.Message {
				window, err := p.view.parentPage(ctx, p.viewID)
				if err != nil {
					return cdp.Fail(m, "%v", err)
				}
				res, err := s.Call(ctx, "", "Browser.getWindowForTarget", map[string]string{"targetId": window})
				return answer(m, res, err)
			}}, true
		}
	}
	return cdp.Verdict{}, false
}

// Session implements cdp.ScopeRules: commands on a session the client holds.
func (p *viewRules) Session(s *cdp.Relay, m *cdp.Message, onView bool) cdp.Verdict {
	if !p.iframe || !onView {
		return cdp.Verdict{}
	}
	switch m.Method {
	case "Page.captureScreenshot":
		return cdp.Verdict{Async: func(ctx context.Context) *cdp.Message { return p.screenshot(ctx, s, m) }}
	case "Page.getFrameTree":
		return cdp.Verdict{Then: func(a *cdp.Message) *cdp.Message {
			a.Result, _ = sjson.DeleteBytes(a.Result, "frameTree.frame.parentId")
			return a
		}}
	case "Page.getNavigationHistory":
		return cdp.Verdict{Async: func(ctx context.Context) *cdp.Message {
			t, _ := p.view.Current()
			return cdp.Reply(m, map[string]any{"currentIndex": 0, "entries": []map[string]any{
				{"id": 0, "url": t.URL, "userTypedURL": t.URL, "title": t.Title, "transitionType": "typed"}}})
		}}
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

// Event implements cdp.ScopeRules: an iframe view's navigations are a
// page's.
func (p *viewRules) Event(m *cdp.Message) *cdp.Message {
	if m.Method == "Page.frameNavigated" && p.iframe && gjson.GetBytes(m.Params, "frame.id").String() == p.viewID {
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
