// Setup's Tier 2 steps: whether argv.json asks VS Code for its debugging
// port, and the live port published (terminals' env, the port file). This
// flow owns what the extension knows of Tier 2 here: whether this VS Code
// can have it at all (support), argv.json's key (enabled), the live port,
// and why a set-up Tier 2 does not work (problem).
import * as vscode from 'vscode';
import { argvStatus, KEY } from '../argv';
import { discover, portFilePath, removePortFile, writePortFile } from '../cdpPort';
import type { Ctx } from '../ctx';
import { argvJsonPath, nativeCdpSupport, NativeSupport, userDataDir } from '../product';
import type { Step } from '../setup';
import { currentPlatform, stateDirFlag } from '../stateFile';
import type { NativeCdp } from '../statusBar';

/** The variable that hands VS Code's CDP port to terminals and MCP servers. */
export const CDP_ENV = 'VSCODE_CDP_PORT';

export class Tier2 {
  readonly support: NativeSupport;
  readonly steps: Step[] = [
    { name: 'argv.json', run: () => this.readArgv() },
    { name: "VS Code's CDP port", run: () => this.refreshPort() },
  ];
  private state: NativeCdp;

  constructor(private readonly ctx: Ctx) {
    this.support = nativeCdpSupport({
      ui: vscode.env.uiKind === vscode.UIKind.Desktop ? 'desktop' : 'web',
      remoteName: vscode.env.remoteName,
      version: vscode.version,
      appName: vscode.env.appName,
      product: ctx.product,
    });
    this.state = { support: this.support.kind, enabled: false };
  }

  get native(): Readonly<NativeCdp> {
    return this.state;
  }

  /** This product's argv.json. */
  get argvFile(): string {
    return argvJsonPath(this.ctx.product, this.ctx.config.env);
  }

  /** The environment an MCP server gets when it starts now. */
  serverEnv(): Record<string, string> {
    return this.state.port ? { [CDP_ENV]: String(this.state.port) } : {};
  }

  /** argv.json: whether Tier 2 is set up. A broken argv.json fails this step only. */
  private readArgv(): void {
    const { ctx, support } = this;
    if (support.kind === 'unavailable') {
      this.state = { support: support.kind, enabled: false };
      ctx.log.info(`Tier 2: ${support.reason}`);
      return;
    }
    this.state = { ...this.state, enabled: false };
    const status = argvStatus(this.argvFile);
    this.state.enabled = status.kind === 'enabled';
    ctx.log.info(`Tier 2: ${this.argvFile} ${status.kind === 'enabled' ? `has "${KEY}": "${status.value}"${status.ours ? ' (set by this extension)' : ''}` : status.kind === 'ignored' ? `has "${KEY}": ${JSON.stringify(status.value)}, which VS Code ignores (not a string)` : status.kind === 'missing' ? 'does not exist' : `has no "${KEY}"`}`);
    if (support.kind === 'argvIgnored') ctx.log.info(`Tier 2: ${support.reason}. ${support.needs}`);
  }

  /** Discovers VS Code's CDP port and publishes it (terminals' env, then the port file). */
  private async refreshPort(): Promise<void> {
    const { ctx, support } = this;
    const env = ctx.context.environmentVariableCollection;
    env.persistent = false; // a port from an earlier session must never reach a new terminal
    env.description = "Browser Coordinator: VS Code's own CDP port (Tier 2)";
    this.state.port = undefined;
    this.state.problem = undefined;
    if (support.kind === 'unavailable') {
      env.delete(CDP_ENV);
      return;
    }
    const dir = userDataDir(ctx.product, ctx.config.env, ctx.context.globalStorageUri.fsPath);
    const d = await discover(dir);
    if (ctx.disposed) return;
    const file = portFilePath(currentPlatform(), stateDirFlag(ctx.config.coordinatorArgs));
    if (d.kind === 'live') {
      this.state.port = d.port;
      env.replace(CDP_ENV, String(d.port));
      ctx.log.info(`Tier 2: VS Code's port ${d.port} is live (${d.version ?? 'unknown browser'}); ${CDP_ENV} set for terminals and MCP servers`);
      writePortFile(d.port, file); // throws, failing this step only, when the folder is not this user's alone
      ctx.log.info(`Tier 2: wrote ${file}`);
      return;
    }
    env.delete(CDP_ENV);
    // Only when nothing listens: on a mismatch the port is live, maybe another product's published port.
    if (d.kind === 'stale' && removePortFile(d.port, file)) ctx.log.info(`Tier 2: removed ${file} (port ${d.port} is gone)`);
    if (this.state.enabled) {
      this.state.problem = support.kind === 'argvIgnored'
        ? `${support.reason}. ${support.needs}`
        : d.kind === 'missing' ? 'Tier 2 is set up in argv.json, but VS Code has not been fully restarted since: quit all its windows and start it again' : d.reason;
    }
    ctx.log.info(`Tier 2: no live port (${d.kind}: ${d.reason})`);
  }
}
