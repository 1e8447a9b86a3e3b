package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagefocus"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
)

// JavaScript dialogs (alert, confirm, prompt) in the focused tab. While
// one is open the page does nothing else: every page-tool call and
// coordinator_page_tools answers at once with the dialog, and
// coordinator_handle_dialog (the progressive surface: handle_dialog)
// answers it. A call the dialog interrupted goes on then, and the
// dialog's answer is that call's outcome.

type handleDialogArgs struct {
	Accept     bool    `json:"accept" jsonschema:"true: OK (accept the confirm, submit the prompt); false: Cancel. An alert is closed either way."`
	PromptText *string `json:"promptText,omitempty" jsonschema:"For a prompt: the text to answer with (default: what the prompt holds)."`
}

// handleDialogTool is the tool under the surface's name.
func (p *pageSurface) handleDialogTool() toolDef {
	return typed(spec{name: p.v.handleDialog, title: "Answer a JavaScript dialog",
		description: "Answer the JavaScript dialog (alert, confirm or prompt) open in the focused tab, as a person would: accept (OK) or not (Cancel), with promptText for a prompt. While a dialog is open the page does nothing else, and page-tool calls say so. When a page-tool call opened the dialog, the call goes on and this answers what it did then (where the tab is, what changed, the page's tools now).",
		destructive: true, openWorld: true, needs: "true: OK, false: Cancel", out: pageResultAbout}, p.handleDialog)
}

// dialogHint says how to answer a dialog on this surface.
func (p *pageSurface) dialogHint() string {
	return fmt.Sprintf("answer it with %s {\"accept\": true or false, \"promptText\": \"…\" for a prompt}: its answer says what the page did then", p.v.handleDialog)
}

// dialogText is a dialog as an answer shows it, with how to answer it.
func (p *pageSurface) dialogText(d *pagetools.Dialog) string {
	return "Until it is answered the page does nothing else: " + d.Text() + "; " + p.dialogHint() + "."
}

func (p *pageSurface) handleDialog(ctx context.Context, a handleDialogArgs) (*pagetools.Result, string, error) {
	name := p.v.handleDialog
	if err := p.host.ready(name); err != nil {
		return nil, "", err
	}
	res, err := p.tr.HandleDialog(ctx, a.Accept, a.PromptText)
	switch {
	case errors.Is(err, pagetools.ErrNoDialog):
		return nil, "", fmt.Errorf("%s: no JavaScript dialog is open in the focused tab; nothing was done", name)
	case errors.Is(err, pagefocus.ErrNoFocus):
		return nil, "", fmt.Errorf("%s: no tab is focused, so there is no dialog to answer; %s", name, p.v.focusHint)
	}
	snap := p.tr.Snapshot()
	st := shownTool{on: snap.Shown()}
	if res != nil {
		st.name = res.Tool
	}
	return p.callResult(ctx, name, st, res, err, p.dynamic)
}
