// What the extension reads of its settings and its surroundings, read fresh
// each time (rust-analyzer's config.ts): the settings of package.json's
// contributes.configuration, the workspace's local folders, the environment.
// Nothing here is cached, so there is nothing to keep current.
import * as vscode from 'vscode';
import * as os from 'node:os';
import { Child, ChildKind, childOf } from './registration';
import { currentPlatform, stateDir, stateDirFlag } from './stateFile';

export const SECTION = 'browserCoordinator';

export class Config {
  constructor(private readonly context: vscode.ExtensionContext) {}

  /** The settings (browserCoordinator.*). */
  get settings(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION);
  }

  /** The workspace's folders on this machine's file system. */
  get folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  get env() {
    return { platform: process.platform, home: os.homedir(), env: process.env };
  }

  get extensionVersion(): string {
    return (this.context.extension.packageJSON as { version: string }).version;
  }

  get coordinatorArgs(): string[] {
    return this.settings.get<string[]>('coordinatorArgs', []);
  }

  /** The coordinators' state folder, as the sidecar computes it for these arguments. */
  get stateFolder(): string {
    return stateDir(currentPlatform(), stateDirFlag(this.coordinatorArgs));
  }

  /** The child MCP of the settings (undefined for none); throws on a custom setting without a usable command. */
  child(): Child | undefined {
    return childOf({ kind: this.settings.get<ChildKind>('childMcp', 'playwright'), command: this.settings.get<string>('childMcpCommand', '') });
  }
}
