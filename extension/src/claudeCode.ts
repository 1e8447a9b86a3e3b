// Claude Code's MCP entries for a folder: where they go, what they hold, and
// whether the ones already there are still good.
//
// Claude Code reads stdio MCP servers from three scopes (its docs, "MCP
// installation scopes"): local — ~/.claude.json (or
// $CLAUDE_CONFIG_DIR/.claude.json) under projects["<absolute folder>"].mcpServers,
// private to one user and one folder, never committed; project — the
// folder's .mcp.json, which teams commit; user — ~/.claude.json at the top.
// The extension writes to one of the first two, chosen per folder (never
// globally):
//   local    the machine's own entry: the bundled sidecar by its absolute
//            path. It works at once, on every OS, with the exact sidecar of
//            this extension; nothing lands in the repository. The path
//            contains the extension's version, so after an update the
//            extension rewrites it (it is this user's own file).
//   project  a portable entry: `npx -y browser-coordinator`, the same bytes
//            on every teammate's machine, no home folder, no version. It
//            needs Node (the default child MCP runs through npx anyway) and
//            the npm package, which is not published yet.
// The sidecar owns those files: it finds them, writes and removes the
// entries keeping every other byte, and judges the entries already there
// (`browser-coordinator install --host claude-code --scope local|project
// … --json`). This module asks it and keeps the extension's own part: which
// place a folder chose, and what to offer (plan).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Child } from './registration';

export type Place = 'local' | 'project';
export const places: readonly Place[] = ['local', 'project'];

export const MCP_JSON = '.mcp.json';

export interface McpEntry {
  type?: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
  [key: string]: unknown;
}

