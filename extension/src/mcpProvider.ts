// Adapter: offers the server definitions of registration.ts to VS Code's MCP
// API (vscode.lm.registerMcpServerDefinitionProvider, VS Code 1.101, the
// oldest VS Code the extension supports: package.json engines).
//
// VS Code asks for the definitions early, maybe before the extension has
// found its sidecar: the first answer waits for that setup (ready) instead
// of saying "no servers", which VS Code would cache until the next change.
// A definition's version covers command, arguments and folder only; VS
// Code's CDP port is in the environment, filled in again when a server
// starts (resolveMcpServerDefinition), so a new port at each VS Code start
// is not a "tool change".
import * as vscode from 'vscode';
import type { Log } from './log';
import { definitionsWhenReady, definitionVersion, ServerDefinition } from './registration';

/** The id declared in package.json contributes.mcpServerDefinitionProviders. */
export const PROVIDER_ID = 'browserCoordinator.servers';

export interface ProviderOptions {
  log: Log;
  /** Resolves once the first setup is done (whether or not it found the sidecar). */
  ready: Promise<unknown>;
  definitions: () => ServerDefinition[];
  /** The environment a server gets when it starts now (VS Code's CDP port). */
  env: () => Record<string, string>;
  changed: vscode.Event<void>;
  extensionVersion: string;
}

export function registerProvider(o: ProviderOptions): vscode.Disposable | undefined {
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') {
    o.log.warn(`mcp: ${vscode.env.appName} ${vscode.version} has no MCP server API (vscode.lm.registerMcpServerDefinitionProvider): the servers are not offered to its agent`);
    return undefined;
  }
  const disposable = vscode.lm.registerMcpServerDefinitionProvider(PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: o.changed,
    provideMcpServerDefinitions: async () => {
      const defs = await definitionsWhenReady(o.ready, o.definitions);
      o.log.debug(`mcp: providing ${defs.map((d) => d.name).join(', ') || 'no servers'}`);
      return defs.map((d) => {
        const def = new vscode.McpStdioServerDefinition(d.label, d.command, d.args, d.env, definitionVersion(o.extensionVersion, d));
        if (d.cwd) def.cwd = vscode.Uri.file(d.cwd);
        return def;
      });
    },
    resolveMcpServerDefinition: (server: vscode.McpServerDefinition) => {
      if (server instanceof vscode.McpStdioServerDefinition) {
        // null removes a port the definition (or the extension host) had and that is gone now
        server.env = { ...server.env, VSCODE_CDP_PORT: null, ...o.env() };
      }
      return server;
    },
  });
  o.log.info(`mcp: registered the provider ${PROVIDER_ID} with VS Code's MCP API`);
  return disposable;
}
