// Claude Code's MCP entries for a folder: where they go, what they hold, and
// whether the ones already there are still good.
//
// Claude Code reads stdio MCP servers from three scopes (its docs, "MCP
// installation scopes"): local — ~/.claude.json under
// projects["<absolute folder>"].mcpServers, private to one user and one
// folder, never committed, and winning over the others on a name clash;
// project — the folder's .mcp.json, which teams commit; user — ~/.claude.json
// at the top, every project. The extension writes to one of the first two,
// chosen per folder (never globally):
//   local    the machine's own entry: the bundled sidecar by its absolute
//            path. It works at once, on every OS, with the exact sidecar of
//            this extension; nothing lands in the repository. The path
//            contains the extension's version, so after an update the
//            extension rewrites it (it is this user's own file).
//   project  a portable entry: `npx -y browser-coordinator`, the same bytes
//            on every teammate's machine, no home folder, no version. It
//            needs Node (the default child MCP runs through npx anyway) and
//            the npm package, which is not published yet.
// Both files are JSON that people (and Claude Code) edit, so they are
// changed with jsonc-parser's modify: every other entry, key, comment and
// the indentation stay; only the named entries change. A file that does not
// parse is never written. ~/.claude.json is Claude Code's own state file:
// it is written atomically (temp file + rename), keeps its mode, and only
// the entries below projects[folder].mcpServers are touched.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsonc from 'jsonc-parser';
import { writeFileAtomic, lineColumn } from './files';
import type { Child } from './registration';

export type Place = 'local' | 'project';
export const places: readonly Place[] = ['local', 'project'];

/** The npm package that runs the sidecar (`npx -y browser-coordinator`). */
export const NPM_PACKAGE = 'browser-coordinator';
/** The coordinator's entry name (the child's is the child's: playwright, chrome-devtools, browser). */
export const COORDINATOR_ENTRY = 'browser-coordinator';
export const MCP_JSON = '.mcp.json';

export interface McpEntry {
  type?: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
  [key: string]: unknown;
}

export interface Paths {
  home: string;
  env: NodeJS.ProcessEnv;
}

/** Claude Code's own file: $CLAUDE_CONFIG_DIR/.claude.json when that is set, else ~/.claude.json. */
export function claudeJsonPath({ home, env }: Paths): string {
  return env.CLAUDE_CONFIG_DIR ? path.join(env.CLAUDE_CONFIG_DIR, '.claude.json') : path.join(home, '.claude.json');
}

export interface Location {
  place: Place;
  folder: string;
  file: string;
  /** Where the server map is inside the file. */
  jsonPath: jsonc.JSONPath;
  /** For people: "~/.claude.json (only you, in <folder>)" or "<folder>/.mcp.json". */
  label: string;
}

export function locationOf(place: Place, folder: string, p: Paths): Location {
  if (place === 'local') {
    const file = claudeJsonPath(p);
    const shown = file.startsWith(p.home + path.sep) ? `~${file.slice(p.home.length)}` : file;
    return { place, folder, file, jsonPath: ['projects', folder, 'mcpServers'], label: `${shown} (Claude Code's local scope: only you, in ${path.basename(folder)})` };
  }
  return { place, folder, file: path.join(folder, MCP_JSON), jsonPath: ['mcpServers'], label: path.join(path.basename(folder), MCP_JSON) };
}

export interface Wanted {
  /** The sidecar's absolute path (local entries run it). */
  sidecar: string;
  child?: Child;
}

/** The entries a place gets, by name. */
export function entriesFor(place: Place, w: Wanted): Record<string, McpEntry> {
  const run = place === 'local'
    ? (args: string[]): McpEntry => ({ type: 'stdio', command: w.sidecar, args })
    : (args: string[]): McpEntry => ({ command: 'npx', args: ['-y', NPM_PACKAGE, ...args] });
  const entries: Record<string, McpEntry> = { [COORDINATOR_ENTRY]: run([]) };
  if (w.child) entries[w.child.name] = run(['wrap', '--', ...w.child.argv]);
  return entries;
}

