// "Retry Setup": every setup step again, then the problems that stand.
import * as vscode from 'vscode';
import type { Cmd, Ctx } from '../ctx';
import { notifyProblems } from '../flows/setupNotice';

export async function retry(ctx: Ctx): Promise<void> {
  ctx.log.info('setup: retry');
  ctx.state.renew(); // a new watcher checks the folder now, not at its next retry
  await ctx.requestRefresh({ sidecar: true, native: true });
  if (ctx.problems.list().length) await notifyProblems(ctx, true, () => retry(ctx));
  else void vscode.window.showInformationMessage('Browser Coordinator: setup complete.');
}

export function retrySetup(ctx: Ctx): Cmd {
  return () => retry(ctx);
}
