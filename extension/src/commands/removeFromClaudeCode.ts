// "Remove from Claude Code…": a folder with entries, then its entries gone
// from both places, and the folder remembered as declined.
import * as vscode from 'vscode';
import type { Cmd, Ctx } from '../ctx';
import { removeIn } from '../flows/claudeCode';
import { pickFolder } from './pickFolder';

export function removeFromClaudeCode(ctx: Ctx): Cmd {
  return async () => {
    const withEntries = ctx.claudeCode.folders.filter((c) => c.local.ours.length || c.project.ours.length).map((c) => c.folder);
    if (withEntries.length === 0) {
      void vscode.window.showInformationMessage('Browser Coordinator: no open folder has Claude Code entries of the extension.');
      return;
    }
    const folder = await pickFolder('Remove Browser Coordinator\'s Claude Code entries of which folder?', withEntries);
    if (folder) await removeIn(ctx, folder);
  };
}
