// Wires the logic modules to VS Code. Activation only sets up (a status bar
// item, commands, then the slower work in the background: finding the
// sidecar, discovering the CDP port, watching the state file, registering
// MCP servers); nothing here blocks VS Code's start. Two lifetimes: what
// lives as long as the extension (context.subscriptions) and what depends on
// the resolved sidecar and settings (refreshed, coalesced, on change).
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ArgvParseError, argvStatus, disableNativeCdp, enableNativeCdp, KEY } from './argv';
import { discover, removePortFile, writePortFile, portFilePath } from './cdpPort';
import { ControlClient, LaunchOptions } from './control';
import { errorMessage } from './log';
import { registerProvider } from './mcpProvider';
import { argvJsonPath, Product, readProduct, userDataDir } from './product';
import { Child, ChildKind, childOf, configCommand, hasCoordinatorEntry, MCP_JSON, serverDefinitions, writeMcpJson } from './registration';
import { resolveSidecar, Sidecar } from './sidecar';
import { Entry, stateDir, StateWatcher } from './stateFile';
import { ActionId, actionItems, NativeCdp, StatusInput, statusView } from './statusBar';

const SECTION = 'browserCoordinator';
const CDP_ENV = 'VSCODE_CDP_PORT';

/** What a refresh redoes besides re-watching the state file and re-offering the MCP servers. */
interface RefreshParts {
  /** Find the sidecar again (spawns `--version` per candidate). */
  sidecar?: boolean;
  /** Read argv.json and discover VS Code's CDP port again. */
  native?: boolean;
}

class Controller implements vscode.Disposable {
  private readonly log: vscode.LogOutputChannel;
  private readonly item: vscode.StatusBarItem;
  private readonly product: Product;
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly nativeSupported: boolean;
  private sidecar?: Sidecar;
  private sidecarError?: string;
  private native: NativeCdp = { enabled: false };
  private watcher?: StateWatcher;
  private watchKey?: string;
  private busy?: string;
  private refreshing?: Promise<void>;
  private pending?: RefreshParts;
  private disposed = false;

  constructor(private readonly context: vscode.ExtensionContext, private readonly activatedAt: number) {
    this.log = vscode.window.createOutputChannel('Browser Coordinator', { log: true });
    this.item = vscode.window.createStatusBarItem('browserCoordinator.status', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Browser Coordinator';
    this.item.command = 'browserCoordinator.showActions';
    this.item.text = '$(loading~spin) browser';
    this.item.show();
    this.product = readProduct(vscode.env.appRoot, vscode.env.appName);
    // argv.json and DevToolsActivePort belong to a desktop VS Code on this
    // machine; in a browser (code-server, vscode.dev) or a remote window the
    // extension host runs elsewhere.
    this.nativeSupported = vscode.env.uiKind === vscode.UIKind.Desktop && !vscode.env.remoteName;
    context.subscriptions.push(this.log, this.item, this.changed, this);
  }

  private get cfg(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION);
  }

  private get folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  private get argvFile(): string {
    return argvJsonPath(this.product, { platform: process.platform, home: os.homedir(), env: process.env });
  }

