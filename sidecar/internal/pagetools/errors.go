package pagetools

import (
	"errors"
	"strings"
)

// Kinds of call errors, for errors.Is. Each leaves the page as it was.
var (
	// ErrUnknownTool: the page has no tool of that name (now).
	ErrUnknownTool = errors.New("no such page tool")
	// ErrNavigatedAway: the tool belonged to a page the tab has left, or
	// to part of the page that is gone.
	ErrNavigatedAway = errors.New("the page tool is gone")
	// ErrInvalidArguments: the arguments do not fit the tool's schema.
	ErrInvalidArguments = errors.New("invalid arguments")
	// ErrRejected: the page's own validation refused the input (the
	// message is the browser's); nothing was submitted.
	ErrRejected = errors.New("the page rejected the input")
	// ErrCrossOrigin: the form would send a credential to another origin
	// than the page's, and the call did not allow it; nothing was sent.
	ErrCrossOrigin = errors.New("a credential would go to another origin")
	// ErrNoEffect: the action was done (a click, Enter) but what it should
	// have changed on the page did not change.
	ErrNoEffect = errors.New("the action's effect was not seen")
	// ErrNotReady: the tab is still loading a page.
	ErrNotReady = errors.New("the page is not ready")
	// ErrClosed: the engine was closed.
	ErrClosed = errors.New("page tools closed")
)

// Error is a call error that says what to do, with the page's tools now
// where knowing them helps.
type Error struct {
	Kind  error
	Msg   string
	Tools []string
}

func (e *Error) Error() string {
	if e.Tools == nil {
		return e.Msg
	}
	if len(e.Tools) == 0 {
		return e.Msg + "; the page has no tools now"
	}
	return e.Msg + "; the page's tools now: " + strings.Join(e.Tools, ", ")
}

func (e *Error) Unwrap() error { return e.Kind }
