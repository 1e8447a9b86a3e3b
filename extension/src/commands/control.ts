// Launch, stop and restart the browser of this workspace's coordinator
// through its control API (the same actions as the MCP tools), and the
// headless toggle, which is a launch with the other mode.
import * as vscode from 'vscode';
import { ControlClient, LaunchOptions } from '../control';
import type { Cmd, Ctx } from '../ctx';
import { errorMessage } from '../log';
import type { Entry } from '../stateFile';

type Action = 'launch' | 'stop' | 'restart';

/** The coordinator of this workspace, or a warning saying how one starts. */
function coordinator(ctx: Ctx): Entry | undefined {
  const entry = ctx.state.refresh();
  if (!entry) {
    void vscode.window.showWarningMessage(
      'Browser Coordinator: no coordinator runs for this workspace. Your MCP host starts it: use its browser tools, or start the "Browser Coordinator" server from the MCP server list.',
      'Show Log',
    ).then((pick) => pick && ctx.log.show());
  }
  return entry;
}

async function act(ctx: Ctx, entry: Entry, action: Action, options: LaunchOptions = {}): Promise<void> {
  const client = ControlClient.of(entry.state);
  await ctx.status.busyWhile({ launch: 'launching', stop: 'stopping', restart: 'restarting' }[action], async () => {
    try {
      ctx.log.info(`control: ${action} ${JSON.stringify(options)} → coordinator pid ${entry.state.pid} on port ${entry.state.proxyPort}`);
      const status = action === 'launch' ? await client.launch(options) : action === 'stop' ? await client.stop() : await client.restart();
      ctx.log.info(`control: ${action} done: ${status.state}${status.browser ? ` (${status.browser.type}${status.browser.headless ? ', headless' : ''})` : ''}`);
    } catch (err) {
      ctx.log.error(`control: ${action} failed: ${errorMessage(err)}`);
      ctx.showError(`${action} failed: ${errorMessage(err)}`);
    }
  });
}

/** launch, stop or restart, as a command. */
export function control(action: Action): (ctx: Ctx) => Cmd {
  return (ctx) => async () => {
    const entry = coordinator(ctx);
    if (entry) await act(ctx, entry, action);
  };
}

export function toggleHeadless(ctx: Ctx): Cmd {
  return async () => {
    const entry = coordinator(ctx);
    if (!entry) return;
    const headless = entry.state.browser?.headless ?? true;
    await act(ctx, entry, 'launch', { headless: !headless });
  };
}
