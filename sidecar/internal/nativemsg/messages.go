package nativemsg

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
// Browser; a coordinator fills Coordinator and Channel; the host's answer
// fills Host (and, to a coordinator, Extension and Browser).
type Hello struct {
	Type        string       `json:"type"` // "hello"
	Protocol    int          `json:"protocol"`
	Extension   *Extension   `json:"extension,omitempty"`
	Browser     *Browser     `json:"browser,omitempty"`
	Coordinator *Coordinator `json:"coordinator,omitempty"`
	Host        *HostInfo    `json:"host,omitempty"`
	// Channel is the coordinator's offer of a direct channel (see Channel).
	Channel *Channel `json:"channel,omitempty"`
}

// Channel is a coordinator's offer of a direct way for the extension: a
// WebSocket it listens for on a loopback port, for the rest of the
// conversation. The offer travels the trusted way (the coordinator's hello
// to the host over the user's own socket, then the host's stdout to the
// extension), and each side proves itself with what only that way carried:
// the extension opens URL, which holds Secret, from its own origin; the
// coordinator's first message on it is {"type":"channel","proof":Proof}.
// The extension sends nothing, and takes nothing, before that proof; the
// coordinator takes the connection only from the extension's origin, with
// the secret, from this user (on Linux, the peer socket's owner). Both are
// single use: a new link makes new ones.
type Channel struct {
	URL    string `json:"url"`
	Secret string `json:"secret"`
	Proof  string `json:"proof"`
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
	CodeTooLarge = "tooLarge" // a message over MaxRequest, not passed on
)

// Tab is a browser tab as the extension reports it to one coordinator.
type Tab struct {
	ID       int    `json:"id"`
	TargetID string `json:"targetId"`
	Title    string `json:"title"`
	URL      string `json:"url"`
	Active   bool   `json:"active,omitempty"`
	// Agent is true for a tab an agent of this coordinator's folder opened
	// (it may close it); false for a tab the user shared (or every tab,
	// when the user chose so).
	Agent bool `json:"agent,omitempty"`
	// Own is true for an agent tab this coordinator (this process) opened,
	// or took over from one of its folder that went away: the tabs it
	// closes when it lets go.
	Own bool `json:"own,omitempty"`
	// OpenerID is the page target of the tab whose page opened this one
	// (a popup), for targetInfo.openerId.
	OpenerID string `json:"openerId,omitempty"`
}

// ErrorBody is the error of an answer.
type ErrorBody struct {
	Message string `json:"message"`
}
