// The extension's context (rust-analyzer's ctx.ts): what every flow shares —
// the log, the status bar item, the product, the state found by setup — and
// the two disposal lifetimes: what lives as long as the extension
// (pushExtCleanup: context.subscriptions) and what lives as long as one
// sidecar process and its state file (pushSidecarCleanup: disposed when
// setup finds another sidecar or state folder, and at deactivation).
// Commands are registered one flow per module (commands/*.ts) through
// registerCommand(name, factory); setup is a coalesced refresh of
// independent steps (setup.ts), each a flow of its own (flows/*.ts).
import * as vscode from 'vscode';
import * as os from 'node:os';
import { ClaudeFolder } from './flows/claudeCode';
import { argvJsonPath, nativeCdpSupport, NativeSupport, Product, readProduct } from './product';
import { Problems, runSteps, Step, notificationText, shouldNotify } from './setup';
import type { Sidecar } from './sidecar';
import { currentPlatform, stateDir, stateDirFlag, StateWatcher } from './stateFile';
import { contextKeys, NativeCdp, StatusInput, statusView } from './statusBar';

export const SECTION = 'browserCoordinator';
export const CDP_ENV = 'VSCODE_CDP_PORT';
const MUTED_KEY = 'setupNotice.muted';

/** What a refresh redoes besides re-watching the state folder and re-checking Claude Code's entries. */
export interface RefreshParts {
  /** Find the sidecar again (spawns `--version` per candidate). */
  sidecar?: boolean;
  /** Read argv.json and discover VS Code's CDP port again. */
  native?: boolean;
}

/** The setup steps, by the part they belong to (flows/*.ts give them). */
export interface SetupFlows {
  sidecar: Step;
  native: Step[];
  watch: Step;
  claudeCode: Step;
}

/** A command's body, made once per registration from the context. */
export type Cmd = (...args: unknown[]) => unknown;

export class Ctx implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly item: vscode.StatusBarItem;
  readonly product: Product;
  readonly support: NativeSupport;
  readonly changed = new vscode.EventEmitter<void>();
  readonly problems = new Problems();
  readonly firstSetup: Promise<void>;

  sidecar?: Sidecar;
  native: NativeCdp;
  watcher?: StateWatcher;
  /** The key (state folder and workspace folders) the watcher was made for. */
  watchKey?: string;
  claude: ClaudeFolder[] = [];
  busy?: string;
  disposed = false;
  /** The steps each refresh runs. */
  readonly flows: SetupFlows;

  private sidecarCleanup: vscode.Disposable[] = [];
  private refreshing?: Promise<void>;
  private pending?: RefreshParts;
  private firstSetupDone!: () => void;

  constructor(readonly context: vscode.ExtensionContext, readonly activatedAt: number, flows: (ctx: Ctx) => SetupFlows) {
    this.log = vscode.window.createOutputChannel('Browser Coordinator', { log: true });
    this.item = vscode.window.createStatusBarItem('browserCoordinator.status', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Browser Coordinator';
    this.item.command = 'browserCoordinator.showActions';
    this.item.text = '$(loading~spin) browser';
    this.item.show();
    this.product = readProduct(vscode.env.appRoot, vscode.env.appName);
    this.support = nativeCdpSupport({
      ui: vscode.env.uiKind === vscode.UIKind.Desktop ? 'desktop' : 'web',
      remoteName: vscode.env.remoteName,
      version: vscode.version,
      appName: vscode.env.appName,
      product: this.product,
    });
    this.native = { support: this.support.kind, enabled: false };
    this.firstSetup = new Promise((resolve) => { this.firstSetupDone = resolve; });
    this.pushExtCleanup(this.log, this.item, this.changed, this);
    this.flows = flows(this);
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

  // ---- what flows read ----

  get cfg(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION);
  }

  get folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  get env() {
    return { platform: process.platform, home: os.homedir(), env: process.env };
  }

  get argvFile(): string {
    return argvJsonPath(this.product, this.env);
  }

  get extensionVersion(): string {
    return (this.context.extension.packageJSON as { version: string }).version;
  }

  get coordinatorArgs(): string[] {
    return this.cfg.get<string[]>('coordinatorArgs', []);
  }

  get stateFolder(): string {
    return stateDir(currentPlatform(), stateDirFlag(this.coordinatorArgs));
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
    if (parts.sidecar) first.push([this.flows.sidecar]);
    if (parts.native) first.push(this.flows.native);
    this.problems.update(await runSteps(first, this.log));
    if (this.disposed) return;
    this.problems.update(await runSteps([[this.flows.watch], [this.flows.claudeCode]], this.log));
    if (this.disposed) return;
    this.changed.fire();
    this.render();
  }

  /** The first setup is done (whether or not it found the sidecar). */
  setupDone(): void {
    this.firstSetupDone();
  }

  // ---- status ----

  statusInput(): StatusInput {
    const problems = this.problems.list().filter((p) => p.step !== 'sidecar');
    const stale = this.claude.find((c) => c.plan.kind === 'offerRepair');
    return {
      coordinator: this.watcher?.current?.state,
      native: this.native,
      sidecarError: this.problems.get('sidecar'),
      busy: this.busy,
      problems,
      claude: {
        hasEntries: this.claude.some((c) => c.local.ours.length > 0 || c.project.ours.length > 0),
        stale: stale && stale.plan.kind === 'offerRepair' ? stale.plan.why : undefined,
      },
      folders: this.folders.length,
    };
  }

  render(): void {
    const input = this.statusInput();
    const view = statusView(input);
    this.item.text = view.text;
    const tooltip = new vscode.MarkdownString(view.tooltip, true);
    tooltip.isTrusted = { enabledCommands: view.commands };
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: view.plain };
    this.item.backgroundColor = view.severity === 'normal' ? undefined : new vscode.ThemeColor(`statusBarItem.${view.severity === 'error' ? 'error' : 'warning'}Background`);
    const keys: Record<string, boolean> = { ...contextKeys(input), 'browserCoordinator.tier2.supported': this.support.kind === 'supported' };
    for (const [key, value] of Object.entries(keys)) void vscode.commands.executeCommand('setContext', key, value);
  }

  /** The one notification about setup problems, with Retry and Don't Show Again. */
  async notifyProblems(always: boolean, retry: () => Promise<void>): Promise<void> {
    const problems = this.problems.list();
    if (problems.length === 0) return;
    const muted = this.context.globalState.get<string[]>(MUTED_KEY, []);
    if (!always && !shouldNotify(problems, muted)) {
      this.log.info(`setup: ${problems.length} problem(s), notification muted (${muted.join(', ')}): see the status bar`);
      return;
    }
    const again = 'Retry';
    const log = 'Show Log';
    const mute = "Don't Show Again";
    const pick = await vscode.window.showErrorMessage(notificationText(problems), again, log, mute);
    if (pick === again) await retry();
    if (pick === log) this.log.show();
    if (pick === mute) await this.context.globalState.update(MUTED_KEY, [...new Set([...muted, ...problems.map((p) => p.step)])]);
  }

  /** Shows an error the user must act on, with the log as the action. */
  showError(message: string): void {
    void vscode.window.showErrorMessage(`Browser Coordinator: ${message}`, 'Show Log').then((pick) => pick && this.log.show());
  }

  dispose(): void {
    this.disposed = true;
    this.disposeSidecarCleanup();
    this.watcher = undefined;
    this.firstSetupDone?.();
  }
}
