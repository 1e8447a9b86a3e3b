// Setup's step that follows this workspace's coordinator: its state file,
// watched live. This flow owns the watcher and the key (state folder and
// workspace folders) it was made for; the watcher lives as long as the
// sidecar and the state folder (the context's sidecar lifetime). It alone
// reports the live "state folder" problem.
import type { Ctx } from '../ctx';
import type { Step } from '../setup';
import { Entry, StateWatcher } from '../stateFile';

export class StateWatch {
  readonly step: Step = { name: 'watching the state folder', run: () => this.watch() };
  private watcher?: StateWatcher;
  private key?: string;

  constructor(private readonly ctx: Ctx) {}

  /** This workspace's coordinator as last seen. */
  get current(): Entry | undefined {
    return this.watcher?.current;
  }

  /** Reads the state folder now (the watcher may lag a change just made). */
  refresh(): Entry | undefined {
    return this.watcher?.refresh();
  }

  /** The next setup makes a new watcher, which checks the folder at once. */
  renew(): void {
    this.key = undefined;
  }

  /** (Re)creates the state watcher when the folder or the workspace folders changed; it re-arms itself after errors. */
  private watch(): void {
    const { ctx } = this;
    const dir = ctx.config.stateFolder;
    const key = `${dir}|${ctx.config.folders.join('|')}`;
    if (this.watcher && this.key === key) return;
    ctx.disposeSidecarCleanup();
    this.key = key;
    ctx.problems.set('state folder', undefined);
    const watcher = new StateWatcher({
      dir,
      workspaces: ctx.config.folders,
      log: ctx.log,
      onChange: (entry) => this.onState(entry),
      onProblem: (problem) => {
        ctx.problems.set('state folder', problem);
        ctx.status.render();
      },
    });
    this.watcher = watcher;
    ctx.pushSidecarCleanup({ dispose: () => { watcher.dispose(); if (this.watcher === watcher) this.watcher = undefined; } });
    ctx.log.info(`state: watching ${dir} for the coordinator of ${ctx.config.folders.join(', ') || '(no folder open)'}`);
    watcher.start();
  }

  private onState(entry: Entry | undefined): void {
    const { ctx } = this;
    if (entry) ctx.log.info(`state: coordinator pid ${entry.state.pid} on port ${entry.state.proxyPort}: ${entry.state.backend}, ${entry.state.state}${entry.state.browser ? ` (${entry.state.browser.type}${entry.state.browser.headless ? ', headless' : ''})` : ''}`);
    else ctx.log.info('state: no coordinator runs for this workspace');
    ctx.status.render();
  }
}
