// "Repair the Claude Code Entries": every folder whose entries are stale.
import * as vscode from 'vscode';
import type { Cmd, Ctx } from '../ctx';
import { repair } from '../flows/claudeCode';

export function repairClaudeCode(ctx: Ctx): Cmd {
  return async () => {
    const stale = ctx.claudeCode.folders.filter((c) => c.plan.kind === 'offerRepair');
    if (stale.length === 0) {
      void vscode.window.showInformationMessage('Browser Coordinator: no Claude Code entry needs a repair.');
      return;
    }
    for (const c of stale) if (c.plan.kind === 'offerRepair') await repair(ctx, c.folder, c.plan.place);
  };
}
