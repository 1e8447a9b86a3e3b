// "Use Your Own Browser: Register the Native Host…": a browser picked, and
// the sidecar registers itself as that browser's native host.
import * as vscode from 'vscode';
import type { Cmd, Ctx } from '../ctx';
import { registerHost } from '../flows/nativeHost';
import { errorMessage } from '../log';
import { hostBrowserLabels, hostBrowsers, nextSteps } from '../nativeHost';

export function registerNativeHostCommand(ctx: Ctx): Cmd {
  return async () => {
    await ctx.firstSetup;
    const sidecar = ctx.sidecar.current?.path;
    if (!sidecar) {
      ctx.showError('no working sidecar binary, so the native host cannot be registered (see the log).');
      return;
    }
    const pick = await vscode.window.showQuickPick(hostBrowsers.map((b) => ({ label: hostBrowserLabels[b], description: b, browser: b })), {
      title: 'Let agents work in your own browser: register the native host for which browser?',
      placeHolder: 'The browser starts this sidecar for the Browser Coordinator extension, and for it alone',
    });
    if (!pick) return;
    try {
      const r = await registerHost(ctx, sidecar, pick.browser);
      ctx.log.info(`native host: ${r.message}`);
      void vscode.window.showInformationMessage(`Browser Coordinator: ${r.message}. ${nextSteps(pick.browser)}`);
    } catch (err) {
      ctx.log.error(`native host: ${errorMessage(err)}`);
      ctx.showError(errorMessage(err));
    }
  };
}
