// Package pagefocus decides which tab's page tools are in use (the focused
// tab) and runs the page-tools engine (package pagetools) on it, on a CDP
// session of the coordinator's own.
//
// Why it is a package of its own: the MCP server only turns a focus into
// tools (tools/list, list_changed, the static pair); which tab that is and
// when its engine starts, stops or starts again is this package's, and it
// is tested with a fake browser and a fake engine.
//
// Two ways to focus, one Tracker:
//
//   - Follow (the default surface, and the progressive one with
//     --follow-user-focus): the focused tab is the tab in front, whoever put
//     it there: a child MCP that navigates, the tab tools, the user. The
//     tracker reads the coordinator's tab in front at every PagesChanged or
//     StateChanged event and moves the focus when a tab *becomes* front
//     (a new tab, a navigation, coordinator_focus_tab): when the focused tab
//     closes, no tab is focused, even though another is in front now, until
//     one becomes front again. A tab a page opened (a popup, a link with a
//     target: it has an opener) is the exception: it is focused only once
//     someone brings it to the front (an activation: the coordinator's
//     focus, the user's click in their own browser), never because it
//     appeared or navigated. Focus still moves by Focus too.
//   - Explicit (the progressive surface): focus moves by Focus only, and
//     goes when the focused tab closes or the browser goes. A tab that goes
//     because the browser is disconnected (the user's own browser while
//     its extension is away: Unavailable) is focused again when it is back.
//     (Following needs no such care: the tab that was in front comes back
//     in front.)
//
// Focus is per coordinator: one Tracker serves every MCP session of it.
// A call names the tab and document its caller was shown (Shown): it runs
// only while that tab is focused and shows that document, and otherwise
// fails with what changed (MovedError, or the engine's ErrNavigatedAway).
//
// The engine's session is the coordinator's own (AttachRunningTab: never
// the proxy's clients', never starting a browser), and its events go to the
// engine from the connection's reading goroutine. The tracker's own
// goroutine (its loop) owns all of the tracker's state (the focus, whether
// focusing is on, the tab last seen in front, the closes under way, the
// tab to focus again): callers ask it through requests and wait for the
// answer, so focus moves one at a time and the engine of a tab is started
// before the old one is closed (a focus that fails changes nothing). What
// callers read without waiting is the focus the loop last published, a
// value it never changes afterwards; no mutex guards the tracker.
//
// Unfocused tabs' tools (toolCount in list_tabs) are found on demand: a
// short-lived engine per tab (attach, discover, detach), a few at a time,
// bounded in time and number; never cached, since a page that is not
// focused may change its forms without anyone hearing of it.
package pagefocus
