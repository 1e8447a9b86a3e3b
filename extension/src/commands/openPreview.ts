// A preview of the page in front: the Simple Browser, else outside VS Code.
import * as vscode from 'vscode';
import type { Cmd, Ctx } from '../ctx';
import { errorMessage } from '../log';

export function openPreview(ctx: Ctx): Cmd {
  return async () => {
    const url = ctx.state.current?.state.currentUrl;
    if (!url || url.startsWith('about:')) {
      void vscode.window.showInformationMessage('Browser Coordinator: the browser shows no page yet.');
      return;
    }
    try {
      await vscode.commands.executeCommand('simpleBrowser.show', url);
    } catch (err) {
      ctx.log.warn(`preview: Simple Browser is not available (${errorMessage(err)}); opening ${url} outside VS Code`);
      await vscode.env.openExternal(vscode.Uri.parse(url));
    }
  };
}
