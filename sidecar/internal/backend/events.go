package backend

// EventKind says what an Event is about.
type EventKind int

const (
	// StateChanged: the browser's state or the backend changed.
	StateChanged EventKind = iota
	// FellBack: a Source did not answer and a launched browser replaced
	// it; Source is its Key, Reason says why.
	FellBack
	// PagesChanged: the tabs, or the page in front, changed.
	PagesChanged
)

// Event is something that happened to the coordinator, for those above it
// that follow it (the VS Code tier watcher, the MCP server's page tools).
type Event struct {
	Kind   EventKind
	Source string
	Reason string
}
