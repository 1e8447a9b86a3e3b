// Adapter: offers the server definitions of registration.ts to VS Code's MCP
// API. The API (vscode.lm.registerMcpServerDefinitionProvider and
// McpStdioServerDefinition) exists from VS Code 1.101; the extension supports
// older hosts (Cursor and other forks lag behind), so it is feature-detected
// and typed here, not taken from @types/vscode.
import * as vscode from 'vscode';
import type { Log } from './log';
import type { ServerDefinition } from './registration';

/** The id declared in package.json contributes.mcpServerDefinitionProviders. */
export const PROVIDER_ID = 'browserCoordinator.servers';

interface McpStdioServerDefinition {
  cwd?: vscode.Uri;
}
type McpStdioServerDefinitionCtor = new (
  label: string,
  command: string,
  args?: string[],
  env?: Record<string, string | number | null>,
  version?: string,
) => McpStdioServerDefinition;
interface McpProvider {
  onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition[]>;
}
type Register = (id: string, provider: McpProvider) => vscode.Disposable;

/** Whether this host has the MCP API. */
export function mcpApi(): { register: Register; Definition: McpStdioServerDefinitionCtor } | undefined {
  const register = (vscode.lm as unknown as { registerMcpServerDefinitionProvider?: Register } | undefined)?.registerMcpServerDefinitionProvider;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionCtor }).McpStdioServerDefinition;
  return typeof register === 'function' && typeof Definition === 'function' ? { register: register.bind(vscode.lm), Definition } : undefined;
}

/**
 * Registers the provider; definitions() is asked each time VS Code wants the
 * list, and changed fires when it would answer differently (sidecar found,
 * CDP port discovered, settings changed). Returns undefined, after saying so
 * in the log, when the host has no MCP API.
 */
export function registerProvider(
  log: Log,
  definitions: () => ServerDefinition[],
  changed: vscode.Event<void>,
  version: string,
): vscode.Disposable | undefined {
  const api = mcpApi();
  if (!api) {
    log.warn(`mcp: ${vscode.env.appName} ${vscode.version} has no MCP server API (vscode.lm.registerMcpServerDefinitionProvider, VS Code 1.101+): the servers are not registered; use "Write .mcp.json" or the README's .vscode/mcp.json instead`);
    return undefined;
  }
  const disposable = api.register(PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: changed,
    provideMcpServerDefinitions: () => {
      const defs = definitions();
      log.debug(`mcp: providing ${defs.map((d) => d.name).join(', ') || 'no servers'}`);
      return defs.map((d) => {
        const def = new api.Definition(d.label, d.command, d.args, d.env, `${version}${d.env.VSCODE_CDP_PORT ? `+cdp${d.env.VSCODE_CDP_PORT}` : ''}`);
        if (d.cwd) def.cwd = vscode.Uri.file(d.cwd);
        return def;
      });
    },
  });
  log.info(`mcp: registered the provider ${PROVIDER_ID} with VS Code's MCP API`);
  return disposable;
}
