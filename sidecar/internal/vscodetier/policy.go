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

// viewPolicy is one client's view of VS Code in Tier 2 (see View): a
// browser whose only page is the browser view. It answers the Target and
// Browser domains for that synthesized browser, the way Playwright's
// extension relay presents one tab, and refuses anything that would close
// or reshape VS Code.
type viewPolicy struct {
	view   *View
	viewID string
	iframe bool // the view is the Simple Browser's iframe, not a page

	mu           sync.Mutex
	owned        map[string]bool // sessions the client holds: the view and targets under it; never the bridge's own
	viewSessions map[string]bool // the owned sessions attached to the view itself
	parent       string          // the bridge's own session on the window that holds an iframe view
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

func (p *viewPolicy) own(session string) {
	p.mu.Lock()
	p.owned[session] = true
	p.mu.Unlock()
}

// owns: the client holds session: one it attached, or its page's (a
// page-level client's session was attached before the policy saw events).
func (p *viewPolicy) owns(s *cdp.Relay, session string) bool {
	if session != "" && session == s.PageSession() {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.owned[session]
}

// Command implements cdp.Policy.
func (p *viewPolicy) Command(s *cdp.Relay, m *cdp.Message) cdp.Verdict {
	if refused[m.Method] {
		msg := refuseReshape
		switch m.Method {
		case "Target.createTarget", "Target.createBrowserContext":
			return cdp.Verdict{Reply: cdp.Fail(m, "browser-coordinator: %s", p.view.refuseNewWindow())}
		case "Target.closeTarget", "Page.close":
			return cdp.Verdict{Reply: cdp.Fail(m, "browser-coordinator: %s", refuseClose)}
		}
		return cdp.Verdict{Reply: cdp.Fail(m, "browser-coordinator: "+msg, m.Method)}
	}
	if m.SessionID != "" {
		if !p.owns(s, m.SessionID) {
			return cdp.Verdict{Reply: cdp.Fail(m, "No session with given id")}
		}
		return p.sessionCommand(s, m)
	}
	if !browserLevel[m.Method] {
		p.view.log.Debug("Tier 2: refused a browser-level command", "method", m.Method)
		return cdp.Verdict{Reply: cdp.Fail(m, "browser-coordinator: %s", p.view.refuseBrowserLevel(m.Method))}
	}
	param := func(key string) string { return gjson.GetBytes(m.Params, key).String() }
	switch m.Method {
	case "Browser.setDownloadBehavior":
		// Downloads are VS Code's business; accept and change nothing.
		return cdp.Verdict{Reply: cdp.Reply(m, struct{}{})}
	case "Browser.getWindowForTarget":
		if id := param("targetId"); id != "" && id != p.viewID {
			return cdp.Verdict{Reply: cdp.Fail(m, "No target with given id found")}
		}
		if p.iframe {
			return cdp.Verdict{Async: func(ctx context.Context) *cdp.Message {
				window, err := p.view.parentPage(ctx, p.viewID)
				if err != nil {
					return cdp.Fail(m, "%v", err)
				}
				res, err := s.Call(ctx, "", "Browser.getWindowForTarget", map[string]string{"targetId": window})
				return answer(m, res, err)
			}}
		}
	case "Target.getTargets":
		return cdp.Verdict{Then: p.onlyView("targetInfos")}
	case "Target.getDevToolsTarget":
		if param("targetId") != p.viewID {
			return cdp.Verdict{Reply: cdp.Fail(m, "No target with given id found")}
		}
	case "Target.getTargetInfo":
		switch id := param("targetId"); id {
		case "":
		case p.viewID:
			return cdp.Verdict{Then: p.asPage("targetInfo")}
		default:
			return cdp.Verdict{Reply: cdp.Fail(m, "No target with given id found")}
		}
	case "Target.attachToTarget", "Target.activateTarget":
		if param("targetId") != p.viewID {
			return cdp.Verdict{Reply: cdp.Fail(m, "No target with given id found (in Tier 2 the only target is VS Code's browser view)")}
		}
		if m.Method == "Target.activateTarget" {
			return cdp.Verdict{Reply: cdp.Reply(m, struct{}{})}
		}
	case "Target.detachFromTarget":
		if !p.owns(s, param("sessionId")) {
			return cdp.Verdict{Reply: cdp.Fail(m, "No session with given id")}
		}
	case "Target.setAutoAttach":
		// At the browser level this would attach the client to every VS Code
		// window. Attach it to the view instead, as Chromium would have (the
		// attach is announced before the answer).
		if !gjson.GetBytes(m.Params, "autoAttach").Bool() {
			return cdp.Verdict{Reply: cdp.Reply(m, struct{}{})}
		}
		return cdp.Verdict{Async: func(ctx context.Context) *cdp.Message {
			_, err := s.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": p.viewID, "flatten": true})
			return answer(m, json.RawMessage(`{}`), err)
		}}
	}
	return cdp.Verdict{}
}

// sessionCommand handles commands on a session the client holds.
func (p *viewPolicy) sessionCommand(s *cdp.Relay, m *cdp.Message) cdp.Verdict {
	if !p.iframe || !p.isViewSession(s, m.SessionID) {
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

// isViewSession: the session is attached to the view itself (not a worker
// or frame under it).
func (p *viewPolicy) isViewSession(s *cdp.Relay, session string) bool {
	if session == s.PageSession() {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.viewSessions[session]
}

// Event implements cdp.Policy.
func (p *viewPolicy) Event(s *cdp.Relay, m *cdp.Message) *cdp.Message {
	if m.SessionID != "" {
		if !p.owns(s, m.SessionID) {
			return nil
		}
		switch m.Method {
		case "Target.attachedToTarget": // a worker or frame under the view
			p.own(gjson.GetBytes(m.Params, "sessionId").String())
		case "Page.frameNavigated":
			if p.iframe && gjson.GetBytes(m.Params, "frame.id").String() == p.viewID {
				m.Params, _ = sjson.DeleteBytes(m.Params, "frame.parentId")
			}
		}
		return m
	}
	// Browser-level events: only the Target domain's, and only about the
	// view; the rest (downloads, a trace, ...) would be about all of VS Code.
	switch m.Method {
	case "Target.targetCreated", "Target.targetInfoChanged":
		if gjson.GetBytes(m.Params, "targetInfo.targetId").String() != p.viewID {
			return nil
		}
		m.Params = presentAsPage(m.Params, "targetInfo")
	case "Target.targetDestroyed", "Target.targetCrashed":
		if gjson.GetBytes(m.Params, "targetId").String() != p.viewID {
			return nil
		}
	case "Target.attachedToTarget":
		session := gjson.GetBytes(m.Params, "sessionId").String()
		if gjson.GetBytes(m.Params, "targetInfo.targetId").String() != p.viewID {
			return nil
		}
		p.mu.Lock()
		p.owned[session] = true
		p.viewSessions[session] = true
		p.mu.Unlock()
		m.Params = presentAsPage(m.Params, "targetInfo")
	case "Target.detachedFromTarget":
		if !p.owns(s, gjson.GetBytes(m.Params, "sessionId").String()) {
			return nil
		}
	default:
		return nil
	}
	return m
}

// presentAsPage shows the view's target info (at path, "" for the whole
// object) as a top-level page.
func presentAsPage(params json.RawMessage, path string) json.RawMessage {
	if path != "" {
		path += "."
	}
	out, _ := sjson.SetBytes(params, path+"type", "page")
	out, _ = sjson.DeleteBytes(out, path+"parentFrameId")
	out, _ = sjson.DeleteBytes(out, path+"openerId")
	return out
}

func (p *viewPolicy) asPage(path string) func(*cdp.Message) *cdp.Message {
	return func(a *cdp.Message) *cdp.Message {
		if a.Error == nil {
			a.Result = presentAsPage(a.Result, path)
		}
		return a
	}
}

// onlyView keeps the view in a list of target infos, shown as a page.
func (p *viewPolicy) onlyView(path string) func(*cdp.Message) *cdp.Message {
	return func(a *cdp.Message) *cdp.Message {
		if a.Error != nil {
			return a
		}
		var kept []json.RawMessage
		gjson.GetBytes(a.Result, path).ForEach(func(_, t gjson.Result) bool {
			if t.Get("targetId").String() == p.viewID {
				kept = append(kept, presentAsPage(json.RawMessage(t.Raw), ""))
			}
			return true
		})
		if kept == nil {
			kept = []json.RawMessage{}
		}
		a.Result, _ = sjson.SetBytes(a.Result, path, kept)
		return a
	}
}

// answer turns a call's outcome into the answer to m.
func answer(m *cdp.Message, res json.RawMessage, err error) *cdp.Message {
	if err != nil {
		return cdp.Fail(m, "%v", err)
	}
	return &cdp.Message{ID: m.ID, SessionID: m.SessionID, Result: res}
}
