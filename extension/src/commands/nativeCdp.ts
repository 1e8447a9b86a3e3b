// Enable or disable Tier 2: "remote-debugging-port" in this product's
// argv.json (argv.ts edits it), asked first, with the full restart it needs.
import * as vscode from 'vscode';
import { ArgvParseError, BACKUP_SUFFIX, disableNativeCdp, enableNativeCdp, KEY } from '../argv';
import type { Cmd, Ctx } from '../ctx';
import { errorMessage } from '../log';

export function nativeCdp(enable: boolean): (ctx: Ctx) => Cmd {
  return (ctx) => async () => {
    if (ctx.tier2.support.kind === 'unavailable') {
      void vscode.window.showWarningMessage(`Browser Coordinator: ${ctx.tier2.support.reason}.`);
      return;
    }
    if (enable && ctx.tier2.support.kind === 'argvIgnored') {
      void vscode.window.showWarningMessage(`Browser Coordinator: ${ctx.tier2.support.reason}. ${ctx.tier2.support.needs}`);
      return;
    }
    if (await confirm(ctx.tier2.argvFile, enable)) await edit(ctx, ctx.tier2.argvFile, enable);
    await ctx.requestRefresh({ native: true });
  };
}

async function confirm(file: string, enable: boolean): Promise<boolean> {
  const action = enable ? 'Enable' : 'Disable';
  const detail = enable
    ? `This adds "${KEY}": "0" to ${file}, marked with a comment (the original file is kept as argv.json${BACKUP_SUFFIX}). VS Code then opens its Chrome DevTools Protocol port on 127.0.0.1 at its next start, so agents can drive VS Code's own browser view (Tier 2). Any program of any user on this machine can connect to that port while VS Code runs. A full quit and restart of VS Code is needed; uninstalling the extension removes the key.`
    : `This removes "${KEY}" from ${file}. A full quit and restart of VS Code is needed.`;
  return (await vscode.window.showInformationMessage(`${action} Tier 2 (VS Code's debugging port)?`, { modal: true, detail }, action)) === action;
}

async function edit(ctx: Ctx, file: string, enable: boolean): Promise<void> {
  try {
    const result = enable ? enableNativeCdp(file) : disableNativeCdp(file);
    ctx.log.info(`Tier 2: ${result.message}${result.backup ? ` (original kept in ${result.backup})` : ''}`);
    if (!result.changed) {
      void vscode.window.showInformationMessage(`Browser Coordinator: ${result.message}.`);
      return;
    }
    const quit = 'Quit VS Code';
    const pick = await vscode.window.showInformationMessage(
      `Tier 2 ${enable ? 'enabled' : 'disabled'}. VS Code runs one process for all its windows: quit it completely (all windows) and start it again for this to take effect.`,
      quit,
    );
    if (pick === quit) void vscode.commands.executeCommand('workbench.action.quit');
  } catch (err) {
    const message = err instanceof ArgvParseError ? err.message : `cannot edit ${file}: ${errorMessage(err)}`;
    ctx.log.error(`Tier 2: ${message}`);
    const open = 'Open argv.json';
    if ((await vscode.window.showErrorMessage(`Browser Coordinator: ${message}`, open)) !== open) return;
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
    if (err instanceof ArgvParseError) {
      const pos = new vscode.Position(err.line - 1, err.column - 1);
      editor.selection = new vscode.Selection(pos, pos);
      editor.revealRange(new vscode.Range(pos, pos));
    }
  }
}