/** The sidecar that answers, and the environment it reads (HOME, CLAUDE_CONFIG_DIR). */
export interface Asker {
  /** The binary to run. */
  bin: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export interface Wanted {
  /** The sidecar's absolute path (local entries run it). */
  sidecar: string;
  child?: Child;
}

export interface Location {
  place: Place;
  folder: string;
  file: string;
  /** For people: "~/.claude.json (only you, in <folder>)" or "<folder>/.mcp.json". */
  label: string;
}

export type Verdict =
  /** As the extension writes it for this place. */
  | { kind: 'current' }
  /** The extension's, but broken or wrong for this place; a repair is offered. */
  | { kind: 'stale'; why: string }
  /** Runs browser-coordinator in a way of the user's own (another command, flags, another child); left alone. */
  | { kind: 'custom' };

export interface Finding {
  name: string;
  entry: McpEntry;
  verdict: Verdict;
}

export interface Inspection {
  location: Location;
  /** What the extension writes there, by name. */
  wanted: Record<string, McpEntry>;
  /** The entries that run browser-coordinator, judged. */
  ours: Finding[];
  /** Every wanted entry is there as the extension writes it, and no other entry of the extension's is. */
  upToDate: boolean;
  /** Why the file could not be read (then nothing else is known). */
  error?: string;
}

export interface WriteResult {
  file: string;
  changed: boolean;
  /** The entries written and removed. */
  wrote: string[];
  removed: string[];
}

/** A config file that does not parse; it is never written. */
export class ConfigParseError extends Error {
  constructor(message: string, readonly file: string, readonly line: number, readonly column: number) {
    super(message);
    this.name = 'ConfigParseError';
  }
}

/** `install --json`'s answer (the sidecar's cli/install.go, installReport). */
interface Report {
  file: string;
  workspace?: string;
  entries: { name: string; entry: McpEntry }[];
  found: { name: string; entry: McpEntry; status: Verdict['kind']; why?: string }[];
  upToDate: boolean;
  changed: boolean;
  wrote: string[];
  removed: { name: string; workspace?: string }[];
}

interface Failure {
  error: string;
  file?: string;
  line?: number;
  column?: number;
}

/** Runs `<bin> install --host claude-code … --json` and returns its answer; a failure throws what it said. */
function ask(a: Asker, args: string[]): Promise<Report> {
  const argv = ['install', '--host', 'claude-code', ...args, '--json'];
  return new Promise((resolve, reject) => {
    execFile(a.bin, argv, { timeout: a.timeoutMs ?? 15_000, windowsHide: true, env: a.env ?? process.env, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      let answer: (Report & Failure) | undefined;
      try {
        answer = JSON.parse(stdout) as Report & Failure;
      } catch {
        // not JSON: the sidecar failed before it could answer
      }
      if (answer?.error !== undefined) {
        const f = answer as Failure;
        reject(f.line ? new ConfigParseError(f.error, answer.file ?? '', f.line, f.column ?? 0) : new Error(f.error));
      } else if (err || !answer) {
        reject(new Error(`browser-coordinator ${argv.join(' ')} failed: ${`${stderr}`.trim().replace(/^browser-coordinator: /gm, '') || err?.message || 'no answer'}`));
      } else {
        resolve(answer);
      }
    });
  });
}

/** The flags that name a place and what goes there. */
function placeArgs(place: Place, folder: string, w: Wanted): string[] {
  const runs = place === 'local' ? ['--sidecar', w.sidecar] : ['--npx'];
  return ['--scope', place, '--workspace', folder, ...runs, '--child', w.child?.installSpec ?? 'none', '--prune'];
}

/** The label people see for a place. */
export function labelOf(place: Place, folder: string, file: string, home: string): string {
  if (place === 'local') {
    const shown = file.startsWith(home + path.sep) ? `~${file.slice(home.length)}` : file;
    return `${shown} (Claude Code's local scope: only you, in ${path.basename(folder)})`;
  }
  return path.join(path.basename(folder), MCP_JSON);
}

function locationOf(place: Place, folder: string, file: string, home: string): Location {
  return { place, folder, file, label: labelOf(place, folder, file, home) };
}

function homeOf(a: Asker): string {
  return (a.env ?? process.env).HOME ?? (a.env ?? process.env).USERPROFILE ?? '';
}

function verdictOf(f: Report['found'][number]): Verdict {
  return f.status === 'stale' ? { kind: 'stale', why: f.why ?? 'stale' } : { kind: f.status };
}

/** What is at a place now, judged against what the extension writes there. Never rejects: a file that cannot be read is an Inspection with error. */
export async function inspect(a: Asker, place: Place, folder: string, w: Wanted): Promise<Inspection> {
  const unknown = place === 'local' ? '~/.claude.json' : path.join(folder, MCP_JSON);
  try {
    const r = await ask(a, [...placeArgs(place, folder, w), '--dry-run']);
    return {
      location: locationOf(place, folder, r.file, homeOf(a)),
      wanted: Object.fromEntries(r.entries.map((e) => [e.name, e.entry])),
      ours: r.found.map((f) => ({ name: f.name, entry: f.entry, verdict: verdictOf(f) })),
      upToDate: r.upToDate,
    };
  } catch (err) {
    return { location: locationOf(place, folder, unknown, homeOf(a)), wanted: {}, ours: [], upToDate: false, error: (err as Error).message };
  }
}

function written(r: Report): WriteResult {
  return { file: r.file, changed: r.changed, wrote: r.wrote, removed: r.removed.map((x) => x.name) };
}

/** Brings a place to what the extension writes there: the wanted entries, and none of its other ones. Throws ConfigParseError, writing nothing, for a file that does not parse. */
export async function applyWanted(a: Asker, place: Place, folder: string, w: Wanted): Promise<WriteResult> {
  return written(await ask(a, placeArgs(place, folder, w)));
}

/** Removes every entry that runs browser-coordinator at a place. */
export async function removeServers(a: Asker, place: Place, folder: string): Promise<WriteResult> {
  return written(await ask(a, ['--scope', place, '--workspace', folder, '--remove']));
}

// ---- the per-folder decision ----

/** What the user chose for a folder: a place, or no entries ("declined"). Kept per folder, never globally. */
export type Choice = Place | 'declined';

export interface FolderState {
  folder: string;
  choice?: Choice;
  /** The setting browserCoordinator.claudeCode.offer. */
  offer: boolean;
  /** The folder has .mcp.json, .claude/ or CLAUDE.md. */
  claudeProject: boolean;
  local: Inspection;
  project: Inspection;
}

export type Plan =
  | { kind: 'nothing'; why: string }
  /** The folder's own choice is behind (the sidecar's path after an update, another child MCP): rewrite it without asking. */
  | { kind: 'update'; place: Place; why: string }
  /** Entries of the extension's that are broken or wrong for their file, which the user did not ask the extension to keep: ask. */
  | { kind: 'offerRepair'; place: Place; why: string }
  /** A Claude Code project without entries and without a choice: offer them once. */
  | { kind: 'offerAdd' };

/** Claude Code project markers: a folder with one of these is offered the entries. */
export const CLAUDE_MARKERS = [MCP_JSON, '.claude', 'CLAUDE.md'];

export function looksLikeClaudeProject(folder: string): boolean {
  return CLAUDE_MARKERS.some((f) => fs.existsSync(path.join(folder, f)));
}

/** What to do about a folder's Claude Code entries at start. */
export function plan(s: FolderState): Plan {
  const local = s.local;
  if (s.choice === 'local' && !local.error && local.ours.length > 0 && !local.upToDate) {
    const stale = local.ours.find((f) => f.verdict.kind === 'stale');
    return { kind: 'update', place: 'local', why: stale?.verdict.kind === 'stale' ? `${stale.name}: ${stale.verdict.why}` : 'the entries differ from the settings (another child MCP?)' };
  }
  for (const inspection of [s.local, s.project]) {
    const stale = inspection.ours.find((f) => f.verdict.kind === 'stale');
    if (stale && stale.verdict.kind === 'stale') {
      return { kind: 'offerRepair', place: inspection.location.place, why: `"${stale.name}" in ${inspection.location.label}: ${stale.verdict.why}` };
    }
  }
  if (s.choice) return { kind: 'nothing', why: `the choice for this folder is ${s.choice}` };
  if (s.local.ours.length || s.project.ours.length) return { kind: 'nothing', why: 'entries are there already' };
  if (!s.offer) return { kind: 'nothing', why: 'browserCoordinator.claudeCode.offer is off' };
  if (!s.claudeProject) return { kind: 'nothing', why: `no ${CLAUDE_MARKERS.join(', ')} here` };
  return { kind: 'offerAdd' };
}
