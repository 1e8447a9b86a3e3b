package nativemsg

import "encoding/json"

// Coordinator names a coordinator to the host and, through it, to the
// extension's popup.
type Coordinator struct {
	Folder  string `json:"folder"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
}

// HostInfo names a native host.
type HostInfo struct {
	PID     int    `json:"pid"`
	Version string `json:"version"`
}

// Hello is the first message on each hop. The extension fills Extension and
// Browser; a coordinator fills Coordinator; the host's answer fills Host
// (and, to a coordinator, Extension and Browser).
type Hello struct {
	Type        string       `json:"type"` // "hello"
	Protocol    int          `json:"protocol"`
	Extension   *Extension   `json:"extension,omitempty"`
	Browser     *Browser     `json:"browser,omitempty"`
	Coordinator *Coordinator `json:"coordinator,omitempty"`
	Host        *HostInfo    `json:"host,omitempty"`
}

// Fatal is a message that ends a hop: a protocol mismatch, a refused
// origin, a message that is not the protocol.
type Fatal struct {
	Type    string `json:"type"` // "error"
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Fatal codes.
const (
	CodeProtocol = "protocol" // the peers speak different protocols
	CodeInvalid  = "invalid"  // a message that is not the protocol
)

// Tab is a browser tab as the extension reports it to one coordinator.
type Tab struct {
	ID       int    `json:"id"`
	TargetID string `json:"targetId"`
	Title    string `json:"title"`
	URL      string `json:"url"`
	Active   bool   `json:"active,omitempty"`
	// Agent is true for a tab this coordinator opened (it may close it);
	// false for a tab the user shared (or every tab, when the user chose so).
	Agent bool `json:"agent,omitempty"`
	// OpenerID is the page target of the tab whose page opened this one
	// (a popup), for targetInfo.openerId.
	OpenerID string `json:"openerId,omitempty"`
}

// Envelope is any message after hello, decoded just enough to route and
// dispatch it. Fields unused by a type stay zero.
type Envelope struct {
	Type      string          `json:"type"`
	Client    string          `json:"client,omitempty"`
	ID        int64           `json:"id,omitempty"`
	TabID     int             `json:"tabId,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *ErrorBody      `json:"error,omitempty"`
	Tab       *Tab            `json:"tab,omitempty"`
	Tabs      []Tab           `json:"tabs,omitempty"`
	Browser   *Browser        `json:"browser,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Code      string          `json:"code,omitempty"`
	Message   string          `json:"message,omitempty"`
	URL       string          `json:"url,omitempty"`
	Focus     bool            `json:"focus,omitempty"`
}

// ErrorBody is the error of an answer.
type ErrorBody struct {
	Message string `json:"message"`
}
