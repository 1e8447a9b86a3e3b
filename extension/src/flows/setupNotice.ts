// The one notification about setup problems, with Retry, Show Log and
// Don't Show Again. This flow owns which steps the user muted.
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { notificationText, shouldNotify } from '../setup';

const MUTED_KEY = 'setupNotice.muted';

/** Shows the problems that stand (unless all are muted and not `always`); Retry calls `retry`. */
export async function notifyProblems(ctx: Ctx, always: boolean, retry: () => Promise<void>): Promise<void> {
  const problems = ctx.problems.list();
  if (problems.length === 0) return;
  const muted = ctx.context.globalState.get<string[]>(MUTED_KEY, []);
  if (!always && !shouldNotify(problems, muted)) {
    ctx.log.info(`setup: ${problems.length} problem(s), notification muted (${muted.join(', ')}): see the status bar`);
    return;
  }
  const again = 'Retry';
  const log = 'Show Log';
  const mute = "Don't Show Again";
  const pick = await vscode.window.showErrorMessage(notificationText(problems), again, log, mute);
  if (pick === again) await retry();
  if (pick === log) ctx.log.show();
  if (pick === mute) await ctx.context.globalState.update(MUTED_KEY, [...new Set([...muted, ...problems.map((p) => p.step)])]);
}
