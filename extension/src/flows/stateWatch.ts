// Setup's step that follows this workspace's coordinator: its state file,
// watched live. The watcher lives as long as the sidecar and the state
// folder it was made for (the context's sidecar lifetime).
import type { Ctx } from '../ctx';
import type { Step } from '../setup';
import { Entry, StateWatcher } from '../stateFile';

export function watchStep(ctx: Ctx): Step {
  return { name: 'watching the state folder', run: () => watchState(ctx) };
}

/** (Re)creates the state watcher when the folder or the workspace folders changed; it re-arms itself after errors. */
function watchState(ctx: Ctx): void {
  const dir = ctx.stateFolder;
  const key = `${dir}|${ctx.folders.join('|')}`;
  if (ctx.watcher && ctx.watchKey === key) return;
  ctx.disposeSidecarCleanup();
  ctx.watchKey = key;
  ctx.problems.set('state folder', undefined);
  const watcher = new StateWatcher({
    dir,
    workspaces: ctx.folders,
    log: ctx.log,
    onChange: (entry) => onState(ctx, entry),
    onProblem: (problem) => {
      ctx.problems.set('state folder', problem);
      ctx.render();
    },
  });
  ctx.watcher = watcher;
  ctx.pushSidecarCleanup({ dispose: () => { watcher.dispose(); if (ctx.watcher === watcher) ctx.watcher = undefined; } });
  ctx.log.info(`state: watching ${dir} for the coordinator of ${ctx.folders.join(', ') || '(no folder open)'}`);
  watcher.start();
}

function onState(ctx: Ctx, entry: Entry | undefined): void {
  if (entry) ctx.log.info(`state: coordinator pid ${entry.state.pid} on port ${entry.state.proxyPort}: ${entry.state.backend}, ${entry.state.state}${entry.state.browser ? ` (${entry.state.browser.type}${entry.state.browser.headless ? ', headless' : ''})` : ''}`);
  else ctx.log.info('state: no coordinator runs for this workspace');
  ctx.render();
}
