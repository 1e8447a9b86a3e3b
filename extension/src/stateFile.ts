// Coordinator state files (docs/interfaces.md, "State files"): one JSON file
// per running coordinator in the per-user state folder, written atomically by
// the sidecar (temp file ".<name>.tmp-*" + rename, mode 0600), removed on
// clean exit. A file whose pid is dead is stale and ignored.
//
// Who may be trusted: the state folder must belong to this user and be
// writable by no one else, and a state file is read only when it is a
// regular file (not a symlink) of this user that no one else can read or
// write. Another local user could otherwise plant a file that points the
// status bar and its actions at their own port, or a symlink that makes
// someone write where they should not. The sidecar applies the same rules.
//
// StateWatcher follows the file of this workspace's coordinator live: it
// watches the folder (fs.watch, filtered by name) instead of polling,
// tolerates files that vanish or do not parse mid-read, and re-arms itself
// when watching fails (the folder removed, refused, or an fs.watch error).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Log, errorMessage } from './log';
import { joinFor, stateBase } from './osdirs';

export interface BrowserInfo {
  type: string;
  path?: string;
  version?: string;
  pid?: number;
  headless: boolean;
}

/** The state file's backend values (contract names: they stay as they are). */
export type Backend = 'tier1' | 'tier2' | 'attach' | 'everyday' | 'service';
export type BrowserState = 'idle' | 'launching' | 'running' | 'stopped' | 'crashed';

export interface CoordinatorState {
  pid: number;
  proxyPort: number;
  /** The secret in the CDP endpoints' path; absent from coordinators older than the per-user state folder. */
  proxySecret?: string;
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
export const APP_DIR = 'browser-coordinator';

export interface Platform {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
  /** os.tmpdir(): the per-user $TMPDIR on macOS. */
  tmpdir: string;
}

export function currentPlatform(): Platform {
  return { platform: process.platform, env: process.env, home: os.homedir(), tmpdir: os.tmpdir() };
}

/**
 * The state folder, by the same rule as the sidecar: an override
 * (`--state-dir`, else $BROWSER_COORDINATOR_STATE_DIR), else
 * browser-coordinator in the per-user base folder (osdirs.ts's stateBase:
 * one no other user can create first).
 */
export function stateDir(p: Platform = currentPlatform(), override?: string): string {
  if (override) return path.resolve(override);
  if (p.env[STATE_DIR_ENV]) return path.resolve(p.env[STATE_DIR_ENV]);
  return joinFor(p.platform, stateBase(p), APP_DIR);
}

/** The value of `--state-dir` in a coordinator's arguments (`--state-dir DIR` or `--state-dir=DIR`), if any. */
export function stateDirFlag(args: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break;
    if ((a === '--state-dir' || a === '-state-dir') && i + 1 < args.length) found = args[++i];
    else if (a.startsWith('--state-dir=') || a.startsWith('-state-dir=')) found = a.slice(a.indexOf('=') + 1);
  }
  return found || undefined;
}

/** A folder or file that is not this user's alone; the message says what to do. */
export class UntrustedError extends Error {
  constructor(message: string, readonly file: string) {
    super(message);
    this.name = 'UntrustedError';
  }
}

/** This process's uid, or undefined where there is none (Windows). */
export function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

function ownerName(uid: number): string {
  return uid === 0 ? 'root' : `uid ${uid}`;
}

/**
 * Checks that dir is a folder of this user that no one else can write.
 * Throws UntrustedError saying how to fix it. On Windows nothing is checked:
 * the folder is in the user's profile (%LOCALAPPDATA%), which its ACL closes
 * to other users; uid and mode bits do not exist there.
 */
