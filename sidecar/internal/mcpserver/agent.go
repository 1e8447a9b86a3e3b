package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
)

// An MCP session of an isolated coordinator (--isolated over HTTP) is one
// agent among others on one browser: its browser is its browser context.
// Stopping or restarting the browser would end every other agent's pages,
// and switching it (another browser, headless or not) would too: for it,
// stop and restart start its context afresh (its tabs closed, its cookies
// and storage gone), and launch opens its url in a tab of its own; the
// browser runs on, with the options the coordinator was started with.

// alone: the server serves one agent of many (Options.Agent, isolated).
func (h *handlers) alone() bool { return !h.tabs.Own() && h.c.Isolated() }

// errShared refuses what would change the browser every agent shares.
var errShared = errors.New("coordinator_launch_browser: this browser is shared by the isolated agents of this coordinator (--isolated), each in a browser context of its own: " +
	"it runs with the options the coordinator was started with (--browser, --no-headless), and no session may switch it; " +
	"url alone opens a page in this session's context, and coordinator_restart_browser starts this session's context afresh")

func (h *handlers) launchAgent(ctx context.Context, a launchArgs) (coordinator.Status, string, error) {
	if a.BrowserType != nil || a.BrowserPath != nil || a.Headless != nil {
		return h.statusResult(h.tabs.Status(), errShared)
	}
	if a.URL == nil {
		_, err := h.c.Ensure(ctx)
		if err == nil {
			_, err = h.tabs.RunningTabs(ctx) // its context, made now
		}
		return h.statusResult(h.tabs.Status(), err)
	}
	if err := coordinator.CheckURL(*a.URL); err != nil {
		return h.statusResult(h.tabs.Status(), fmt.Errorf("coordinator_launch_browser: %w", err))
	}
	_, err := h.tabs.OpenTab(ctx, *a.URL, true)
	return h.statusResult(h.tabs.Status(), err)
}

func (h *handlers) resetAgent(ctx context.Context, verb string) (coordinator.Status, string, error) {
	if err := h.tabs.Reset(ctx); err != nil {
		return h.statusResult(h.tabs.Status(), err)
	}
	s, text, err := h.statusResult(h.tabs.Status(), nil)
	return s, "This session's browser context was " + verb + " (its tabs closed, its cookies and storage gone); the browser runs on for the other sessions.\n" + text, err
}

// agentWords are what the browser tools do for one agent of many.
var agentWords = map[string]string{
	"coordinator_launch_browser":  "Open url in a new tab of this session's own browser context, starting the shared browser if it is not running. This coordinator is --isolated: its browser is shared by every session, each in a browser context of its own (tabs, cookies, storage), and runs with the options it was started with, so browserType, browserPath and headless are refused.",
	"coordinator_stop_browser":    "Close this session's browser context: its tabs close and its cookies and storage are gone; the next use starts an empty one. The browser itself runs on for the other sessions of this coordinator (--isolated).",
	"coordinator_restart_browser": "Start this session's browser context afresh: its tabs close and its cookies and storage are gone. The browser itself runs on for the other sessions of this coordinator (--isolated); CDP clients of this session stay connected and work in the new context.",
}

// forAgent says what the browser tools do when the server serves one agent
// of many (alone).
func (h *handlers) forAgent(defs []toolDef) []toolDef {
	if !h.alone() {
		return defs
	}
	for i, d := range defs {
		if words, ok := agentWords[d.tool.Name]; ok {
			defs[i].tool.Description = words
		}
	}
	return defs
}
