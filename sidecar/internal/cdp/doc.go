// Package cdp is how the coordinator reaches and talks to a browser over the
// Chrome DevTools Protocol, and the one place that does.
//
//   - A Transport carries whole messages: a WebSocket (a browser's port, VS
//     Code's, a remote service's; ServerWebSocket for the proxy's clients)
//     or Chromium's --remote-debugging-pipe (NUL-separated JSON on two file
//     descriptors). The pipe and a client's WebSocket read into buffers
//     they keep and write a message from its parts in one writev, with
//     raw system calls on Linux (fdio_linux.go): the proxy's round trip
//     allocates nothing and wakes no goroutine but the two readers. A
//     caller's context
//     counts only until its write starts; every write then has
//     WriteTimeout: a peer that stops reading cannot block its callers
//     forever, and no caller cuts a message short on a shared connection.
//     A write that fails once started ends the connection.
//   - A Conn is one connection to a browser: the one pending-call core
//     (answers matched to calls by id) and the router of events by session.
//   - A Peer is one party on a Conn with sessions of its own: a CDP client
//     of the proxy, or one of the coordinator's own users (the tab
//     follower, page tools). On a connection shared by several parties
//     (the launched browser's pipe) each Peer gets its own browser session
//     (Target.attachToBrowserTarget) or page session (Target.attachToTarget,
//     flattened); ids are remapped and session ids checked, so peers never
//     see or reach each other's sessions. A client's command is read
//     strictly (ParseCommand: parsers that disagree on a text could run
//     what was refused) and sent written anew; what cannot be read is
//     answered with an error and never sent. A browser's message is routed by
//     reading its ends (Chromium writes {"id":N…,"sessionId":"…"}), and a
//     client's answer or event is made by copying it with the id and
//     session swapped: a proxy client's 50 MB screenshot is copied, never
//     parsed as JSON. It is decoded where someone must see inside:
//     a Policy's peer (every event, and the answers it rewrites), a peer
//     with OnEvent, and the answers to the coordinator's own Calls.
//   - An Endpoint is a browser reached over TCP (http(s):// with /json, or a
//     bare ws(s)://): dial, /json requests, and Probe, the one check that an
//     endpoint answers.
//   - A Follower keeps a browser's targets and which page was active last
//     (Recency: the order of activity, with tabs opened in the background
//     held back while they load their first page).
//   - A Virtual is a browser made of tabs with no browser endpoint behind
//     them as a whole: targets, sessions, Recency, the execution contexts a
//     second session on a tab hears again, and the Target domain, built
//     once; its TabHost carries the tabs, and a policy hook judges every
//     command first. Without an Out of its own it is a Transport: a Conn
//     runs on it, and the proxy serves it as it serves a launched browser.
//     The everyday browser's chrome.debugger is one TabHost; a TargetHost
//     is another, whose tabs are the targets of a real browser its owner
//     chose to show (VS Code's browser view in Tier 2: VS Code's windows,
//     targets of the same browser, are never named).
//   - Contexts are one session's execution contexts, from its Runtime
//     events (the browser reports each once): the virtual browser's replay
//     and the page tools' world ask them.
//   - A Relay serves a client Transport with a Peer, through a Policy that
//     may answer, rewrite or refuse what passes (the proxy's relays have
//     none: the policies are the virtual browser's hook).
//     What the peer delivers is written by the connection's reader itself
//     when the client's socket takes it at once (tryWrite: no hand-off);
//     otherwise it waits, copied, in the relay's queue for the relay's
//     writer, so a client that reads slowly never holds up the
//     connection's reader; one that lets more than MaxQueued wait is cut
//     off. A relay that ends writes what
//     waits, then tells a WebSocket client why in its close frame.
package cdp
