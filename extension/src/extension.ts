// Wires the logic modules to VS Code. Activation only sets up (a status bar
// item, commands, the MCP provider, then the slower work in the background:
// finding the sidecar, reading argv.json, publishing VS Code's CDP port,
// watching the state folder, checking Claude Code's entries); nothing here
// blocks VS Code's start. Each setup step is independent (setup.ts): a
// failure is logged, shown in the status bar and in one notification, and the
// other steps run. Two lifetimes: what lives as long as the extension
// (context.subscriptions) and what depends on the resolved sidecar and
// settings (refreshed, coalesced, on change).
import * as vscode from 'vscode';
import * as os from 'node:os';
import * as path from 'node:path';
import { ArgvParseError, argvStatus, BACKUP_SUFFIX, disableNativeCdp, enableNativeCdp, KEY } from './argv';
import { discover, portFilePath, removePortFile, writePortFile } from './cdpPort';
import {
  applyWanted, Choice, entriesFor, inspect, Inspection, locationOf, looksLikeClaudeProject, Place, plan, Plan, removeServers,
} from './claudeCode';
import { ControlClient, LaunchOptions } from './control';
import { errorMessage } from './log';
import { registerProvider } from './mcpProvider';
import { HostRecord, hostBrowserLabels, hostBrowsers, nextSteps, registerNativeHost, remember, staleRegistrations } from './nativeHost';
import { argvJsonPath, nativeCdpSupport, NativeSupport, Product, readProduct, userDataDir } from './product';
import { Child, ChildKind, childOf, serverDefinitions } from './registration';
import { notificationText, Problems, runSteps, shouldNotify, Step } from './setup';
import { resolveSidecar, Sidecar } from './sidecar';
import { currentPlatform, Entry, stateDir, stateDirFlag, StateWatcher } from './stateFile';
import { ActionId, actionItems, commandOf, contextKeys, NativeCdp, StatusInput, statusView } from './statusBar';

const SECTION = 'browserCoordinator';
const CDP_ENV = 'VSCODE_CDP_PORT';
const WALKTHROUGH = 'browser-coordinator.browser-coordinator#browserCoordinator.start';
const MUTED_KEY = 'setupNotice.muted';
/** globalState: the browsers whose native host this extension registered, and with which sidecar. */
const HOST_KEY = 'nativeHost.registered';

/** What a refresh redoes besides re-watching the state folder and re-checking Claude Code's entries. */
interface RefreshParts {
  /** Find the sidecar again (spawns `--version` per candidate). */
  sidecar?: boolean;
  /** Read argv.json and discover VS Code's CDP port again. */
  native?: boolean;
}

interface ClaudeFolder {
  folder: string;
  plan: Plan;
  local: Inspection;
  project: Inspection;
}

class Controller implements vscode.Disposable {
  private readonly log: vscode.LogOutputChannel;
  private readonly item: vscode.StatusBarItem;
  private readonly product: Product;
  private readonly support: NativeSupport;
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly problems = new Problems();
  private sidecar?: Sidecar;
  private native: NativeCdp;
  private watcher?: StateWatcher;
  private watchKey?: string;
  private claude: ClaudeFolder[] = [];
  private busy?: string;
  private refreshing?: Promise<void>;
  private pending?: RefreshParts;
  private readonly firstSetup: Promise<void>;
  private firstSetupDone!: () => void;
  private disposed = false;

  constructor(private readonly context: vscode.ExtensionContext, private readonly activatedAt: number) {
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
    context.subscriptions.push(this.log, this.item, this.changed, this);
  }

