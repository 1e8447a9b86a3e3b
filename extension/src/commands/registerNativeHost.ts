// "Use Your Own Browser: Register the Native Host…": a browser picked, and
// the sidecar registers itself as that browser's native host.
import * as vscode from 'vscode';
import type { Cmd, Ctx } from '../ctx';
import { HOST_KEY } from '../flows/sidecar';
import { errorMessage } from '../log';
import { HostRecord, hostBrowserLabels, hostBrowsers, nextSteps, registerNativeHost, remember } from '../nativeHost';

export function registerNativeHostCommand(ctx: Ctx): Cmd {
  return async () => {
    await ctx.firstSetup;
    if (!ctx.sidecar) {
      ctx.showError('no working sidecar binary, so the native host cannot be registered (see the log).');
      return;
    }
    const sidecar = ctx.sidecar.path;
    const pick = await vscode.window.showQuickPick(hostBrowsers.map((b) => ({ label: hostBrowserLabels[b], description: b, browser: b })), {
      title: 'Let agents work in your own browser: register the native host for which browser?',
      placeHolder: 'The browser starts this sidecar for the Browser Coordinator extension, and for it alone',
    });
    if (!pick) return;
    try {
      const r = await registerNativeHost({ sidecar, browser: pick.browser });
      ctx.log.info(`native host: ${r.message}`);
      await ctx.context.globalState.update(HOST_KEY, remember(ctx.context.globalState.get<HostRecord>(HOST_KEY), sidecar, pick.browser));
      void vscode.window.showInformationMessage(`Browser Coordinator: ${r.message}. ${nextSteps(pick.browser)}`);
    } catch (err) {
      ctx.log.error(`native host: ${errorMessage(err)}`);
      ctx.showError(errorMessage(err));
    }
  };
}
