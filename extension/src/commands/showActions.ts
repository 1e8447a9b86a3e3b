// The status bar item's click: the actions that can act now, in a quick pick.
import * as vscode from 'vscode';
import type { Cmd, Ctx } from '../ctx';
import { actionItems, commandOf, statusView } from '../statusBar';

export function showActions(ctx: Ctx): Cmd {
  return async () => {
    const input = ctx.status.input();
    const pick = await vscode.window.showQuickPick(actionItems(input), { title: 'Browser Coordinator', placeHolder: statusView(input).text.replace(/\$\([^)]+\)\s*/g, '') });
    if (pick) await vscode.commands.executeCommand(commandOf[pick.id]);
  };
}