export function checkOwnedDir(dir: string, uid: number | undefined = currentUid()): void {
  if (uid === undefined) return;
  const link = fs.lstatSync(dir);
  if (link.isSymbolicLink() && link.uid !== uid) {
    throw new UntrustedError(`${dir} is a symlink of ${ownerName(link.uid)}, not yours: remove it, or use another folder (${STATE_DIR_ENV})`, dir);
  }
  const st = link.isSymbolicLink() ? fs.statSync(dir) : link;
  if (!st.isDirectory()) throw new UntrustedError(`${dir} is not a folder: remove it, or use another folder (${STATE_DIR_ENV})`, dir);
  if (st.uid !== uid) {
    throw new UntrustedError(`${dir} belongs to ${ownerName(st.uid)}, not to you (uid ${uid}): another user could read or plant coordinator state there; use a folder of your own (${STATE_DIR_ENV}=DIR)`, dir);
  }
  if ((st.mode & 0o022) !== 0) {
    throw new UntrustedError(`${dir} can be written by other users (mode ${(st.mode & 0o777).toString(8)}): run \`chmod 700 ${dir}\`, or use another folder (${STATE_DIR_ENV}=DIR)`, dir);
  }
}

/** Creates dir (mode 0700, with its parents) when missing, then checks it as checkOwnedDir does. */
export function ensureOwnedDir(dir: string, uid: number | undefined = currentUid()): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkOwnedDir(dir, uid);
}

const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/**
 * Reads a file only when it is a regular file (not a symlink: opened with
 * O_NOFOLLOW, then checked on the open descriptor, so it cannot be swapped
 * in between) of this user with no permission bits for anyone else. Windows:
 * no checks (see checkOwnedDir). Throws ENOENT like readFileSync, and
 * UntrustedError for a file that is not trusted.
 */
