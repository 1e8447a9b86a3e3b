// The extension's context (rust-analyzer's ctx.ts): the lifecycle and the
// handles on the flows, and nothing else. It owns
// - the two disposal lifetimes: what lives as long as the extension
//   (pushExtCleanup: context.subscriptions) and what lives as long as one
//   sidecar process and its state file (pushSidecarCleanup: disposed when
//   setup finds another sidecar or state folder, and at deactivation);
// - setup as a coalesced refresh of independent steps (setup.ts), the
//   problems those steps left (Problems keeps one entry per step; the live
//   "state folder" one is the state watch's), and the first setup's promise;
// - the log and the "definitions changed" event.
// Settings and the workspace's folders are read fresh through config.ts.
// Every other piece of state has one owner, a flow in flows/*.ts, which
// alone writes it and lets the rest read it: the sidecar found
// (flows/sidecar.ts), Tier 2's argv.json and port (flows/tier2.ts), the
// state watcher (flows/stateWatch.ts), Claude Code's entries
// (flows/claudeCode.ts), the status bar item and the action in flight
// (flows/statusItem.ts), the muted setup notice (flows/setupNotice.ts),
// the native hosts registered (flows/nativeHost.ts). Commands are
// registered one flow per module (commands/*.ts) through
// registerCommand(name, factory).
import * as vscode from 'vscode';
import { Config } from './config';
import { ClaudeCode } from './flows/claudeCode';
import { SidecarFlow } from './flows/sidecar';
import { StateWatch } from './flows/stateWatch';
import { StatusItem } from './flows/statusItem';
import { Tier2 } from './flows/tier2';
import { Product, readProduct } from './product';
import { Problems, runSteps, Step } from './setup';

/** What a refresh redoes besides re-watching the state folder and re-checking Claude Code's entries. */
export interface RefreshParts {
  /** Find the sidecar again (spawns `--version` per candidate). */
  sidecar?: boolean;
  /** Read argv.json and discover VS Code's CDP port again. */
  native?: boolean;
}

/** A command's body, made once per registration from the context. */
export type Cmd = (...args: unknown[]) => unknown;

export class Ctx implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly config: Config;
  readonly product: Product;
  readonly changed = new vscode.EventEmitter<void>();
  readonly problems = new Problems();
  readonly firstSetup: Promise<void>;

  // The flows, each the one owner of its state.
  readonly status: StatusItem;
  readonly sidecar: SidecarFlow;
  readonly tier2: Tier2;
  readonly state: StateWatch;
  readonly claudeCode: ClaudeCode;

  private isDisposed = false;
  private sidecarCleanup: vscode.Disposable[] = [];
  private refreshing?: Promise<void>;
  private pending?: RefreshParts;
  private firstSetupDone!: () => void;

  constructor(readonly context: vscode.ExtensionContext, readonly activatedAt: number) {
    this.log = vscode.window.createOutputChannel('Browser Coordinator', { log: true });
    this.config = new Config(context);
    this.product = readProduct(vscode.env.appRoot, vscode.env.appName);
    this.firstSetup = new Promise((resolve) => { this.firstSetupDone = resolve; });
    this.status = new StatusItem(this);
    this.sidecar = new SidecarFlow(this);
    this.tier2 = new Tier2(this);
    this.state = new StateWatch(this);
    this.claudeCode = new ClaudeCode(this);
    this.pushExtCleanup(this.log, this.status, this.changed, this);
  }

  // ---- the two lifetimes ----

  pushExtCleanup(...ds: vscode.Disposable[]): void {
    this.context.subscriptions.push(...ds);
  }

  pushSidecarCleanup(...ds: vscode.Disposable[]): void {
    this.sidecarCleanup.push(...ds);
  }

  /** Ends the sidecar lifetime: what belonged to the last sidecar and its state file goes. */
  disposeSidecarCleanup(): void {
    for (const d of this.sidecarCleanup.splice(0).reverse()) d.dispose();
  }

  registerCommand(name: string, factory: (ctx: Ctx) => Cmd): void {
    this.pushExtCleanup(vscode.commands.registerCommand(name, factory(this)));
  }

  /** The extension is deactivating: flows stop before touching VS Code again. */
  get disposed(): boolean {
    return this.isDisposed;
  }

  // ---- setup ----

  /**
   * Re-runs setup: the given parts, then the state watcher and Claude Code's
   * entries. Calls during a run coalesce into one more run with all their
   * parts (ruff-vscode's requestRestart).
   */
  requestRefresh(parts: RefreshParts): Promise<void> {
    this.pending = {
      sidecar: this.pending?.sidecar || parts.sidecar,
      native: this.pending?.native || parts.native,
    };
    if (this.refreshing) return this.refreshing;
    this.refreshing = (async () => {
      while (this.pending && !this.disposed) {
        const next = this.pending;
        this.pending = undefined;
        await this.refresh(next);
      }
      this.refreshing = undefined;
    })();
    return this.refreshing;
  }

  private async refresh(parts: RefreshParts): Promise<void> {
    const first: Step[][] = [];
    if (parts.sidecar) first.push([this.sidecar.step]);
    if (parts.native) first.push(this.tier2.steps);
    this.problems.update(await runSteps(first, this.log));
    if (this.disposed) return;
    this.problems.update(await runSteps([[this.state.step], [this.claudeCode.step]], this.log));
    if (this.disposed) return;
    this.changed.fire();
    this.status.render();
  }

  /** The first setup is done (whether or not it found the sidecar). */
  setupDone(): void {
    this.firstSetupDone();
  }

  /** Shows an error the user must act on, with the log as the action. */
  showError(message: string): void {
    void vscode.window.showErrorMessage(`Browser Coordinator: ${message}`, 'Show Log').then((pick) => pick && this.log.show());
  }

  dispose(): void {
    this.isDisposed = true;
    this.disposeSidecarCleanup();
    this.firstSetupDone?.();
  }
}
