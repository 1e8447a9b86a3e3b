package pagetools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// JavaScript dialogs (alert, confirm, prompt, beforeunload). While one is
// open the page's renderer answers nothing: every command that needs it
// (discovery, a call's fill and settle, even Page.getFrameTree) waits until
// the dialog is answered. So the engine follows Page.javascriptDialogOpening
// and …Closed, answers at once while a dialog is open, cuts short what a
// dialog blocks, and lets its owner answer the dialog (HandleDialog). A call
// a dialog interrupts goes on once the dialog is answered; HandleDialog
// answers what it did then.

// dialogTextMax bounds a dialog's message and default prompt, in bytes.
const dialogTextMax = 500

// Dialog is a JavaScript dialog open on the page. Message, DefaultPrompt and
// URL come from the page: cleaned and bounded, untrusted.
type Dialog struct {
	Type          string `json:"type"` // alert, confirm, prompt or beforeunload
	Message       string `json:"message"`
	DefaultPrompt string `json:"defaultPrompt,omitempty"`
	URL           string `json:"url"`
}

// Text says what the dialog is, its page's words quoted and marked.
func (d Dialog) Text() string {
	s := fmt.Sprintf("a JavaScript %s dialog is open on the page %s", d.Type, clipURL(d.URL))
	if d.Message != "" {
		s += ", saying " + pageLabel(d.Message, dialogTextMax)
	}
	if d.Type == "prompt" && d.DefaultPrompt != "" {
		s += " (its text field holds " + pageLabel(d.DefaultPrompt, dialogTextMax) + ")"
	}
	return s
}

func clipURL(u string) string {
	if len(u) > 300 {
		return u[:300] + "…"
	}
	return u
}

// Dialog is the JavaScript dialog open on the page, if any.
func (e *Engine) Dialog() (Dialog, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tab.dialog == nil {
		return Dialog{}, false
	}
	return *e.tab.dialog, true
}

// dialogErr is the error of something a dialog stops: what, then the
// dialog; nil when none is open.
func (e *Engine) dialogErr(what string) error {
	d, ok := e.Dialog()
	if !ok {
		return nil
	}
	msg := d.Text() + "; the page does nothing else until it is answered (accept or dismiss; a prompt takes a text)"
	if what != "" {
		msg = what + ": " + msg
	}
	return &Error{Kind: ErrDialogOpen, Msg: msg, Dialog: &d}
}

// errCutByDialog is the cause of a context a dialog ended.
var errCutByDialog = errors.New("a JavaScript dialog opened")

// uncutKey marks a context whose commands a dialog does not cut short: a
// call's own, which goes on once the dialog is answered.
type uncutKey struct{}

func uncut(ctx context.Context) bool { return ctx.Value(uncutKey{}) != nil }

// cut is ctx, ended when a dialog opens on the page.
func (e *Engine) cut(ctx context.Context) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithCancelCause(ctx)
	go func() {
		for {
			e.mu.Lock()
			open, wake := e.tab.dialog != nil, e.wake
			e.mu.Unlock()
			if open {
				cancel(errCutByDialog)
				return
			}
			select {
			case <-wake:
			case <-cctx.Done():
				return
			}
		}
	}()
	return cctx, func() { cancel(nil) }
}

// rpc sends a command that needs the page's renderer: at once an
// ErrDialogOpen while a dialog is open, and cut short by one that opens
// (unless ctx is a call's own: uncut).
func (e *Engine) rpc(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if uncut(ctx) {
		return e.sess.Call(ctx, method, params)
	}
	if err := e.dialogErr(""); err != nil {
		return nil, err
	}
	cctx, cancel := e.cut(ctx)
	defer cancel()
	res, err := e.sess.Call(cctx, method, params)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(cctx), errCutByDialog) {
		if derr := e.dialogErr(""); derr != nil {
			return nil, derr
		}
	}
	return res, err
}

// pendingCall is a call a dialog interrupted: its goroutine goes on once
// the dialog is answered, and answers on done.
type pendingCall struct {
	tool   string
	done   <-chan callOutcome
	cancel context.CancelFunc
}

type callOutcome struct {
	res *Result
	err error
}

// await waits for a call's outcome; a dialog that opens meanwhile makes
// the call pending (HandleDialog takes it up) and is answered at once.
func (e *Engine) await(ctx context.Context, p *pendingCall) (*Result, error) {
	for {
		e.mu.Lock()
		open, wake := e.tab.dialog != nil, e.wake
		if open {
			e.pend = p
		}
		e.mu.Unlock()
		if open {
			// The call's outcome may already be there: a dialog the
			// page opened after it.
			select {
			case o := <-p.done:
				e.clearPending(p)
				return o.res, o.err
			default:
			}
			return nil, e.dialogErr(p.tool + ": the page opened a dialog during the call, and the call waits for its answer")
		}
		select {
		case o := <-p.done:
			return o.res, o.err
		case <-wake:
		case <-ctx.Done():
			p.cancel()
			<-p.done
			return nil, ctx.Err()
		}
	}
}

func (e *Engine) clearPending(p *pendingCall) {
	e.mu.Lock()
	if e.pend == p {
		e.pend = nil
	}
	e.mu.Unlock()
}

// HandleDialog answers the JavaScript dialog open on the page: accept or
// dismiss, and for a prompt its text (nil: the page's default). A call the
// dialog interrupted then goes on, and its outcome is the answer; else the
// answer is the page as it is then. ErrNoDialog when none is open.
func (e *Engine) HandleDialog(ctx context.Context, accept bool, promptText *string) (*Result, error) {
	e.mu.Lock()
	d, p := e.tab.dialog, e.pend
	e.mu.Unlock()
	if d == nil {
		return nil, &Error{Kind: ErrNoDialog, Msg: "no JavaScript dialog is open on the page; nothing was done"}
	}
	params := map[string]any{"accept": accept}
	if promptText != nil {
		params["promptText"] = *promptText
	}
	if _, err := e.sess.Call(ctx, "Page.handleJavaScriptDialog", params); err != nil {
		return nil, fmt.Errorf("answer the page's %s dialog: %w", d.Type, err)
	}
	if _, err := e.waitFor(ctx, 5*time.Second, func() bool { return e.tab.dialog != d }); err != nil {
		return nil, err
	}
	answer := answered(*d, accept, promptText)
	if p == nil {
		return e.afterDialog(ctx, answer)
	}
	e.clearPending(p)
	res, err := e.await(ctx, p)
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			shown := *pe
			shown.Msg = answer + " " + shown.Msg
			return nil, &shown
		}
		return nil, fmt.Errorf("%s %w", answer, err)
	}
	res.DialogAnswer = answer
	return res, nil
}

// afterDialog answers the page as it is once a dialog no call waited on is
// answered (one that opened as the page loaded, say).
func (e *Engine) afterDialog(ctx context.Context, answer string) (*Result, error) {
	if _, err := e.Discover(ctx); err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			shown := *pe
			shown.Msg = answer + " Then " + shown.Msg
			return nil, &shown
		}
		e.log.Debug("page tools: the page after a dialog", "error", err)
	}
	res := &Result{DialogAnswer: answer}
	e.describe(res)
	return res, nil
}

// answered says how a dialog was answered.
func answered(d Dialog, accept bool, promptText *string) string {
	how := "dismissed"
	if accept {
		how = "accepted"
		if d.Type == "prompt" && promptText != nil {
			how = "accepted with the text given"
		}
	}
	if d.Type == "alert" {
		how = "closed"
	}
	return fmt.Sprintf("The page's %s dialog was %s.", d.Type, how)
}