  start(): void {
    const ext = this.context.extension.packageJSON as { version: string };
    this.log.info(`Browser Coordinator ${ext.version} in ${vscode.env.appName} ${vscode.version} (${this.product.nameShort}, ${process.platform}-${process.arch}, ui ${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'}${vscode.env.remoteName ? `, remote ${vscode.env.remoteName}` : ''})`);
    this.registerCommands();
    this.context.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SECTION)) {
          this.log.info('settings changed');
          // No setting affects native CDP; only sidecarPath needs the sidecar found again.
          void this.requestRefresh({ sidecar: e.affectsConfiguration(`${SECTION}.sidecarPath`) });
        }
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.requestRefresh({})),
    );
    const provider = registerProvider(this.log, () => this.definitions(), this.changed.event, ext.version);
    if (provider) this.context.subscriptions.push(provider);
    this.render();
    this.log.info(`activated in ${Date.now() - this.activatedAt} ms; setting up in the background`);
    void this.requestRefresh({ sidecar: true, native: true }).then(() => {
      if (this.disposed) return;
      this.log.info(`ready in ${Date.now() - this.activatedAt} ms`);
      this.offerMcpJson().catch((err) => this.log.error(`mcp.json: ${errorMessage(err)}`));
    });
  }

  /**
   * Re-runs setup: the given parts, then the state watcher and the MCP
   * servers. Calls during a run coalesce into one more run with all their
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
        try {
          await this.refresh(next);
        } catch (err) {
          this.log.error(`setup failed: ${errorMessage(err)}`);
        }
      }
      this.refreshing = undefined;
    })();
    return this.refreshing;
  }

  private async refresh(parts: RefreshParts): Promise<void> {
    await Promise.all([parts.native && this.refreshNative(), parts.sidecar && this.refreshSidecar()]);
    if (this.disposed) return;
    this.watchState();
    this.changed.fire();
    this.render();
  }

  private async refreshSidecar(): Promise<void> {
    try {
      this.sidecar = await resolveSidecar({ setting: this.cfg.get<string>('sidecarPath', ''), extensionDir: this.context.extensionPath, log: this.log });
      this.sidecarError = undefined;
      const ours = (this.context.extension.packageJSON as { version: string }).version;
      if (!this.sidecar.version.startsWith(`browser-coordinator ${ours} `)) {
        this.log.warn(`sidecar: ${this.sidecar.path} is not version ${ours} like this extension (${this.sidecar.version}); commands and fields may differ`);
      }
    } catch (err) {
      this.sidecar = undefined;
      this.sidecarError = errorMessage(err);
      this.log.error(`sidecar: ${this.sidecarError}`);
      if (this.disposed) return;
      void vscode.window.showErrorMessage(`Browser Coordinator: ${this.sidecarError}`, 'Open Settings', 'Show Log').then((pick) => {
        if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.sidecarPath`);
        if (pick === 'Show Log') this.log.show();
      });
    }
  }

  /** Reads argv.json, discovers VS Code's CDP port, publishes it (port file, terminals' env). */
  private async refreshNative(): Promise<void> {
    const env = this.context.environmentVariableCollection;
    env.persistent = false; // a port from an earlier session must never reach a new terminal
    env.description = "Browser Coordinator: VS Code's own CDP port (native CDP)";
    if (!this.nativeSupported) {
      this.native = { enabled: false };
      env.delete(CDP_ENV);
      this.log.info('native CDP: not available here (it needs desktop VS Code on this machine); the coordinator launches its own browser');
      return;
    }
    const native: NativeCdp = { enabled: false };
    try {
      const status = argvStatus(this.argvFile);
      native.enabled = status.kind === 'enabled';
      this.log.info(`native CDP: ${this.argvFile} ${status.kind === 'enabled' ? `has "${KEY}": "${status.value}"` : status.kind === 'ignored' ? `has "${KEY}": ${JSON.stringify(status.value)}, which VS Code ignores (not a string)` : status.kind === 'missing' ? 'does not exist' : `has no "${KEY}"`}`);
    } catch (err) {
      native.problem = errorMessage(err);
      this.log.warn(`native CDP: ${native.problem}`);
    }
    const dir = userDataDir(this.product, { platform: process.platform, home: os.homedir(), env: process.env }, this.context.globalStorageUri.fsPath);
    const d = await discover(dir);
    if (this.disposed) return;
    if (d.kind === 'live') {
      native.port = d.port;
      writePortFile(d.port);
      env.replace(CDP_ENV, String(d.port));
      this.log.info(`native CDP: port ${d.port} is live (${d.version ?? 'unknown browser'}); wrote ${portFilePath()} and ${CDP_ENV} for terminals and MCP servers`);
    } else {
      env.delete(CDP_ENV);
      // Only when nothing listens: on a mismatch the port is live, maybe another product's published port.
      if (d.kind === 'stale') removePortFile(d.port);
      if (native.enabled && !native.problem) {
        native.problem = d.kind === 'missing' ? 'native CDP is enabled in argv.json, but VS Code has not been fully restarted since: quit all windows and start it again' : d.reason;
      }
      this.log.info(`native CDP: no live port (${d.kind}: ${d.reason})`);
    }
    this.native = native;
  }

  private watchState(): void {
    const dir = stateDir();
    const key = `${dir}|${this.folders.join('|')}`;
    if (this.watcher && this.watchKey === key) return;
    this.watcher?.dispose();
    this.watchKey = key;
    const watcher = new StateWatcher({
      dir,
      workspaces: this.folders,
      log: this.log,
      onChange: (entry) => this.onState(entry),
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

  private statusInput(): StatusInput {
    return { coordinator: this.watcher?.current?.state, native: this.native, sidecarError: this.sidecarError, busy: this.busy };
  }

  private render(): void {
    const view = statusView(this.statusInput());
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.severity === 'normal' ? undefined : new vscode.ThemeColor(`statusBarItem.${view.severity === 'error' ? 'error' : 'warning'}Background`);
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
      coordinatorArgs: this.cfg.get<string[]>('coordinatorArgs', []),
    });
  }

  // ---- commands ----

  private registerCommands(): void {
    const commands: Record<string, (...args: unknown[]) => unknown> = {
      'browserCoordinator.showActions': () => this.showActions(),
      'browserCoordinator.enableNativeCdp': () => this.setNativeCdp(true),
      'browserCoordinator.disableNativeCdp': () => this.setNativeCdp(false),
      'browserCoordinator.launchBrowser': () => this.control('launch'),
      'browserCoordinator.stopBrowser': () => this.control('stop'),
      'browserCoordinator.restartBrowser': () => this.control('restart'),
      'browserCoordinator.toggleHeadless': () => this.toggleHeadless(),
      'browserCoordinator.openPreview': () => this.openPreview(),
      'browserCoordinator.writeMcpJson': () => this.writeMcpJsonCommand(),
      'browserCoordinator.showLog': () => this.log.show(),
    };
    for (const [id, fn] of Object.entries(commands)) this.context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  }

  private async showActions(): Promise<void> {
    const items = actionItems(this.statusInput());
    const view = statusView(this.statusInput());
    const pick = await vscode.window.showQuickPick(items, { title: 'Browser Coordinator', placeHolder: view.text.replace(/\$\([^)]+\)\s*/g, '') });
    if (!pick) return;
    const run: Record<ActionId, () => unknown> = {
      launch: () => this.control('launch'),
      stop: () => this.control('stop'),
      restart: () => this.control('restart'),
      toggleHeadless: () => this.toggleHeadless(),
      openPreview: () => this.openPreview(),
      enableNativeCdp: () => this.setNativeCdp(true),
      disableNativeCdp: () => this.setNativeCdp(false),
      writeMcpJson: () => this.writeMcpJsonCommand(),
      showLog: () => this.log.show(),
    };
    await run[pick.id]();
  }

  private async setNativeCdp(enable: boolean): Promise<void> {
    if (!this.nativeSupported) {
      void vscode.window.showWarningMessage(`Native CDP needs desktop VS Code running on this machine; ${vscode.env.appName} here runs ${vscode.env.remoteName ? `in a remote (${vscode.env.remoteName})` : 'in a browser'}, so the coordinator launches its own browser.`);
      return;
    }
    const file = this.argvFile;
    const action = enable ? 'Enable' : 'Disable';
    const detail = enable
      ? `This adds "${KEY}": "0" to ${file} (a backup is kept beside it). VS Code then opens a Chrome DevTools Protocol port on 127.0.0.1 at its next start, so agents can drive VS Code's own browser view. Any program on this machine can use that port while VS Code runs. A full quit and restart of VS Code is needed.`
      : `This removes "${KEY}" from ${file} (a backup is kept beside it). A full quit and restart of VS Code is needed.`;
    const ok = await vscode.window.showInformationMessage(`${action} native CDP?`, { modal: true, detail }, action);
    if (ok !== action) return;
    try {
      const result = enable ? enableNativeCdp(file) : disableNativeCdp(file);
      this.log.info(`native CDP: ${result.message}${result.backup ? ` (backup ${result.backup})` : ''}`);
      if (!result.changed) {
        void vscode.window.showInformationMessage(`Browser Coordinator: ${result.message}.`);
      } else {
        const quit = 'Quit VS Code';
        const pick = await vscode.window.showInformationMessage(
          `Native CDP ${enable ? 'enabled' : 'disabled'}. VS Code runs one process for all its windows: quit it completely (all windows) and start it again for this to take effect.`,
          quit,
        );
        if (pick === quit) void vscode.commands.executeCommand('workbench.action.quit');
      }
    } catch (err) {
      const message = err instanceof ArgvParseError ? err.message : `cannot edit ${file}: ${errorMessage(err)}`;
      this.log.error(`native CDP: ${message}`);
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

  // ---- .mcp.json for Claude Code ----

  private async pickFolder(): Promise<string | undefined> {
    const folders = this.folders;
    if (folders.length <= 1) return folders[0];
    return vscode.window.showQuickPick(folders, { title: `Write ${MCP_JSON} in which folder?` });
  }

  private async writeMcpJsonCommand(): Promise<void> {
    const folder = await this.pickFolder();
    if (!folder) {
      void vscode.window.showWarningMessage(`Browser Coordinator: open a folder first; ${MCP_JSON} belongs in a project folder.`);
      return;
    }
    await this.writeMcpJsonIn(folder, false);
  }

  private async writeMcpJsonIn(folder: string, quiet: boolean): Promise<boolean> {
    if (!this.sidecar) await this.requestRefresh({ sidecar: true });
    if (this.disposed) return false;
    const sidecar = this.sidecar;
    if (!sidecar) {
      void vscode.window.showErrorMessage(`Browser Coordinator: cannot write ${MCP_JSON}: ${this.sidecarError ?? 'no sidecar'}`);
      return false;
    }
    try {
      const result = await writeMcpJson(sidecar.path, { workspace: folder, child: this.childSetting(), sidecarCommand: configCommand(sidecar) });
      this.log.info(`mcp.json: ${result.changed ? 'wrote' : 'already up to date:'} ${result.file} (through \`${path.basename(sidecar.path)} install --host claude-code\`)`);
      if (!quiet && !this.disposed) {
        const open = `Open ${MCP_JSON}`;
        const pick = await vscode.window.showInformationMessage(`Browser Coordinator: ${result.changed ? 'wrote' : 'up to date:'} ${result.file}`, open);
        if (pick === open) await vscode.window.showTextDocument(vscode.Uri.file(result.file));
      }
      return true;
    } catch (err) {
      this.log.error(`mcp.json: ${errorMessage(err)}`);
      const open = `Open ${MCP_JSON}`;
      const file = path.join(folder, MCP_JSON);
      void vscode.window.showErrorMessage(`Browser Coordinator: ${errorMessage(err)}`, ...(fs.existsSync(file) ? [open] : [])).then((pick) => {
        if (pick === open) void vscode.window.showTextDocument(vscode.Uri.file(file));
      });
      return false;
    }
  }

  /**
   * browserCoordinator.claudeCode.writeMcpJson: "always" keeps the entries up
   * to date at every start (the bundled binary's path changes with each
   * update); "ask" offers it once per folder that looks like a Claude Code
   * project; "never" does nothing.
   */
  private async offerMcpJson(): Promise<void> {
    const mode = this.cfg.get<string>('claudeCode.writeMcpJson', 'ask');
    if (mode === 'never' || !this.sidecar) return;
    for (const folder of this.folders) {
      if (this.disposed) return;
      if (mode === 'always') {
        await this.writeMcpJsonIn(folder, true);
        continue;
      }
      const claudeProject = [MCP_JSON, '.claude', 'CLAUDE.md'].some((f) => fs.existsSync(path.join(folder, f)));
      const declinedKey = `declinedMcpJson:${folder}`;
      if (!claudeProject || hasCoordinatorEntry(folder) || this.context.workspaceState.get(declinedKey)) continue;
      const write = `Write ${MCP_JSON}`;
      const always = 'Always';
      const no = 'Not for this folder';
      const pick = await vscode.window.showInformationMessage(
        `Browser Coordinator: add the coordinator and its browser MCP to ${path.join(path.basename(folder), MCP_JSON)} for Claude Code?`,
        write,
        always,
        no,
      );
      if (this.disposed) return;
      if (pick === always) {
        try {
          await this.cfg.update('claudeCode.writeMcpJson', 'always', vscode.ConfigurationTarget.Global);
        } catch (err) {
          // e.g. the user's settings.json does not parse; this folder is still written below
          this.log.error(`settings: cannot set ${SECTION}.claudeCode.writeMcpJson to "always": ${errorMessage(err)}`);
          void vscode.window.showErrorMessage(`Browser Coordinator: cannot save the setting "always": ${errorMessage(err)}`);
        }
      }
      if (pick === write || pick === always) await this.writeMcpJsonIn(folder, false);
      if (pick === no) await this.context.workspaceState.update(declinedKey, true);
    }
  }

  dispose(): void {
    this.disposed = true;
    this.watcher?.dispose();
    this.watcher = undefined;
  }
}

export function activate(context: vscode.ExtensionContext): void {
  new Controller(context, Date.now()).start();
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
