package everyday

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

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
	_, err = l.call(body("attach", "tabId", tab))
	return err
}

func (h tabHost) Detach(tab int) {
	if l := h.c.currentLink(); l != nil {
		l.request(body("detach", "tabId", tab), func(nativemsg.Fields, error) {})
	}
}

func (h tabHost) Send(tab int, child, method string, params json.RawMessage, done func(json.RawMessage, error)) {
	l, err := h.link()
	if err != nil {
		done(nil, err)
		return
	}
	kv := []any{"tabId", tab, "method", method}
	if child != "" {
		kv = append(kv, "sessionId", child)
	}
	if len(params) > 0 {
		kv = append(kv, "params", params)
	}
	l.request(body("command", kv...), func(f nativemsg.Fields, err error) { done(f.Result, err) })
}

// Open opens a tab for the agent; the first Opens after a connection
// are given the agent's tabs the connection took back (see tabState).
func (h tabHost) Open(url string, focus bool) (int, error) {
	l, err := h.link()
	if err != nil {
		return 0, err
	}
	if tab := h.c.takeBack(); tab != 0 {
		f, err := l.call(body("reuseTab", "tabId", tab, "url", url, "focus", focus))
		if id := tabOf(f.Result); err == nil && id != 0 {
			h.c.log.Info("a new tab for the agent is the one it lost on the reconnection", "tab", id, "url", url)
			return id, nil
		}
		h.c.log.Debug("the tab taken back could not be reused", "tab", tab, "err", err)
	}
	f, err := l.call(body("openTab", "url", url, "focus", focus))
	if err != nil {
		return 0, fmt.Errorf("open a tab at %s: %w", url, err)
	}
	id := tabOf(f.Result)
	if id == 0 {
		return 0, fmt.Errorf("the browser extension opened no tab for %s", url)
	}
	return id, nil
}

func tabOf(raw json.RawMessage) int {
	var tab nativemsg.Tab
	if json.Unmarshal(raw, &tab) != nil {
		return 0
	}
	return tab.ID
}

func (h tabHost) Close(tab int, done func(error)) { h.tabRequest("closeTab", tab, done) }
func (h tabHost) Focus(tab int, done func(error)) { h.tabRequest("focusTab", tab, done) }

func (h tabHost) tabRequest(typ string, tab int, done func(error)) {
	l, err := h.link()
	if err != nil {
		done(err)
		return
	}
	l.request(body(typ, "tabId", tab), func(_ nativemsg.Fields, err error) { done(err) })
}

// tabState is what the Conn knows of its tabs beyond what the virtual
// browser shows (c.mu).
type tabState struct {
	// own are the tabs this coordinator opened, or took over from one of
	// its folder that went away: the ones it closes when it lets go
	// (another coordinator of the same folder sees its agent tabs too, and
	// keeps its own).
	own map[int]bool
	// takenBack are the agent's tabs a connection found open, until an
	// Open is given one or reuseWindow passes: a client that lost its tab
	// when the extension went away (Playwright MCP's page closed with the
	// disconnection) asks for a new one while the old one comes back;
	// without this each reconnection would leave one more tab.
	takenBack []int
	takenAt   time.Time
}

// reuseWindow is how long after a connection the tabs it took back are
// given to new tabs the agent asks for.
const reuseWindow = time.Minute

// takeBack is a tab to give to an Open, or 0.
func (c *Conn) takeBack() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &c.tabs
	if len(t.takenBack) == 0 || time.Since(t.takenAt) > reuseWindow {
		t.takenBack = nil
		return 0
	}
	tab := t.takenBack[0]
	t.takenBack = t.takenBack[1:]
	return tab
}

// noteTab keeps what a tab message says beyond the virtual browser.
func (c *Conn) noteTab(tab nativemsg.Tab) {
	c.mu.Lock()
	if c.tabs.own == nil {
		c.tabs.own = map[int]bool{}
	}
	if tab.Own {
		c.tabs.own[tab.ID] = true
	} else {
		delete(c.tabs.own, tab.ID)
	}
	c.mu.Unlock()
}

func (c *Conn) forgetTab(id int) {
	c.mu.Lock()
	delete(c.tabs.own, id)
	if i := slices.Index(c.tabs.takenBack, id); i >= 0 {
		c.tabs.takenBack = slices.Delete(c.tabs.takenBack, i, i+1)
	}
	c.mu.Unlock()
}

// ownTabs are the agent tabs this coordinator would close.
func (c *Conn) ownTabs() map[int]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.tabs.own)
}

// extEvent takes one event from the extension.
func (c *Conn) extEvent(f nativemsg.Fields) {
	switch f.Type {
	case "tabCreated", "tabUpdated":
		var tab nativemsg.Tab
		if json.Unmarshal(f.Tab, &tab) == nil && tab.ID != 0 {
			c.noteTab(tab)
			c.b.TabChanged(virtualTab(tab))
		}
	case "tabClosed":
		c.forgetTab(f.TabID)
		c.b.TabClosed(f.TabID)
	case "tabFocused":
		// The user or focusTab brought a tab to the front; CDP has no
		// event for it: Conn.Activations says it.
		c.b.TabFocused(f.TabID)
	case "detached":
		c.b.DebuggerDetached(f.TabID, f.Reason)
	case "cdpEvent":
		c.b.TabEvent(f.TabID, f.SessionID, f.Method, f.Params)
	default:
		c.log.Debug("an event this version does not know", "type", f.Type)
	}
}

// connected takes the tabs the extension reported on connect.
func (c *Conn) connected(raw json.RawMessage) {
	var tabs []nativemsg.Tab
	if err := json.Unmarshal(raw, &tabs); err != nil && len(raw) > 0 {
		c.log.Warn("the browser extension's tabs are not the protocol", "err", err)
	}
	own := map[int]bool{}
	var back []int
	vt := make([]cdp.VirtualTab, len(tabs))
	for i, t := range tabs {
		vt[i] = virtualTab(t)
		if t.Own {
			own[t.ID] = true
			back = append(back, t.ID)
		}
	}
	c.mu.Lock()
	c.tabs = tabState{own: own, takenBack: back, takenAt: time.Now()}
	c.mu.Unlock()
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
