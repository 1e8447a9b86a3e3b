// Coordinator state files (DESIGN.md, "State file"): one JSON file per
// running coordinator in the state folder, written atomically by the sidecar
// (temp file ".<name>.tmp-*" + rename), removed on clean exit. A file whose
// pid is dead is stale and ignored. StateWatcher follows the one for this
// workspace live: it watches the folder (fs.watch, filtered by name) instead
// of polling, and tolerates files that vanish or do not parse mid-read.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Log, errorMessage } from './log';

export interface BrowserInfo {
  type: string;
  path?: string;
  version?: string;
  pid?: number;
  headless: boolean;
}

export type Backend = 'tier1' | 'tier2' | 'attach';
export type BrowserState = 'idle' | 'launching' | 'running' | 'stopped' | 'crashed';

export interface CoordinatorState {
  pid: number;
  proxyPort: number;
  cdpEndpoint: string;
  wsEndpoint: string;
  backend: Backend;
  browser: BrowserInfo | null;
  state: BrowserState;
  currentUrl: string;
  workspace: string;
  controlToken: string;
  startedAt: string;
  version: string;
}

export interface Entry {
  file: string;
  state: CoordinatorState;
}

export const STATE_DIR_ENV = 'BROWSER_COORDINATOR_STATE_DIR';

/** The sidecar's default: $BROWSER_COORDINATOR_STATE_DIR, else $TMPDIR/browser-coordinator. */
export function stateDir(env: NodeJS.ProcessEnv = process.env, tmpdir: string = os.tmpdir()): string {
  return env[STATE_DIR_ENV] || path.join(tmpdir, 'browser-coordinator');
}

/** A state file's name: ends with .json, not hidden (temp files of atomic writes are hidden). */
export function isStateFileName(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.');
}

/** Whether a process runs (EPERM means it runs as another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads one state file: undefined when it is gone, an Error when it does not parse or lacks pid/proxyPort. */
export function readState(file: string): CoordinatorState | Error | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return new Error(`${file}: ${errorMessage(err)}`);
  }
  let state: CoordinatorState;
  try {
    state = JSON.parse(text);
  } catch (err) {
    return new Error(`${file} is not valid JSON (${errorMessage(err)})`);
  }
  if (typeof state !== 'object' || state === null || !(state.pid > 0) || !(state.proxyPort > 0)) {
    return new Error(`${file} has no pid or proxyPort`);
  }
  return state;
}

export interface Scan {
  /** Newest first. */
  live: Entry[];
  stale: Entry[];
  broken: Error[];
}

export function scan(dir: string, alive: (pid: number) => boolean = pidAlive): Scan {
  const result: Scan = { live: [], stale: [], broken: [] };
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return result;
  }
  for (const name of names.filter(isStateFileName)) {
    const file = path.join(dir, name);
    const state = readState(file);
    if (state === undefined) continue; // removed between readdir and read: its coordinator exited
    if (state instanceof Error) result.broken.push(state);
    else (alive(state.pid) ? result.live : result.stale).push({ file, state });
  }
  result.live.sort((a, b) => Date.parse(b.state.startedAt || '') - Date.parse(a.state.startedAt || '') || 0);
  return result;
}

function canonical(p: string): string {
  let c = path.resolve(p);
  try {
    c = fs.realpathSync.native(c);
  } catch {
    // keep the resolved path
  }
  return process.platform === 'win32' || process.platform === 'darwin' ? c.toLowerCase() : c;
}

/** Whether inner is the folder outer or inside it (after resolving symlinks). */
export function withinDir(inner: string, outer: string): boolean {
  if (!inner || !outer) return false;
  const rel = path.relative(canonical(outer), canonical(inner));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The coordinator serving these workspace folders: the newest live one whose
 * workspace is one of them, else the newest live one started inside one of
 * them (Claude Code in a subfolder).
 */
export function pick(s: Scan, workspaces: string[]): Entry | undefined {
  const exact = s.live.find((e) => workspaces.some((w) => withinDir(e.state.workspace, w) && withinDir(w, e.state.workspace)));
  return exact ?? s.live.find((e) => workspaces.some((w) => withinDir(e.state.workspace, w)));
}

export interface WatcherOptions {
  dir: string;
  workspaces: string[];
  log: Log;
  onChange: (entry: Entry | undefined) => void;
  /**
   * How often the shown coordinator's pid is checked. A coordinator killed
   * with SIGKILL leaves its file and no file event, and Node cannot wait on
   * another program's process, so this one thing is polled.
   */
  livenessMs?: number;
  alive?: (pid: number) => boolean;
}

/** Follows the state file of this workspace's coordinator; onChange gets every change of it. */
export class StateWatcher {
  private watcher?: fs.FSWatcher;
  private debounce?: NodeJS.Timeout;
  private liveness?: NodeJS.Timeout;
  private last = 'init';
  private reported = new Set<string>();
  current: Entry | undefined;

  constructor(private readonly o: WatcherOptions) {}

  start(): void {
    try {
      fs.mkdirSync(this.o.dir, { recursive: true, mode: 0o700 });
      this.watcher = fs.watch(this.o.dir, (_event, name) => {
        if (!name || isStateFileName(name.toString())) this.schedule();
      });
      this.watcher.on('error', (err) => {
        this.o.log.warn(`state: watching ${this.o.dir} failed: ${errorMessage(err)}; the status shows the last known state`);
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch (err) {
      this.o.log.warn(`state: cannot watch ${this.o.dir}: ${errorMessage(err)}`);
    }
    this.refresh();
    const every = this.o.livenessMs ?? 2000;
    if (every > 0) {
      this.liveness = setInterval(() => {
        if (this.current && !(this.o.alive ?? pidAlive)(this.current.state.pid)) this.refresh();
      }, every);
      this.liveness.unref();
    }
  }

  /** Coalesces bursts of events (temp file created, written, renamed) into one read. */
  private schedule(): void {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.refresh(), 30);
  }

  /** Rescans now and reports a change. */
  refresh(): Entry | undefined {
    const s = scan(this.o.dir, this.o.alive);
    for (const err of s.broken) {
      if (!this.reported.has(err.message)) {
        this.reported.add(err.message);
        this.o.log.debug(`state: skipped ${err.message}`);
      }
    }
    const entry = pick(s, this.o.workspaces);
    const key = entry ? JSON.stringify(entry) : '';
    if (key !== this.last) {
      this.last = key;
      this.current = entry;
      this.o.onChange(entry);
    }
    return entry;
  }

  dispose(): void {
    clearTimeout(this.debounce);
    clearInterval(this.liveness);
    this.watcher?.close();
    this.watcher = undefined;
  }
}
