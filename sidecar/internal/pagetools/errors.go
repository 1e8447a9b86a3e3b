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
	// ErrNotReady: the tab is still loading a page.
	ErrNotReady = errors.New("the page is not ready")
	// ErrDialogOpen: a JavaScript dialog is open on the page (Error.Dialog);
	// the page does nothing until it is answered (HandleDialog).
	ErrDialogOpen = errors.New("a JavaScript dialog is open")
	// ErrNoDialog: HandleDialog with no dialog open.
	ErrNoDialog = errors.New("no JavaScript dialog is open")
	// ErrNoEffect: the call ran (filled, submitted, clicked) and the effect
	// it should have had was not seen: the page stayed as it was, or came
	// back as it was, or a field did not take its value.
	ErrNoEffect = errors.New("the call's effect was not seen")
	// ErrTimedOut: the call did not end within its own deadline (a
	// navigation and a settle, and a dialog's answer): the page neither
	// settled nor finished navigating. What it did is unknown.
	ErrTimedOut = errors.New("the page-tool call timed out")
	// ErrClosed: the engine was closed.
	ErrClosed = errors.New("page tools closed")
)

// Error is a call error that says what to do, with the page's tools now
// where knowing them helps.
type Error struct {
	Kind   error
	Msg    string
	Tools  []string
	Dialog *Dialog // ErrDialogOpen: the dialog
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
