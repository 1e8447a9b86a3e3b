package everyday

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
)

// The Conn as the virtual browser's TabHost: the extension's tabs, through
// the native host, and what the extension reports of them.

// newVirtual makes the Conn's virtual browser, judging commands by the
// reach policy.
func (c *Conn) newVirtual() *cdp.Virtual {
	return cdp.NewVirtual(cdp.VirtualOptions{
		Host:      tabHost{c},
		Policy:    c.o.Reach.Command,
		Words:     cdp.VirtualWords{Browser: "the user's own browser", Backend: "the everyday backend"},
		Go:        c.spawn,
		Activated: c.activated,
		Log:       c.log,
	})
}

// tabHost carries the virtual browser's tabs over the extension.
type tabHost struct{ c *Conn }

// link is the connection to the extension, or why there is none.
func (h tabHost) link() (*link, error) {
	if l := h.c.currentLink(); l != nil {
		return l, nil
	}
	return nil, errors.New(notConnected(h.c.Status()))
}

func (h tabHost) Version() (string, string, error) {
	st := h.c.Status()
	if !st.Connected {
		return "", "", errors.New(notConnected(st))
	}
	return "Chrome/" + st.Browser.Version, st.Browser.UserAgent, nil
}

func (h tabHost) Attach(tab int) error {
	l, err := h.link()
	if err != nil {
		return err
	}
	_, err = l.call(map[string]any{"type": "attach", "tabId": tab})
	return err
}

func (h tabHost) Detach(tab int) {
	if l := h.c.currentLink(); l != nil {
		l.request(map[string]any{"type": "detach", "tabId": tab}, func(nativemsg.Envelope, error) {})
	}
}

func (h tabHost) Send(tab int, child, method string, params json.RawMessage, done func(json.RawMessage, error)) {
	l, err := h.link()
	if err != nil {
		done(nil, err)
		return
	}
	req := map[string]any{"type": "command", "tabId": tab, "method": method}
	if len(params) > 0 {
		req["params"] = params
	}
	if child != "" {
		req["sessionId"] = child
	}
	l.request(req, func(env nativemsg.Envelope, err error) { done(env.Result, err) })
}

func (h tabHost) Open(url string, focus bool) (int, error) {
	l, err := h.link()
	if err != nil {
		return 0, err
	}
	env, err := l.call(map[string]any{"type": "openTab", "url": url, "focus": focus})
	if err != nil {
		return 0, fmt.Errorf("open a tab at %s: %w", url, err)
	}
	var tab nativemsg.Tab
	if json.Unmarshal(env.Result, &tab) != nil || tab.ID == 0 {
		return 0, fmt.Errorf("the browser extension opened no tab for %s", url)
	}
	return tab.ID, nil
}

func (h tabHost) Close(tab int, done func(error)) { h.tabRequest("closeTab", tab, done) }
func (h tabHost) Focus(tab int, done func(error)) { h.tabRequest("focusTab", tab, done) }

func (h tabHost) tabRequest(typ string, tab int, done func(error)) {
	l, err := h.link()
	if err != nil {
		done(err)
		return
	}
	l.request(map[string]any{"type": typ, "tabId": tab}, func(_ nativemsg.Envelope, err error) { done(err) })
}

// extEvent takes one event from the extension.
func (c *Conn) extEvent(env nativemsg.Envelope) {
	switch env.Type {
	case "tabCreated", "tabUpdated":
		if env.Tab != nil {
			c.b.TabChanged(virtualTab(*env.Tab))
		}
	case "tabClosed":
		c.b.TabClosed(env.TabID)
	case "tabFocused":
		// The user or focusTab brought a tab to the front; CDP has no
		// event for it: Conn.Activations says it.
		c.b.TabFocused(env.TabID)
	case "detached":
		c.b.DebuggerDetached(env.TabID, env.Reason)
	case "cdpEvent":
		c.b.TabEvent(env.TabID, env.SessionID, env.Method, env.Params)
	default:
		c.log.Debug("an event this version does not know", "type", env.Type)
	}
}

// connected takes the tabs the extension reported on connect.
func (c *Conn) connected(tabs []nativemsg.Tab) {
	vt := make([]cdp.VirtualTab, len(tabs))
	for i, t := range tabs {
		vt[i] = virtualTab(t)
	}
	c.b.Connected(vt)
}

func virtualTab(t nativemsg.Tab) cdp.VirtualTab {
	return cdp.VirtualTab{ID: t.ID, TargetID: t.TargetID, Title: t.Title, URL: t.URL, Active: t.Active, Agent: t.Agent, OpenerID: t.OpenerID}
}

func notConnected(s Status) string {
	if s.Reason != "" {
		return "the user's browser is not connected: " + s.Reason
	}
	return "the user's browser is not connected"
}
