package mcpserver

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagefocus"
)

// seedState is the state of 002's surface (--tools progressive): whether a
// browser is connected, the tabs' numbers, and the launched browser's
// first blank tab, which is not shown until it is used. The surface's
// tools change it; the page surface (its host) and the focus tracker
// (Skip) read it.
type seedState struct {
	mu        sync.Mutex
	connected bool
	backend   string          // the backend connect_browser connected to
	hidden    map[string]bool // a launched browser's first blank tab(s), until reused or navigated
	tabs      int             // tabs shown now
	ids       map[string]int  // target id → tab number
	byNum     map[int]string
	next      int
}

func newSeedState() *seedState {
	return &seedState{hidden: map[string]bool{}, ids: map[string]int{}, byNum: map[int]string{}, next: 1}
}

// progressiveTools are the seed's tools for a state, in the seed's order.
func progressiveTools(connected bool, tabs int, focused bool) []string {
	switch {
	case !connected:
		return []string{"connect_browser"}
	case focused:
		return []string{"list_tabs", "open_tab", "focus_tab", "close_tab"}
	case tabs == 0:
		return []string{"list_tabs", "open_tab"}
	default:
		return []string{"list_tabs", "open_tab", "focus_tab"}
	}
}

// listed: the seed's tools its state allows, and the focused tab's page
// tools while a browser is connected (host).
func (s *seedState) listed(snap pagefocus.Focus) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	focused := s.connected && snap.TabID != ""
	tools := progressiveTools(s.connected, s.tabs, focused)
	if s.connected && snap.Dialog != nil {
		// A JavaScript dialog is open in the focused tab: the state that
		// allows answering it.
		tools = append(tools, progressiveVocab.handleDialog)
	}
	return tools, focused
}

// ready: nothing runs before connect_browser (host).
func (s *seedState) ready(tool string) error {
	if !s.isConnected() {
		return fmt.Errorf("%s: no browser is connected; call connect_browser first", tool)
	}
	return nil
}

// tabRef: a tab's number (host).
func (s *seedState) tabRef(id string) string { return strconv.Itoa(s.num(id)) }

func (s *seedState) isConnected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connected
}

func (s *seedState) backendKey() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.backend
}

// hiddenTab: focus never follows to the hidden blank tab (pagefocus
// Config.Skip).
func (s *seedState) hiddenTab(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hidden[id]
}

// connect: connected to backend, with the launched browser's blank tabs
// hidden.
func (s *seedState) connect(backend string, hidden map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.connected, s.backend, s.hidden = true, backend, hidden
}

// disconnect: the browser went (or changed): back to DISCONNECTED.
func (s *seedState) disconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.connected, s.backend, s.tabs = false, "", 0
	clear(s.hidden)
}

// shown are the tabs shown of tabs (a hidden blank tab that navigated is
// shown from then on), each with its number.
func (s *seedState) shown(tabs []coordinator.Tab) []coordinator.Tab {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]coordinator.Tab, 0, len(tabs))
	for _, t := range tabs {
		if s.hidden[t.ID] {
			if cdp.IsBlank(t.URL) {
				continue
			}
			delete(s.hidden, t.ID)
		}
		s.numLocked(t.ID)
		out = append(out, t)
	}
	s.tabs = len(out)
	return out
}

// aHidden is a hidden blank tab, or "".
func (s *seedState) aHidden() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.hidden {
		return id
	}
	return ""
}

// unhide: the tab is used (or gone).
func (s *seedState) unhide(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.hidden, id)
}

func (s *seedState) num(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.numLocked(id)
}

func (s *seedState) numLocked(id string) int {
	if n, ok := s.ids[id]; ok {
		return n
	}
	n := s.next
	s.next++
	s.ids[id], s.byNum[n] = n, id
	return n
}

// target is the tab numbered n among tabs.
func (s *seedState) target(tool string, n float64, tabs []coordinator.Tab) (string, error) {
	s.mu.Lock()
	id, known := s.byNum[int(n)]
	s.mu.Unlock()
	if n != math.Trunc(n) || !known || !slices.ContainsFunc(tabs, func(t coordinator.Tab) bool { return t.ID == id }) {
		return "", fmt.Errorf("%s: no tab has id %s; list_tabs shows the open tabs and their ids", tool, jsonText(n))
	}
	return id, nil
}