export function readOwnedFile(file: string, uid: number | undefined = currentUid()): string {
  if (uid === undefined) return fs.readFileSync(file, 'utf8');
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new UntrustedError(`${file} is a symlink: a state file must be a regular file; remove it`, file);
    throw err;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new UntrustedError(`${file} is not a regular file; remove it`, file);
    if (st.uid !== uid) throw new UntrustedError(`${file} belongs to ${ownerName(st.uid)}, not to you: ignored (remove it)`, file);
    if ((st.mode & 0o077) !== 0) throw new UntrustedError(`${file} can be used by other users (mode ${(st.mode & 0o777).toString(8)}, must be 600): ignored (run \`chmod 600 ${file}\` or remove it)`, file);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
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

/**
 * Reads one state file: undefined when it is gone, an Error when it is not
 * trusted (UntrustedError), does not parse or lacks pid/proxyPort.
 */
export function readState(file: string, uid: number | undefined = currentUid()): CoordinatorState | Error | undefined {
  let text: string;
  try {
    text = readOwnedFile(file, uid);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return err instanceof UntrustedError ? err : new Error(`${file}: ${errorMessage(err)}`);
  }
  let state: CoordinatorState;
  try {
    state = JSON.parse(text) as CoordinatorState;
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
  /** Files that do not parse, and files that are not trusted (UntrustedError). */
  broken: Error[];
}

export interface ScanOptions {
  alive?: (pid: number) => boolean;
  uid?: number;
}

/** Reads the state files of a folder (which the caller has checked with checkOwnedDir). */
export function scan(dir: string, o: ScanOptions = {}): Scan {
  const alive = o.alive ?? pidAlive;
  const uid = 'uid' in o ? o.uid : currentUid();
  const result: Scan = { live: [], stale: [], broken: [] };
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return result;
  }
  for (const name of names.filter(isStateFileName)) {
    const file = path.join(dir, name);
    const state = readState(file, uid);
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

/** The endpoint for people to read: the proxy secret in its path is replaced by "…". */
export function redactEndpoint(endpoint: string, secret?: string): string {
  return secret ? endpoint.split(secret).join('…') : endpoint;
}

export interface WatcherOptions {
  dir: string;
  workspaces: string[];
  log: Log;
  onChange: (entry: Entry | undefined) => void;
  /** Called with a message when the folder cannot be used (refused, unreadable), and with undefined once it can. */
  onProblem?: (problem: string | undefined) => void;
  /**
   * How often the shown coordinator's pid is checked. A coordinator killed
   * with SIGKILL leaves its file and no file event, and Node cannot wait on
   * another program's process, so this one thing is polled.
   */
  livenessMs?: number;
  /** The first wait before watching is tried again after a failure; it doubles up to 30 s. */
  retryMs?: number;
  alive?: (pid: number) => boolean;
  uid?: number;
}

/** Follows the state file of this workspace's coordinator; onChange gets every change of it. */
export class StateWatcher {
  private watcher?: fs.FSWatcher;
  private debounce?: NodeJS.Timeout;
  private liveness?: NodeJS.Timeout;
  private retry?: NodeJS.Timeout;
  private retryDelay: number;
  private last = 'init';
  private problem?: string;
  private reported = new Set<string>();
  private disposed = false;
  current: Entry | undefined;

  constructor(private readonly o: WatcherOptions) {
    this.retryDelay = o.retryMs ?? 1000;
  }

  private get uid(): number | undefined {
    return 'uid' in this.o ? this.o.uid : currentUid();
  }

  /** Whether the folder is being watched now (false while it waits to try again). */
  get watching(): boolean {
    return this.watcher !== undefined;
  }

  start(): void {
    this.arm();
    const every = this.o.livenessMs ?? 2000;
    if (every > 0) {
      this.liveness = setInterval(() => {
        if (this.current && !(this.o.alive ?? pidAlive)(this.current.state.pid)) this.refresh();
      }, every);
      this.liveness.unref();
    }
  }

  private setProblem(problem: string | undefined): void {
    if (problem === this.problem) return;
    this.problem = problem;
    if (problem) this.o.log.warn(`state: ${problem}`);
    this.o.onProblem?.(problem);
  }

  /** Creates and checks the folder, watches it, reads it; on failure tries again later. */
  private arm(): void {
    if (this.disposed) return;
    this.unwatch();
    try {
      ensureOwnedDir(this.o.dir, this.uid);
      const watcher = fs.watch(this.o.dir, (_event, name) => {
        if (!fs.existsSync(this.o.dir)) return this.fail(`${this.o.dir} was removed`);
        if (!name || isStateFileName(name.toString())) this.schedule();
      });
      watcher.on('error', (err) => this.fail(`watching ${this.o.dir} failed: ${errorMessage(err)}`));
      this.watcher = watcher;
      this.retryDelay = this.o.retryMs ?? 1000;
      this.setProblem(undefined);
    } catch (err) {
      this.fail(err instanceof UntrustedError ? err.message : `cannot watch ${this.o.dir}: ${errorMessage(err)}`);
    }
    this.refresh();
  }

  /** Stops watching, says why, and arms again after a growing delay. */
  private fail(why: string): void {
    if (this.disposed) return;
    this.unwatch();
    this.setProblem(`${why}; trying again in ${Math.round(this.retryDelay / 1000)} s`);
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.arm(), this.retryDelay);
    this.retry.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, 30_000);
  }

  private unwatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** Coalesces bursts of events (temp file created, written, renamed) into one read. */
  private schedule(): void {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.refresh(), 30);
  }

  /**
   * Rescans now and reports a change. The folder is checked each time: a
   * folder that stopped being trusted (chmod 777, another owner) shows no
   * coordinator, and watching stops until it is fixed.
   */
  refresh(): Entry | undefined {
    let entry: Entry | undefined;
    let untrusted: string | undefined;
    try {
      checkOwnedDir(this.o.dir, this.uid);
    } catch (err) {
      untrusted = err instanceof UntrustedError ? err.message : `cannot use ${this.o.dir}: ${errorMessage(err)}`;
    }
    if (untrusted === undefined) {
      const s = scan(this.o.dir, { alive: this.o.alive, uid: this.uid });
      for (const err of s.broken) {
        if (!this.reported.has(err.message)) {
          this.reported.add(err.message);
          if (err instanceof UntrustedError) this.o.log.warn(`state: refused ${err.message}`);
          else this.o.log.debug(`state: skipped ${err.message}`);
        }
      }
      entry = pick(s, this.o.workspaces);
    }
    const key = entry ? JSON.stringify(entry) : '';
    if (key !== this.last) {
      this.last = key;
      this.current = entry;
      this.o.onChange(entry);
    }
    if (untrusted !== undefined && this.watcher) this.fail(untrusted);
    return entry;
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.debounce);
    clearTimeout(this.retry);
    clearInterval(this.liveness);
    this.unwatch();
  }
}
