// MCP registration, as data: the child MCP the settings name, and the two
// MCP servers the extension offers to VS Code's MCP API (the coordinator and
// the child behind `wrap`). Claude Code's entries are claudeCode.ts's.
import * as crypto from 'node:crypto';
import * as path from 'node:path';

export type ChildKind = 'playwright' | 'chrome-devtools' | 'none' | 'custom';
export const childKinds: readonly ChildKind[] = ['playwright', 'chrome-devtools', 'none', 'custom'];

/** The child MCPs the extension knows, with the entry names `install` gives them. */
const knownChildren: Record<'playwright' | 'chrome-devtools', { name: string; label: string; argv: string[] }> = {
  playwright: {
    name: 'playwright',
    label: 'Playwright MCP',
    argv: ['npx', '-y', '@playwright/mcp@latest', '--cdp-endpoint', '{cdp_endpoint}'],
  },
  'chrome-devtools': {
    name: 'chrome-devtools',
    label: 'Chrome DevTools MCP',
    argv: ['npx', '-y', 'chrome-devtools-mcp@latest', '--browserUrl', '{cdp_endpoint}'],
  },
};

/** Splits a command line like a POSIX shell does for words: spaces separate, quotes group, backslash escapes. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in ${JSON.stringify(line)}`);
  if (inWord) words.push(word);
  return words;
}

export interface ChildSetting {
  kind: ChildKind;
  /** The custom command line (kind "custom"), with {cdp_endpoint}, {cdp_port} or {ws_endpoint} in it. */
  command?: string;
}

export interface Child {
  /** The entry name in MCP configs: playwright, chrome-devtools or browser. */
  name: string;
  label: string;
  argv: string[];
  /** What `install --child` takes: playwright, chrome-devtools, or the command line. */
  installSpec: string;
}

/** The child MCP of the setting; undefined for "none". Throws on a custom setting without a usable command. */
export function childOf(setting: ChildSetting): Child | undefined {
  if (setting.kind === 'none') return undefined;
  if (setting.kind === 'custom') {
    const line = setting.command?.trim() ?? '';
    if (!line) throw new Error('browserCoordinator.childMcp is "custom" but browserCoordinator.childMcpCommand is empty: set the command, e.g. npx -y my-mcp --cdp-endpoint {cdp_endpoint}');
    const argv = splitCommandLine(line);
    if (!argv.some((a) => /\{(cdp_endpoint|cdp_port|ws_endpoint)\}/.test(a))) {
      throw new Error(`browserCoordinator.childMcpCommand ${JSON.stringify(line)} has none of {cdp_endpoint}, {cdp_port}, {ws_endpoint}: the child would not reach the coordinator's browser`);
    }
    return { name: 'browser', label: `Browser MCP (${path.basename(argv[0])})`, argv, installSpec: line };
  }
  const known = knownChildren[setting.kind];
  if (!known) throw new Error(`unknown browserCoordinator.childMcp ${JSON.stringify(setting.kind)}; use one of ${childKinds.join(', ')}`);
  return { ...known, argv: [...known.argv], installSpec: setting.kind };
}

export interface ServerDefinition {
  /** Stable id-like name, also the name in MCP configs. */
  name: string;
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface DefinitionsInput {
  sidecar: string;
  /** The workspace folder: both servers start there, which is how `wrap` finds its coordinator. */
  workspace?: string;
  child?: Child;
  /** VS Code's live CDP port (Tier 2), when known. */
  cdpPort?: number;
  /** Extra flags for the coordinator (browserCoordinator.coordinatorArgs). */
  coordinatorArgs?: string[];
}

/** The MCP servers to offer: the coordinator, then the child behind wrap. */
export function serverDefinitions(i: DefinitionsInput): ServerDefinition[] {
  const env: Record<string, string> = {};
  if (i.cdpPort) env.VSCODE_CDP_PORT = String(i.cdpPort);
  const defs: ServerDefinition[] = [
    { name: 'browser-coordinator', label: 'Browser Coordinator', command: i.sidecar, args: [...(i.coordinatorArgs ?? [])], env: { ...env }, cwd: i.workspace },
  ];
  if (i.child) {
    defs.push({ name: i.child.name, label: `${i.child.label} (via Browser Coordinator)`, command: i.sidecar, args: ['wrap', '--', ...i.child.argv], env: { ...env }, cwd: i.workspace });
  }
  return defs;
}

/**
 * The definition's version for VS Code's MCP API. VS Code compares it to
 * decide whether a server changed (and its tools need asking again), so it
 * covers what starts the server — command, arguments, folder — and not the
 * environment: VS Code's CDP port changes at every VS Code start and travels
 * in the environment only (the coordinator also follows the port file live).
 */
export function definitionVersion(extensionVersion: string, d: ServerDefinition): string {
  const hash = crypto.createHash('sha256').update(JSON.stringify([d.command, d.args, d.cwd ?? ''])).digest('hex').slice(0, 12);
  return `${extensionVersion}+${hash}`;
}

/**
 * The definitions for VS Code's first ask and every later one: once the
 * first setup is done (ready), never before. An early "no servers" would
 * stay in VS Code's cache until the next change.
 */
export async function definitionsWhenReady(ready: Promise<unknown>, definitions: () => ServerDefinition[]): Promise<ServerDefinition[]> {
  await ready;
  return definitions();
}