  private get cfg(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION);
  }

  private get folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  private get env() {
    return { platform: process.platform, home: os.homedir(), env: process.env };
  }

  private get argvFile(): string {
    return argvJsonPath(this.product, this.env);
  }

  private get extensionVersion(): string {
    return (this.context.extension.packageJSON as { version: string }).version;
  }

  private get coordinatorArgs(): string[] {
    return this.cfg.get<string[]>('coordinatorArgs', []);
  }

  private get stateFolder(): string {
    return stateDir(currentPlatform(), stateDirFlag(this.coordinatorArgs));
  }

  start(): void {
    this.log.info(`Browser Coordinator ${this.extensionVersion} in ${vscode.env.appName} ${vscode.version} (${this.product.nameShort}, ${process.platform}-${process.arch}, ui ${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'}${vscode.env.remoteName ? `, remote ${vscode.env.remoteName}` : ''})`);
    this.registerCommands();
    this.context.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SECTION)) {
          this.log.info('settings changed');
          // No setting affects Tier 2; only sidecarPath needs the sidecar found again.
          void this.requestRefresh({ sidecar: e.affectsConfiguration(`${SECTION}.sidecarPath`) });
        }
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.requestRefresh({})),
    );
    const provider = registerProvider({
      log: this.log,
      ready: this.firstSetup,
      definitions: () => this.definitions(),
      env: (): Record<string, string> => (this.native.port ? { [CDP_ENV]: String(this.native.port) } : {}),
      changed: this.changed.event,
      extensionVersion: this.extensionVersion,
    });
    if (provider) this.context.subscriptions.push(provider);
    this.render();
    this.log.info(`activated in ${Date.now() - this.activatedAt} ms; setting up in the background`);
    void this.requestRefresh({ sidecar: true, native: true }).then(async () => {
      this.firstSetupDone();
      if (this.disposed) return;
      this.log.info(`ready in ${Date.now() - this.activatedAt} ms`);
      void this.notifyProblems(false); // not awaited: an error notification waits for its answer
      await this.offerClaudeCode();
    });
  }

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
    if (parts.sidecar) first.push([{ name: 'sidecar', run: () => this.refreshSidecar() }]);
    if (parts.native) {
      first.push([
        { name: 'argv.json', run: () => this.readArgv() },
        { name: "VS Code's CDP port", run: () => this.refreshPort() },
      ]);
    }
    this.problems.update(await runSteps(first, this.log));
    if (this.disposed) return;
    this.problems.update(await runSteps([
      [{ name: 'watching the state folder', run: () => this.watchState() }],
      [{ name: 'Claude Code entries', run: () => this.checkClaudeCode() }],
    ], this.log));
    if (this.disposed) return;
    this.changed.fire();
    this.render();
  }

  private async refreshSidecar(): Promise<void> {
    this.sidecar = undefined;
    this.sidecar = await resolveSidecar({ setting: this.cfg.get<string>('sidecarPath', ''), extensionDir: this.context.extensionPath, log: this.log });
    if (!this.sidecar.version.startsWith(`browser-coordinator ${this.extensionVersion} `)) {
      this.log.warn(`sidecar: ${this.sidecar.path} is not version ${this.extensionVersion} like this extension (${this.sidecar.version}); commands and fields may differ`);
    }
    void this.reRegisterNativeHosts(this.sidecar.path);
  }

  // ---- the everyday browser's native host ----

  /** The native hosts registered with an older sidecar (before an update) are registered again with this one. */
  private async reRegisterNativeHosts(sidecar: string): Promise<void> {
    const rec = this.context.globalState.get<HostRecord>(HOST_KEY);
    for (const browser of staleRegistrations(rec, sidecar)) {
      try {
        const r = await registerNativeHost({ sidecar, browser });
        this.log.info(`native host: registered again after the sidecar moved: ${r.message}`);
        await this.context.globalState.update(HOST_KEY, remember(this.context.globalState.get<HostRecord>(HOST_KEY), sidecar, browser));
      } catch (err) {
        this.log.warn(`native host: ${errorMessage(err)}`);
      }
    }
  }

  /** The command: register the native host for a browser the user picks. */
  private async registerNativeHostCommand(): Promise<void> {
    await this.firstSetup;
    if (!this.sidecar) {
      void vscode.window.showErrorMessage('Browser Coordinator: no working sidecar binary, so the native host cannot be registered (see the log).', 'Show Log')
        .then((pick) => pick && this.log.show());
      return;
    }
    const pick = await vscode.window.showQuickPick(hostBrowsers.map((b) => ({ label: hostBrowserLabels[b], description: b, browser: b })), {
      title: 'Let agents work in your own browser: register the native host for which browser?',
      placeHolder: 'The browser starts this sidecar for the Browser Coordinator extension, and for it alone',
    });
    if (!pick) return;
    try {
      const r = await registerNativeHost({ sidecar: this.sidecar.path, browser: pick.browser });
      this.log.info(`native host: ${r.message}`);
      await this.context.globalState.update(HOST_KEY, remember(this.context.globalState.get<HostRecord>(HOST_KEY), this.sidecar.path, pick.browser));
      void vscode.window.showInformationMessage(`Browser Coordinator: ${r.message}. ${nextSteps(pick.browser)}`);
    } catch (err) {
      this.log.error(`native host: ${errorMessage(err)}`);
      void vscode.window.showErrorMessage(`Browser Coordinator: ${errorMessage(err)}`, 'Show Log').then((p) => p && this.log.show());
    }
  }

  /** argv.json: whether Tier 2 is set up. A broken argv.json fails this step only. */
  private readArgv(): void {
    if (this.support.kind === 'unavailable') {
      this.native = { support: this.support.kind, enabled: false };
      this.log.info(`Tier 2: ${this.support.reason}`);
      return;
    }
    this.native = { ...this.native, enabled: false };
    const status = argvStatus(this.argvFile);
    this.native.enabled = status.kind === 'enabled';
    this.log.info(`Tier 2: ${this.argvFile} ${status.kind === 'enabled' ? `has "${KEY}": "${status.value}"${status.ours ? ' (set by this extension)' : ''}` : status.kind === 'ignored' ? `has "${KEY}": ${JSON.stringify(status.value)}, which VS Code ignores (not a string)` : status.kind === 'missing' ? 'does not exist' : `has no "${KEY}"`}`);
    if (this.support.kind === 'argvIgnored') this.log.info(`Tier 2: ${this.support.reason}. ${this.support.needs}`);
  }

  /** Discovers VS Code's CDP port and publishes it (terminals' env, then the port file). */
  private async refreshPort(): Promise<void> {
    const env = this.context.environmentVariableCollection;
    env.persistent = false; // a port from an earlier session must never reach a new terminal
    env.description = "Browser Coordinator: VS Code's own CDP port (Tier 2)";
    this.native.port = undefined;
    this.native.problem = undefined;
    if (this.support.kind === 'unavailable') {
      env.delete(CDP_ENV);
      return;
    }
    const dir = userDataDir(this.product, this.env, this.context.globalStorageUri.fsPath);
    const d = await discover(dir);
    if (this.disposed) return;
    const file = portFilePath(currentPlatform(), stateDirFlag(this.coordinatorArgs));
    if (d.kind === 'live') {
      this.native.port = d.port;
      env.replace(CDP_ENV, String(d.port));
      this.log.info(`Tier 2: VS Code's port ${d.port} is live (${d.version ?? 'unknown browser'}); ${CDP_ENV} set for terminals and MCP servers`);
      writePortFile(d.port, file); // throws, failing this step only, when the folder is not this user's alone
      this.log.info(`Tier 2: wrote ${file}`);
      return;
    }
    env.delete(CDP_ENV);
    // Only when nothing listens: on a mismatch the port is live, maybe another product's published port.
    if (d.kind === 'stale' && removePortFile(d.port, file)) this.log.info(`Tier 2: removed ${file} (port ${d.port} is gone)`);
    if (this.native.enabled) {
      this.native.problem = this.support.kind === 'argvIgnored'
        ? `${this.support.reason}. ${this.support.needs}`
        : d.kind === 'missing' ? 'Tier 2 is set up in argv.json, but VS Code has not been fully restarted since: quit all its windows and start it again' : d.reason;
    }
    this.log.info(`Tier 2: no live port (${d.kind}: ${d.reason})`);
  }

  /** (Re)creates the state watcher when the folder or the workspace folders changed; it re-arms itself after errors. */
  private watchState(): void {
    const dir = this.stateFolder;
    const key = `${dir}|${this.folders.join('|')}`;
    if (this.watcher && this.watchKey === key) return;
    this.watcher?.dispose();
    this.watchKey = key;
    this.problems.set('state folder', undefined);
    const watcher = new StateWatcher({
      dir,
      workspaces: this.folders,
      log: this.log,
      onChange: (entry) => this.onState(entry),
      onProblem: (problem) => {
        this.problems.set('state folder', problem);
        this.render();
      },
    });
    this.watcher = watcher;
    this.log.info(`state: watching ${dir} for the coordinator of ${this.folders.join(', ') || '(no folder open)'}`);
    watcher.start();
  }

  private onState(entry: Entry | undefined): void {
    if (entry) this.log.info(`state: coordinator pid ${entry.state.pid} on port ${entry.state.proxyPort}: ${entry.state.backend}, ${entry.state.state}${entry.state.browser ? ` (${entry.state.browser.type}${entry.state.browser.headless ? ', headless' : ''})` : ''}`);
    else this.log.info('state: no coordinator runs for this workspace');
    this.render();
  }

  // ---- Claude Code ----

  private choiceKey(folder: string): string {
    return `claudeCode.choice:${folder}`;
  }

  private choiceOf(folder: string): Choice | undefined {
    return this.context.globalState.get<Choice>(this.choiceKey(folder));
  }

  private async setChoice(folder: string, choice: Choice | undefined): Promise<void> {
    await this.context.globalState.update(this.choiceKey(folder), choice);
  }

  private wanted(place: Place) {
    let child: Child | undefined;
    try {
      child = this.childSetting();
    } catch (err) {
      this.log.warn(`Claude Code: ${errorMessage(err)}; the coordinator alone`);
    }
    if (place === 'local' && !this.sidecar) throw new Error('no sidecar found, so there is nothing to name in a local entry');
    return entriesFor(place, { sidecar: this.sidecar?.path ?? '', child });
  }

  /** Inspects each folder's entries in both places, keeps the folder's own choice current, and notes what to offer. */
  private checkClaudeCode(): void {
    const found: ClaudeFolder[] = [];
    const errors: string[] = [];
    for (const folder of this.folders) {
      try {
        found.push(this.checkFolder(folder));
      } catch (err) {
        errors.push(`${folder}: ${errorMessage(err)}`);
      }
    }
    this.claude = found;
    for (const f of found) for (const e of [f.local.error, f.project.error]) if (e) errors.push(e);
    if (errors.length) throw new Error(errors.join('; '));
  }

  /** One folder: both places inspected, the plan made; the folder's own local entries updated when they are behind. */
  private checkFolder(folder: string): ClaudeFolder {
    const judge = { home: os.homedir() };
    const local = inspect(locationOf('local', folder, this.env), this.sidecar ? this.wanted('local') : {}, judge);
    const project = inspect(locationOf('project', folder, this.env), this.wanted('project'), judge);
    const p = plan({
      folder,
      choice: this.choiceOf(folder),
      offer: this.cfg.get<boolean>('claudeCode.offer', true),
      claudeProject: looksLikeClaudeProject(folder),
      local,
      project,
    });
    if (p.kind === 'update' && this.sidecar) {
      const r = applyWanted(local.location, this.wanted('local'));
      this.log.info(`Claude Code: ${r.changed ? 'updated' : 'already current:'} ${local.location.label} (${p.why})`);
      return { folder, plan: { kind: 'nothing', why: 'updated' }, local: inspect(local.location, this.wanted('local'), judge), project };
    }
    if (p.kind !== 'nothing') this.log.info(`Claude Code: ${folder}: ${p.kind}${'why' in p ? ` (${p.why})` : ''}`);
    return { folder, plan: p, local, project };
  }

  private claudeStatus(): StatusInput['claude'] {
    const stale = this.claude.find((c) => c.plan.kind === 'offerRepair');
    return {
      hasEntries: this.claude.some((c) => c.local.ours.length > 0 || c.project.ours.length > 0),
      stale: stale && stale.plan.kind === 'offerRepair' ? stale.plan.why : undefined,
    };
  }

  /** After the first setup: at most one question per folder (a repair, or the entries offered once). */
  private async offerClaudeCode(): Promise<void> {
    for (const c of this.claude) {
      if (this.disposed) return;
      const asked = `claudeCode.asked:${c.folder}`;
      if (c.plan.kind === 'offerRepair') {
        // Asked once per reason: an entry that goes stale again later (the
        // next update) is offered a repair again, even in a folder whose
        // entries were offered before.
        const repairAsked = `claudeCode.repairAsked:${c.folder}`;
        if (this.context.globalState.get(repairAsked) === c.plan.why) continue;
        const place = c.plan.place;
        const repair = 'Repair';
        const remove = 'Remove Them';
        const pick = await vscode.window.showWarningMessage(`Browser Coordinator: ${c.plan.why}.`, repair, remove);
        await this.context.globalState.update(repairAsked, c.plan.why);
        if (pick === repair) await this.repair(c.folder, place);
        if (pick === remove) await this.removeIn(c.folder);
      } else if (c.plan.kind === 'offerAdd') {
        if (this.context.globalState.get(asked)) continue;
        const local = 'Only for Me';
        const team = 'For the Team (.mcp.json)';
        const no = 'Not for This Folder';
        const pick = await vscode.window.showInformationMessage(
          `Browser Coordinator: add the coordinator and its browser MCP to Claude Code in ${path.basename(c.folder)}? "Only for Me" runs this extension's sidecar (Claude Code's local scope, nothing in the repository); "For the Team" writes a portable npx entry into .mcp.json.`,
          local, team, no,
        );
        await this.context.globalState.update(asked, true);
        if (pick === local) await this.addIn(c.folder, 'local');
        if (pick === team) await this.addIn(c.folder, 'project');
        if (pick === no) await this.setChoice(c.folder, 'declined');
      }
    }
  }

  private async addIn(folder: string, place: Place): Promise<boolean> {
    const loc = locationOf(place, folder, this.env);
    try {
      const r = applyWanted(loc, this.wanted(place));
      await this.setChoice(folder, place);
      this.log.info(`Claude Code: ${r.changed ? 'wrote' : 'already up to date:'} ${r.wrote.join(', ')} in ${loc.file}${r.removed.length ? `; removed ${r.removed.join(', ')}` : ''}`);
      const open = 'Open File';
      void vscode.window.showInformationMessage(`Browser Coordinator: ${r.changed ? 'added' : 'already in'} ${loc.label}: ${r.wrote.join(', ')}.${place === 'project' ? ' Teammates need Node (npx) and the browser-coordinator npm package.' : ''}`, open).then((pick) => {
        if (pick === open) void vscode.window.showTextDocument(vscode.Uri.file(loc.file));
      });
      await this.requestRefresh({});
      return true;
    } catch (err) {
      this.log.error(`Claude Code: ${errorMessage(err)}`);
      void vscode.window.showErrorMessage(`Browser Coordinator: cannot write ${loc.label}: ${errorMessage(err)}`);
      return false;
    }
  }

  private async removeIn(folder: string): Promise<void> {
    const removed: string[] = [];
    for (const place of ['local', 'project'] as Place[]) {
      const loc = locationOf(place, folder, this.env);
      try {
        const r = removeServers(loc);
        if (r.removed.length) removed.push(`${r.removed.join(', ')} from ${loc.label}`);
      } catch (err) {
        this.log.error(`Claude Code: ${errorMessage(err)}`);
        void vscode.window.showErrorMessage(`Browser Coordinator: ${errorMessage(err)}`);
      }
    }
    await this.setChoice(folder, 'declined');
    this.log.info(`Claude Code: ${removed.length ? `removed ${removed.join('; ')}` : `no entries in ${folder}`}`);
    void vscode.window.showInformationMessage(`Browser Coordinator: ${removed.length ? `removed ${removed.join('; ')}` : 'no entries to remove'}.`);
    await this.requestRefresh({});
  }

  private async repair(folder: string, place: Place): Promise<void> {
    const loc = locationOf(place, folder, this.env);
    try {
      const r = applyWanted(loc, this.wanted(place));
      if (!this.choiceOf(folder)) await this.setChoice(folder, place);
      this.log.info(`Claude Code: repaired ${loc.file}: ${r.wrote.join(', ')}${r.removed.length ? `; removed ${r.removed.join(', ')}` : ''}`);
      void vscode.window.showInformationMessage(`Browser Coordinator: repaired ${loc.label}.`);
    } catch (err) {
      this.log.error(`Claude Code: ${errorMessage(err)}`);
      void vscode.window.showErrorMessage(`Browser Coordinator: cannot repair ${loc.label}: ${errorMessage(err)}`);
    }
    await this.requestRefresh({});
  }

  // ---- status ----

  private statusInput(): StatusInput {
    const problems = this.problems.list().filter((p) => p.step !== 'sidecar');
    return {
      coordinator: this.watcher?.current?.state,
      native: this.native,
      sidecarError: this.problems.get('sidecar'),
      busy: this.busy,
      problems,
      claude: this.claudeStatus(),
      folders: this.folders.length,
    };
  }

  private render(): void {
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
  private async notifyProblems(always: boolean): Promise<void> {
    const problems = this.problems.list();
    if (problems.length === 0) return;
    const muted = this.context.globalState.get<string[]>(MUTED_KEY, []);
    if (!always && !shouldNotify(problems, muted)) {
      this.log.info(`setup: ${problems.length} problem(s), notification muted (${muted.join(', ')}): see the status bar`);
      return;
    }
    const retry = 'Retry';
    const log = 'Show Log';
    const mute = "Don't Show Again";
    const pick = await vscode.window.showErrorMessage(notificationText(problems), retry, log, mute);
    if (pick === retry) await this.retrySetup();
    if (pick === log) this.log.show();
    if (pick === mute) await this.context.globalState.update(MUTED_KEY, [...new Set([...muted, ...problems.map((p) => p.step)])]);
  }

  private async retrySetup(): Promise<void> {
    this.log.info('setup: retry');
    this.watchKey = undefined; // a new watcher checks the folder now, not at its next retry
    await this.requestRefresh({ sidecar: true, native: true });
    if (this.problems.list().length) await this.notifyProblems(true);
    else void vscode.window.showInformationMessage('Browser Coordinator: setup complete.');
  }

  private childSetting(): Child | undefined {
    return childOf({ kind: this.cfg.get<ChildKind>('childMcp', 'playwright'), command: this.cfg.get<string>('childMcpCommand', '') });
  }

  private definitions() {
    if (!this.sidecar || !this.cfg.get<boolean>('registerMcpServers', true)) return [];
    let child: Child | undefined;
    try {
      child = this.childSetting();
    } catch (err) {
      this.log.warn(`mcp: ${errorMessage(err)}; offering the coordinator alone`);
    }
    return serverDefinitions({
      sidecar: this.sidecar.path,
      workspace: this.folders[0],
      child,
      cdpPort: this.native.port,
      coordinatorArgs: this.coordinatorArgs,
    });
  }

  // ---- commands ----

  private registerCommands(): void {
    const run: Record<ActionId | 'showActions', () => unknown> = {
      showActions: () => this.showActions(),
      launch: () => this.control('launch'),
      stop: () => this.control('stop'),
      restart: () => this.control('restart'),
      toggleHeadless: () => this.toggleHeadless(),
      openPreview: () => this.openPreview(),
      enableNativeCdp: () => this.setNativeCdp(true),
      disableNativeCdp: () => this.setNativeCdp(false),
      addToClaudeCode: () => this.addToClaudeCodeCommand(),
      repairClaudeCode: () => this.repairCommand(),
      removeFromClaudeCode: () => this.removeCommand(),
      retrySetup: () => this.retrySetup(),
      walkthrough: () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false),
      showLog: () => this.log.show(),
    };
    this.context.subscriptions.push(vscode.commands.registerCommand('browserCoordinator.showActions', run.showActions));
    this.context.subscriptions.push(vscode.commands.registerCommand('browserCoordinator.registerNativeHost', () => this.registerNativeHostCommand()));
    for (const [id, command] of Object.entries(commandOf) as [ActionId, string][]) {
      this.context.subscriptions.push(vscode.commands.registerCommand(command, run[id]));
    }
  }

  private async showActions(): Promise<void> {
    const input = this.statusInput();
    const pick = await vscode.window.showQuickPick(actionItems(input), { title: 'Browser Coordinator', placeHolder: statusView(input).text.replace(/\$\([^)]+\)\s*/g, '') });
    if (pick) await vscode.commands.executeCommand(commandOf[pick.id]);
  }

  private async setNativeCdp(enable: boolean): Promise<void> {
    if (this.support.kind === 'unavailable') {
      void vscode.window.showWarningMessage(`Browser Coordinator: ${this.support.reason}.`);
      return;
    }
    if (enable && this.support.kind === 'argvIgnored') {
      void vscode.window.showWarningMessage(`Browser Coordinator: ${this.support.reason}. ${this.support.needs}`);
      return;
    }
    const file = this.argvFile;
    const action = enable ? 'Enable' : 'Disable';
    const detail = enable
      ? `This adds "${KEY}": "0" to ${file}, marked with a comment (the original file is kept as argv.json${BACKUP_SUFFIX}). VS Code then opens its Chrome DevTools Protocol port on 127.0.0.1 at its next start, so agents can drive VS Code's own browser view (Tier 2). Any program of any user on this machine can connect to that port while VS Code runs. A full quit and restart of VS Code is needed; uninstalling the extension removes the key.`
      : `This removes "${KEY}" from ${file}. A full quit and restart of VS Code is needed.`;
    const ok = await vscode.window.showInformationMessage(`${action} Tier 2 (VS Code's debugging port)?`, { modal: true, detail }, action);
    if (ok !== action) return;
    try {
      const result = enable ? enableNativeCdp(file) : disableNativeCdp(file);
      this.log.info(`Tier 2: ${result.message}${result.backup ? ` (original kept in ${result.backup})` : ''}`);
      if (!result.changed) {
        void vscode.window.showInformationMessage(`Browser Coordinator: ${result.message}.`);
      } else {
        const quit = 'Quit VS Code';
        const pick = await vscode.window.showInformationMessage(
          `Tier 2 ${enable ? 'enabled' : 'disabled'}. VS Code runs one process for all its windows: quit it completely (all windows) and start it again for this to take effect.`,
          quit,
        );
        if (pick === quit) void vscode.commands.executeCommand('workbench.action.quit');
      }
    } catch (err) {
      const message = err instanceof ArgvParseError ? err.message : `cannot edit ${file}: ${errorMessage(err)}`;
      this.log.error(`Tier 2: ${message}`);
      const open = 'Open argv.json';
      const pick = await vscode.window.showErrorMessage(`Browser Coordinator: ${message}`, open);
      if (pick === open) {
        const doc = await vscode.workspace.openTextDocument(file);
        const editor = await vscode.window.showTextDocument(doc);
        if (err instanceof ArgvParseError) {
          const pos = new vscode.Position(err.line - 1, err.column - 1);
          editor.selection = new vscode.Selection(pos, pos);
          editor.revealRange(new vscode.Range(pos, pos));
        }
      }
    }
    await this.requestRefresh({ native: true });
  }

  private coordinator(): Entry | undefined {
    const entry = this.watcher?.refresh();
    if (!entry) {
      void vscode.window.showWarningMessage(
        'Browser Coordinator: no coordinator runs for this workspace. Your MCP host starts it: use its browser tools, or start the "Browser Coordinator" server from the MCP server list.',
        'Show Log',
      ).then((pick) => pick && this.log.show());
    }
    return entry;
  }

  private async control(action: 'launch' | 'stop' | 'restart', options: LaunchOptions = {}): Promise<void> {
    const entry = this.coordinator();
    if (!entry) return;
    const client = ControlClient.of(entry.state);
    this.busy = { launch: 'launching', stop: 'stopping', restart: 'restarting' }[action];
    this.render();
    try {
      this.log.info(`control: ${action} ${JSON.stringify(options)} → coordinator pid ${entry.state.pid} on port ${entry.state.proxyPort}`);
      const status = action === 'launch' ? await client.launch(options) : action === 'stop' ? await client.stop() : await client.restart();
      this.log.info(`control: ${action} done: ${status.state}${status.browser ? ` (${status.browser.type}${status.browser.headless ? ', headless' : ''})` : ''}`);
    } catch (err) {
      this.log.error(`control: ${action} failed: ${errorMessage(err)}`);
      void vscode.window.showErrorMessage(`Browser Coordinator: ${action} failed: ${errorMessage(err)}`, 'Show Log').then((pick) => pick && this.log.show());
    } finally {
      this.busy = undefined;
      this.watcher?.refresh();
      this.render();
    }
  }

  private async toggleHeadless(): Promise<void> {
    const entry = this.coordinator();
    if (!entry) return;
    const headless = entry.state.browser?.headless ?? true;
    await this.control('launch', { headless: !headless });
  }

  private async openPreview(): Promise<void> {
    const url = this.watcher?.current?.state.currentUrl;
    if (!url || url.startsWith('about:')) {
      void vscode.window.showInformationMessage('Browser Coordinator: the browser shows no page yet.');
      return;
    }
    try {
      await vscode.commands.executeCommand('simpleBrowser.show', url);
    } catch (err) {
      this.log.warn(`preview: Simple Browser is not available (${errorMessage(err)}); opening ${url} outside VS Code`);
      await vscode.env.openExternal(vscode.Uri.parse(url));
    }
  }

  private async pickFolder(title: string, among: string[] = this.folders): Promise<string | undefined> {
    if (among.length <= 1) return among[0];
    const pick = await vscode.window.showQuickPick(among.map((f) => ({ label: path.basename(f), description: f, folder: f })), { title });
    return pick?.folder;
  }

  private async addToClaudeCodeCommand(): Promise<void> {
    if (this.folders.length === 0) {
      void vscode.window.showWarningMessage('Browser Coordinator: open a folder first; Claude Code\'s entries belong to a project folder.');
      return;
    }
    const folder = await this.pickFolder('Add Browser Coordinator to Claude Code in which folder?');
    if (!folder) return;
    await this.firstSetup;
    const items: (vscode.QuickPickItem & { place: Place })[] = [
      {
        place: 'local',
        label: '$(person) Only for me',
        description: "Claude Code's local scope (~/.claude.json)",
        detail: "Runs this extension's sidecar by its path; nothing goes into the repository. Kept current after updates.",
      },
      {
        place: 'project',
        label: '$(organization) For the team',
        description: `${path.basename(folder)}/.mcp.json`,
        detail: 'A portable entry (npx -y browser-coordinator) teammates can commit: no home folder, no version. Needs Node and the npm package.',
      },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: `Add Browser Coordinator to Claude Code in ${path.basename(folder)}` });
    if (pick) await this.addIn(folder, pick.place);
  }

  private async repairCommand(): Promise<void> {
    const stale = this.claude.filter((c) => c.plan.kind === 'offerRepair');
    if (stale.length === 0) {
      void vscode.window.showInformationMessage('Browser Coordinator: no Claude Code entry needs a repair.');
      return;
    }
    for (const c of stale) if (c.plan.kind === 'offerRepair') await this.repair(c.folder, c.plan.place);
  }

  private async removeCommand(): Promise<void> {
    const withEntries = this.claude.filter((c) => c.local.ours.length || c.project.ours.length).map((c) => c.folder);
    if (withEntries.length === 0) {
      void vscode.window.showInformationMessage('Browser Coordinator: no open folder has Claude Code entries of the extension.');
      return;
    }
    const folder = await this.pickFolder('Remove Browser Coordinator\'s Claude Code entries of which folder?', withEntries);
    if (folder) await this.removeIn(folder);
  }

  dispose(): void {
    this.disposed = true;
    this.watcher?.dispose();
    this.watcher = undefined;
    this.firstSetupDone?.();
  }
}

export function activate(context: vscode.ExtensionContext): void {
  new Controller(context, Date.now()).start();
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
