package mcpserver

import (
	"fmt"
	"unicode/utf8"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
)

// Bounds on what a result echoes from the browser: a page's URL and title
// are the page's to choose, and an agent's context is not the place for a
// 10 MB data: URL.
const (
	maxURLShown   = 2048
	maxTitleShown = 300
)

// clip cuts s to n bytes (on a rune boundary) with a note saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [cut: %d characters in all]", utf8.RuneCountInString(s))
}

// boundTab bounds what a tab's page chose (its URL and title) and labels
// its title as the page's text.
func boundTab(t coordinator.Tab) coordinator.Tab {
	t.URL = clip(t.URL, maxURLShown)
	t.Title = pagetools.Label(t.Title, maxTitleShown)
	return t
}

func boundTabs(tabs []coordinator.Tab) []coordinator.Tab {
	out := make([]coordinator.Tab, len(tabs))
	for i, t := range tabs {
		out[i] = boundTab(t)
	}
	return out
}

func boundStatus(s coordinator.Status) coordinator.Status {
	s.CurrentURL = clip(s.CurrentURL, maxURLShown)
	if s.Everyday != nil {
		e := *s.Everyday
		e.Reason = clip(e.Reason, maxURLShown)
		s.Everyday = &e
	}
	return s
}