const exeRe = /^browser-coordinator(\.exe)?$/i;
const npxRe = /^npx(\.cmd)?$/i;
const packageRe = /^browser-coordinator(@.+)?$/;

/** Whether an entry runs browser-coordinator (directly, or through npx / cmd /c npx): those are the extension's to update or remove. */
export function runsCoordinator(e: unknown): e is McpEntry {
  if (typeof e !== 'object' || e === null || typeof (e as McpEntry).command !== 'string') return false;
  const { command } = e as McpEntry;
  const args = Array.isArray((e as McpEntry).args) ? (e as McpEntry).args!.filter((a) => typeof a === 'string') : [];
  if (exeRe.test(path.basename(command.replace(/\\/g, '/')))) return true;
  let words = [command, ...args];
  if (/^cmd(\.exe)?$/i.test(path.basename(command)) && /^\/c$/i.test(words[1] ?? '')) words = words.slice(2);
  if (!npxRe.test(path.basename(words[0] ?? ''))) return false;
  const end = words.indexOf('wrap');
  return words.slice(1, end < 0 ? undefined : end).some((w) => packageRe.test(w));
}

/** The version in a path inside a VS Code extension folder of this extension, e.g. …/browser-coordinator.browser-coordinator-0.1.0-linux-x64/bin/… */
export function extensionVersionIn(file: string): string | undefined {
  return /[\\/]browser-coordinator\.browser-coordinator-(\d+\.\d+\.\d+[^\\/]*?)(-(linux|darwin|win32|alpine)-(x64|arm64|armhf))?[\\/]/i.exec(file)?.[1];
}

export type Verdict =
  /** As the extension writes it for this place. */
  | { kind: 'current' }
  /** The extension's, but broken or wrong for this place; a repair is offered. */
  | { kind: 'stale'; why: string }
  /** Runs browser-coordinator in a way of the user's own (another command, flags, another child); left alone. */
  | { kind: 'custom' };

export interface JudgeOptions {
  home: string;
  exists?: (file: string) => boolean;
}

function sameEntry(a: McpEntry, b: McpEntry): boolean {
  const norm = (e: McpEntry) => JSON.stringify({ command: e.command, args: e.args ?? [], type: e.type ?? 'stdio', env: e.env && Object.keys(e.env).length ? e.env : undefined });
  return norm(a) === norm(b);
}

/** What to make of one entry that runs browser-coordinator. */
export function judge(place: Place, actual: McpEntry, wanted: McpEntry | undefined, o: JudgeOptions): Verdict {
  if (wanted && sameEntry(actual, wanted)) return { kind: 'current' };
  const exists = o.exists ?? fs.existsSync;
  const command = actual.command;
  if (path.isAbsolute(command) || /^[A-Za-z]:[\\/]/.test(command)) {
    if (!exists(command)) return { kind: 'stale', why: `it runs ${command}, which does not exist (any more)` };
    const version = extensionVersionIn(command);
    if (place === 'project' && (version || (o.home && command.startsWith(o.home + path.sep)))) {
      return { kind: 'stale', why: `it runs ${command}, a path of this machine${version ? ` and extension version ${version}` : ''}, in a file teammates share: it fails on their machines` };
    }
    if (place === 'local' && version && wanted && version !== extensionVersionIn(wanted.command)) {
      return { kind: 'stale', why: `it runs the sidecar of extension version ${version}, not of this one` };
    }
  }
  return { kind: 'custom' };
}

/** A config file that does not parse; it is never written. */
export class ConfigParseError extends Error {
  constructor(readonly file: string, readonly line: number, readonly column: number, reason: string) {
    super(`${file}:${line}:${column}: ${reason}; fix the file (or move it away) first — nothing was written`);
    this.name = 'ConfigParseError';
  }
}

interface Loaded {
  /** The file a link points to (written through it). */
  real: string;
  text: string;
  exists: boolean;
  root?: jsonc.Node;
}

