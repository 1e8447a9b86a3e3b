// Package cdp is how the coordinator reaches and talks to a browser over the
// Chrome DevTools Protocol, and the one place that does.
//
//   - A Transport carries whole messages: a WebSocket (a browser's port, VS
//     Code's, a remote service's) or Chromium's --remote-debugging-pipe
//     (NUL-separated JSON on two file descriptors). Every write has a
//     deadline: a peer that stops reading cannot block its callers forever.
//   - A Conn is one connection to a browser: the one pending-call core
//     (answers matched to calls by id) and the router of events by session.
//   - A Peer is one party on a Conn with sessions of its own: a CDP client
//     of the proxy, or one of the coordinator's own users (the tab
//     follower, page tools). On a connection shared by several parties
//     (the launched browser's pipe) each Peer gets its own browser session
//     (Target.attachToBrowserTarget) or page session (Target.attachToTarget,
//     flattened); ids are remapped and session ids checked, so peers never
//     see or reach each other's sessions. Envelopes are read and rewritten
//     with gjson/sjson: a 50 MB screenshot is never decoded.
//   - An Endpoint is a browser reached over TCP (http(s):// with /json, or a
//     bare ws(s)://): dial, /json requests, and Probe, the one check that an
//     endpoint answers.
//   - A Follower keeps a browser's targets and which page was active last.
//   - Serve relays a client Transport to a Peer through a Policy that may
//     answer, rewrite or refuse what passes (VS Code's browser view).
package cdp
