package coordinator

import "github.com/browser-coordinator/browser-coordinator/sidecar/internal/backend"

// The coordinator's words for what package backend defines: those above
// the coordinator (the MCP server, the command line, the control API) name
// them through it, as the coordinator's own.
type (
	Options      = backend.Options
	Source       = backend.Source
	Tab          = backend.Tab
	TabSession   = backend.TabSession
	Event        = backend.Event
	EventKind    = backend.EventKind
	VSCodeStatus = backend.VSCodeStatus
)

// The events the coordinator publishes (Subscribe).
const (
	StateChanged = backend.StateChanged
	FellBack     = backend.FellBack
	PagesChanged = backend.PagesChanged
)

// Errors callers branch on, from package backend.
var (
	ErrUnreachable  = backend.ErrUnreachable
	ErrNotRunning   = backend.ErrNotRunning
	ErrDisconnected = backend.ErrDisconnected
	ErrNoTab        = backend.ErrNoTab
	ErrNeedsURL     = backend.ErrNeedsURL
)
