// "Add to Claude Code…": a folder, then a place (only for me, or for the
// team), then the entries written there by the sidecar.
import * as vscode from 'vscode';
import * as path from 'node:path';
import type { Place } from '../claudeCode';
import type { Cmd, Ctx } from '../ctx';
import { addIn } from '../flows/claudeCode';
import { pickFolder } from './pickFolder';

export function addToClaudeCode(ctx: Ctx): Cmd {
  return async () => {
    if (ctx.config.folders.length === 0) {
      void vscode.window.showWarningMessage('Browser Coordinator: open a folder first; Claude Code\'s entries belong to a project folder.');
      return;
    }
    const folder = await pickFolder('Add Browser Coordinator to Claude Code in which folder?', ctx.config.folders);
    if (!folder) return;
    await ctx.firstSetup;
    const items: (vscode.QuickPickItem & { place: Place })[] = [
      {
        place: 'local',
        label: '$(person) Only for me',
        description: "Claude Code's local scope (~/.claude.json)",
        detail: "Runs this extension's sidecar by its path; nothing goes into the repository. Kept current after updates.",
      },
      {
        place: 'project',
        label: '$(organization) For the team',
        description: `${path.basename(folder)}/.mcp.json`,
        detail: 'A portable entry (npx -y browser-coordinator) teammates can commit: no home folder, no version. Needs Node and the npm package.',
      },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: `Add Browser Coordinator to Claude Code in ${path.basename(folder)}` });
    if (pick) await addIn(ctx, folder, pick.place);
  };
}
