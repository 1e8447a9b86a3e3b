// Package pagetools finds a tab's own tools in its page and calls them: the
// forms, result lists and buttons a page has, and the tools it declares with
// WebMCP, as MCP tools with JSON Schemas ("search_flights(from, to,
// depart_date)", "open_result(index)").
//
// The engine talks CDP through Session, one flattened session on one page
// (or out-of-process iframe) target that its owner attached and owns; the
// owner feeds that session's events to HandleEvent and hears on Changed when
// the page's set of tools changed. Of the coordinator it imports only
// cdp.Contexts (the one reader of a session's execution contexts) and
// lazyre, so it works over any CDP connection: a launched browser, VS
// Code's browser view, an attached browser.
//
// Why the work is split as it is:
//
//   - The discovery script (script.js) runs in an isolated world, installed
//     for every new document with Page.addScriptToEvaluateOnNewDocument
//     {worldName}: the page can neither see it nor break it by redefining
//     built-ins, and element references stay in that world, never in the
//     DOM. It reports through a binding that exists in that world only
//     (Runtime.addBinding {executionContextName}), debounced after DOM
//     changes, and only when what it found changed.
//   - The script describes the page as plain data; Go turns that into tools
//     (build.go: names, schemas, annotations, the cap), so the rules are
//     table-tested without a browser, and text from the page is cleaned and
//     marked in one place (text.go).
//   - Navigation is followed from Page and Runtime events, not polled: a
//     document's tools are current once its world has reported after the
//     last commit (engine.go); a call waits for the same state after it
//     submits (call.go).
//
// See docs/page-tools.md for what is found and how a site declares its own
// tools.
package pagetools
