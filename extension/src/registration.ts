// MCP registration, as data: the two MCP servers the extension offers to
// VS Code's MCP API (the coordinator and a child MCP behind `wrap`), and the
// sidecar's `install` command line that writes them into a workspace's
// .mcp.json for Claude Code. The JSON editing itself lives once, in the
// sidecar (`browser-coordinator install`, sjson: keeps other entries,
// comments and formatting), so it serves users without VS Code too.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Sidecar } from './sidecar';

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
 * The command written into .mcp.json: the bare name when the sidecar was
 * found on PATH (the file then works on every machine that has it there),
 * else its absolute path. A bundled binary's path contains the extension's
 * version, so the extension rewrites the entries after an update (when the
 * user chose "always").
 */
export function configCommand(sidecar: Sidecar): string {
  return sidecar.source === 'PATH' ? 'browser-coordinator' : sidecar.path;
}

export interface InstallInput {
  workspace: string;
  child?: Child;
  sidecarCommand: string;
  dryRun?: boolean;
}

/** The sidecar's arguments for writing the workspace's .mcp.json (Claude Code, project scope). */
export function installArgs(i: InstallInput): string[] {
  const args = ['install', '--host', 'claude-code', '--scope', 'project', '--child', i.child?.installSpec ?? 'none', '--workspace', i.workspace, '--sidecar', i.sidecarCommand];
  if (i.dryRun) args.push('--dry-run');
  return args;
}

export const MCP_JSON = '.mcp.json';

export interface InstallResult {
  /** The file written, or already up to date. */
  file: string;
  changed: boolean;
}

export class InstallError extends Error {
  constructor(message: string, readonly exitCode: number | null, readonly stderr: string) {
    super(message);
    this.name = 'InstallError';
  }
}

function runSidecar(sidecar: string, args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(sidecar, args, { cwd, timeout: 30_000, windowsHide: true, maxBuffer: 8 << 20 }, (err, stdout, stderr) => {
      if (err) {
        const code = typeof err.code === 'number' ? err.code : null;
        const detail = stderr.trim() || err.message;
        return reject(new InstallError(`browser-coordinator install failed: ${detail}`, code, stderr));
      }
      resolve({ stdout, stderr });
    });
  });
}

/**
 * Writes the workspace's .mcp.json through `browser-coordinator install`.
 * The sidecar leaves an unchanged file alone (it keeps its timestamp) and
 * prints "wrote <file>: <entries>" or "<file> is up to date: <entries>".
 * A file that does not parse makes the sidecar fail with the file, line and
 * column: that message is the error, and nothing is written.
 */
export async function writeMcpJson(sidecar: string, input: InstallInput): Promise<InstallResult> {
  const file = path.join(input.workspace, MCP_JSON);
  const { stdout } = await runSidecar(sidecar, installArgs({ ...input, dryRun: false }), input.workspace);
  return { file, changed: stdout.startsWith('wrote ') };
}

/** Whether the workspace's .mcp.json already has a browser-coordinator entry (a cheap check, no parse errors raised). */
export function hasCoordinatorEntry(workspace: string): boolean {
  try {
    return /"browser-coordinator"\s*:/.test(fs.readFileSync(path.join(workspace, MCP_JSON), 'utf8'));
  } catch {
    return false;
  }
}