function load(file: string): Loaded {
  let real = file;
  try {
    real = fs.realpathSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  let text: string;
  try {
    text = fs.readFileSync(real, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { real, text: '', exists: false };
    throw err;
  }
  const body = text.replace(/^\ufeff/, '');
  if (body.trim() === '') return { real, text, exists: true };
  const errors: jsonc.ParseError[] = [];
  const root = jsonc.parseTree(body, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) {
    const { line, column } = lineColumn(body, errors[0].offset);
    throw new ConfigParseError(file, line, column, `not valid JSON (${jsonc.printParseErrorCode(errors[0].error)})`);
  }
  if (!root || root.type !== 'object') throw new ConfigParseError(file, 1, 1, 'the top level is not an object');
  return { real, text, exists: true, root };
}

/** The server map at the location ({} when the file or the map is missing). Throws ConfigParseError. */
export function readServers(loc: Location): Record<string, unknown> {
  const { root } = load(loc.file);
  const node = root && jsonc.findNodeAtLocation(root, loc.jsonPath);
  const value: unknown = node ? jsonc.getNodeValue(node) : undefined;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {};
}

export interface Finding {
  name: string;
  entry: McpEntry;
  verdict: Verdict;
}

export interface Inspection {
  location: Location;
  /** The entries that run browser-coordinator, judged. */
  ours: Finding[];
  /** Every wanted entry is there as the extension writes it, and no other entry of the extension's is. */
  upToDate: boolean;
  /** Why the file could not be read (then nothing else is known). */
  error?: string;
}

export function inspect(loc: Location, wanted: Record<string, McpEntry>, o: JudgeOptions): Inspection {
  let servers: Record<string, unknown>;
  try {
    servers = readServers(loc);
  } catch (err) {
    return { location: loc, ours: [], upToDate: false, error: (err as Error).message };
  }
  const ours: Finding[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (runsCoordinator(entry)) ours.push({ name, entry, verdict: judge(loc.place, entry, wanted[name], o) });
  }
  const upToDate = Object.entries(wanted).every(([name]) => ours.some((f) => f.name === name && f.verdict.kind === 'current')) &&
    ours.every((f) => f.name in wanted);
  return { location: loc, ours, upToDate };
}

interface Style {
  eol: string;
  /** One level of indentation: a tab or some spaces. */
  unit: string;
}

function styleOf(text: string): Style {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /^([ \t]+)\S/m.exec(text);
  return { eol, unit: indented?.[1].startsWith('\t') ? '\t' : ' '.repeat(indented ? indented[1].length : 2) };
}

/** The whitespace before offset on its line ('' when something else precedes it there). */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(start, offset);
  return /^[ \t]*$/.test(before) ? before : (/^[ \t]*/.exec(before)?.[0] ?? '');
}

/** value as JSON, laid out like the file: one level per nesting, lines after the first at indent. */
function render(value: unknown, indent: string, st: Style): string {
  return JSON.stringify(value, null, st.unit).split('\n').join(st.eol + indent);
}

/**
 * Sets jsonPath to value, changing only the text of that property: a new
 * property goes after the last one of its object, on its own lines, in the
 * file's indentation; an existing one has its value replaced. Missing
 * objects on the way are created. (jsonc-parser's modify with formatting
 * would re-format the neighbour before the insertion point too, turning a
 * one-line entry of someone else's into several lines.)
 */
function setProperty(text: string, jsonPath: jsonc.JSONPath, value: unknown, st: Style): string {
  const root = jsonc.parseTree(text, [], { allowTrailingComma: true });
  if (!root) throw new Error('no JSON object to edit');
  const existing = jsonc.findNodeAtLocation(root, jsonPath);
  if (existing) {
    const indent = lineIndent(text, existing.parent?.offset ?? existing.offset);
    return text.slice(0, existing.offset) + render(value, indent, st) + text.slice(existing.offset + existing.length);
  }
  // The deepest object that exists on the way; what is missing below it becomes part of the value.
  const parentPath = jsonPath.slice(0, -1);
  let key = jsonPath[jsonPath.length - 1];
  let v: unknown = value;
  let parent = jsonc.findNodeAtLocation(root, parentPath);
  while (!parent) {
    v = { [String(key)]: v };
    key = parentPath.pop()!;
    parent = parentPath.length ? jsonc.findNodeAtLocation(root, parentPath) : root;
  }
  if (parent.type !== 'object') throw new Error(`${[...parentPath].join('.') || 'the top level'} is not an object`);
  const children = parent.children ?? [];
  if (children.length === 0) {
    const outer = lineIndent(text, parent.offset);
    const inner = outer + st.unit;
    const body = `{${st.eol}${inner}${JSON.stringify(key)}: ${render(v, inner, st)}${st.eol}${outer}}`;
    return text.slice(0, parent.offset) + body + text.slice(parent.offset + parent.length);
  }
  const last = children[children.length - 1];
  const indent = lineIndent(text, last.offset);
  const end = last.offset + last.length;
  const property = `${JSON.stringify(key)}: ${render(v, indent, st)}`;
  const after = /^(\s*),/.exec(text.slice(end)); // a trailing comma already there (JSONC)
  if (after) {
    const at = end + after[0].length;
    return `${text.slice(0, at)}${st.eol}${indent}${property}${text.slice(at)}`;
  }
  return `${text.slice(0, end)},${st.eol}${indent}${property}${text.slice(end)}`;
}

export interface WriteResult {
  file: string;
  changed: boolean;
  /** The entries written and removed. */
  wrote: string[];
  removed: string[];
}

/**
 * Puts entries at the location and removes the entries named in remove
 * (only when they run browser-coordinator). A missing file is created (mode
 * 0600 for Claude Code's own file, 0644 for .mcp.json). Throws
 * ConfigParseError, and leaves the file alone, when it does not parse.
 */
export function writeServers(loc: Location, entries: Record<string, McpEntry>, remove: string[] = []): WriteResult {
  const loaded = load(loc.file);
  const bom = loaded.text.startsWith('\ufeff');
  let text = loaded.text.replace(/^\ufeff/, '');
  if (text.trim() === '') text = '{}\n';
  const st = styleOf(text);
  const present = loaded.root ? jsonc.findNodeAtLocation(loaded.root, loc.jsonPath) : undefined;
  const current = (present ? jsonc.getNodeValue(present) ?? {} : {}) as Record<string, unknown>;
  const removed: string[] = [];
  for (const name of remove) {
    if (name in current && runsCoordinator(current[name]) && !(name in entries)) {
      text = jsonc.applyEdits(text, jsonc.modify(text, [...loc.jsonPath, name], undefined, {})); // removes just that property
      removed.push(name);
    }
  }
  for (const [name, entry] of Object.entries(entries)) {
    text = setProperty(text, [...loc.jsonPath, name], entry, st);
  }
  if (!text.endsWith('\n')) text += st.eol;
  const out = (bom ? '\ufeff' : '') + text;
  const changed = out !== loaded.text;
  if (changed) {
    const mode = loaded.exists ? undefined : loc.place === 'local' ? 0o600 : 0o644;
    writeFileAtomic(loaded.real, out, mode);
  }
  return { file: loc.file, changed, wrote: Object.keys(entries), removed };
}

/** Removes every entry that runs browser-coordinator at the location. */
export function removeServers(loc: Location): WriteResult {
  let servers: Record<string, unknown>;
  try {
    servers = readServers(loc);
  } catch (err) {
    if (err instanceof ConfigParseError) throw err;
    return { file: loc.file, changed: false, wrote: [], removed: [] };
  }
  const names = Object.entries(servers).filter(([, e]) => runsCoordinator(e)).map(([n]) => n);
  if (names.length === 0) return { file: loc.file, changed: false, wrote: [], removed: [] };
  return writeServers(loc, {}, names);
}

/** Brings a location to what the extension writes there: the wanted entries, and none of its other ones. */
export function applyWanted(loc: Location, wanted: Record<string, McpEntry>): WriteResult {
  const servers = readServers(loc);
  const extra = Object.entries(servers).filter(([n, e]) => runsCoordinator(e) && !(n in wanted)).map(([n]) => n);
  return writeServers(loc, wanted, extra);
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
