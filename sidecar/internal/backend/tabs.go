package backend

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// Tab is one page target.
type Tab struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	URL   string `json:"url"`
	Front bool   `json:"front"`
	// OpenerID is the tab whose page opened this one (window.open, a link
	// or form with a target), or "".
	OpenerID string `json:"openerId,omitempty"`
	// Activated (Front only): the tab is in front because it was brought
	// there (the coordinator's focus, the user's click in the everyday
	// browser), not because it appeared or navigated.
	Activated bool `json:"-"`
}

// Pages is what the tab tools and currentUrl work on: the coordinator's own
// tab follower, VS Code's browser view in Tier 2.
type Pages interface {
	Tabs(ctx context.Context) ([]Tab, error)
	Open(ctx context.Context, url string, focus bool) (Tab, error)
	Focus(ctx context.Context, id string) (Tab, error)
	Close(ctx context.Context, id string) error
	CurrentURL() string
	// Front is the tab in front, if there is one (known without asking the browser).
	Front() (Tab, bool)
	// Changed is closed at the next change of the tabs or the page in front.
	Changed() <-chan struct{}
	Shutdown()
}

// ErrNoTab is returned for a tab id that is not an open page.
var ErrNoTab = errors.New("no such tab")

// ErrNeedsURL: the backend opens a new tab only with the page it is to
// show (VS Code's Simple Browser, opened through its palette), not blank.
var ErrNeedsURL = errors.New("a new tab here opens only with its page")

// TabSession is a CDP session of the coordinator's own on one tab, for
// work inside the page (page tools): the proxy's clients never see it, and
// it never sees theirs.
type TabSession struct {
	peer *cdp.Peer
	own  *cdp.Conn // a connection of its own (a browser at an Endpoint), closed with it
}

// NewTabSession is a session on peer; own, if not nil, is the connection
// it has to itself.
func NewTabSession(peer *cdp.Peer, own *cdp.Conn) *TabSession {
	return &TabSession{peer: peer, own: own}
}

// Call sends a command on the tab's session.
func (s *TabSession) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.peer.Call(ctx, "", method, params)
}

// Done is closed when the session ends (the tab closed, the backend went).
func (s *TabSession) Done() <-chan struct{} { return s.peer.Done() }

// Close ends the session.
func (s *TabSession) Close() {
	s.peer.Close()
	if s.own != nil {
		s.own.Close()
	}
}
