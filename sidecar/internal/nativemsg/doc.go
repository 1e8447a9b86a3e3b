// Package nativemsg is the wire shared by the three parts of the everyday
// browser: the browser extension, the native host (`browser-coordinator
// native-host`, started by the browser through native messaging) and the
// coordinators that use the user's browser (everyday.Conn).
//
//	extension ──stdio (native messaging)──► native host ──Unix socket──► coordinator
//	                                         (one per browser profile)      (one per project folder)
//
// Framing is the same on both hops: a 4-byte length, then that many bytes of
// UTF-8 JSON. On stdio the length is in native byte order (Chrome's rule); on
// the socket it is little-endian. Chrome limits a message from the host to
// the extension to 1 MB and one from the extension to 64 MiB: a message over
// the limit travels as chunks ({"type":"chunk"}), which the receiver joins
// (Splitter, Joiner), so a large CDP command (Playwright's injected scripts)
// or a large screenshot crosses either way.
//
// Every message is a JSON object with a "type". The first message on each hop
// is "hello", carrying Protocol; a peer that speaks another protocol answers
// {"type":"error","code":"protocol"} naming both versions and what to update,
// and the hop closes. After hello the host relays: it stamps each message of
// a coordinator with "client" (the id it gave that connection) before passing
// it to the extension, and routes the extension's messages by their "client"
// (none: to every coordinator). Messages of a coordinator, after hello:
//
//	requests (carry "id", get one answer with the same id):
//	  connect                                   → {"type":"connected","browser":{…},"tabs":[Tab…]}
//	  openTab {url, focus}                      → result: Tab
//	  focusTab {tabId} / closeTab {tabId}       → result: {}
//	  attach {tabId} / detach {tabId}           → result: {}   (chrome.debugger, shared per tab)
//	  command {tabId, sessionId?, method, params} → result: the CDP result
//	  answers: {"type":"result","id","result"} or {"type":"error","id","error":{"message"}}
//	events (no id):
//	  tabCreated {tab}, tabUpdated {tab}, tabClosed {tabId}, tabFocused {tabId},
//	  cdpEvent {tabId, sessionId?, method, params}, detached {tabId, reason},
//	  disconnected {reason}
//
// The extension decides what each coordinator sees: the tabs that
// coordinator opened, the tabs the user shared with it, or every tab when the
// user chose so; events and tabs of other tabs never reach it.
package nativemsg
