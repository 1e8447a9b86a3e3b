package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagefocus"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/pagetools"
	"github.com/mark3labs/mcp-go/mcp"
)

// JavaScript dialogs (alert, confirm, prompt) in the focused tab. While
// one is open the page does nothing else: every page-tool call and
// coordinator_page_tools answers at once with the dialog, and
// coordinator_handle_dialog (the progressive surface: handle_dialog)
// answers it. A call the dialog interrupted goes on then, and the
// dialog's answer is that call's outcome.

const handleDialogInput = `{"type":"object","properties":{
	"accept":{"type":"boolean","description":"true: OK (accept the confirm, submit the prompt); false: Cancel. An alert is closed either way."},
	"promptText":{"type":"string","description":"For a prompt: the text to answer with (default: what the prompt holds)."}
},"required":["accept"],"additionalProperties":false}`

// handleDialogTool is the tool under the surface's name.
func (p *pageSurface) handleDialogTool() toolDef {
	name := p.dialogToolName()
	t := newTool(name, "Answer a JavaScript dialog",
		"Answer the JavaScript dialog (alert, confirm or prompt) open in the focused tab, as a person would: accept (OK) or not (Cancel), with promptText for a prompt. While a dialog is open the page does nothing else, and page-tool calls say so. When a page-tool call opened the dialog, the call goes on and this answers what it did then (where the tab is, what changed, the page's tools now).",
		false, true, false, handleDialogInput, pageResultSchema)
	t.Annotations.OpenWorldHint = hint(true)
	return toolDef{t, p.handleDialog}
}

func (p *pageSurface) dialogToolName() string {
	if p.prog != nil {
		return "handle_dialog"
	}
	return "coordinator_handle_dialog"
}

// dialogHint says how to answer a dialog on this surface.
func (p *pageSurface) dialogHint() string {
	return fmt.Sprintf("answer it with %s {\"accept\": true or false, \"promptText\": \"…\" for a prompt}: its answer says what the page did then", p.dialogToolName())
}

// dialogText is a dialog as an answer shows it, with how to answer it.
func (p *pageSurface) dialogText(d *pagetools.Dialog) string {
	return "Until it is answered the page does nothing else: " + d.Text() + "; " + p.dialogHint() + "."
}

func (p *pageSurface) handleDialog(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := p.dialogToolName()
	a, err := parseArgs(req, "accept", "promptText")
	if err != nil {
		return toolError(err), nil
	}
	accept, ok, err := a.boolean("accept")
	if err == nil && !ok {
		err = fmt.Errorf("%s: accept is required (true: OK, false: Cancel)", name)
	}
	if err != nil {
		return toolError(err), nil
	}
	promptText, err := a.optStr("promptText")
	if err != nil {
		return toolError(err), nil
	}
	if p.prog != nil && !p.prog.isConnected() {
		return p.prog.notConnected(name), nil
	}
	res, err := p.tr.HandleDialog(ctx, accept, promptText)
	switch {
	case errors.Is(err, pagetools.ErrNoDialog):
		return toolError(fmt.Errorf("%s: no JavaScript dialog is open in the focused tab; nothing was done", name)), nil
	case errors.Is(err, pagefocus.ErrNoFocus):
		return toolError(fmt.Errorf("%s: no tab is focused, so there is no dialog to answer; %s", name, p.focusHint())), nil
	}
	snap := p.tr.Snapshot()
	st := shownTool{on: snap.Shown()}
	if res != nil {
		st.name = res.Tool
	}
	return p.callResult(ctx, name, st, res, err, p.dynamic), nil
}
