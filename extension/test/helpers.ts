// Test helpers: temp folders that clean up, a real Chromium, the built sidecar.
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestContext } from 'node:test';
import { exeName, vsixTarget } from '../src/sidecar';
import type { CoordinatorState } from '../src/stateFile';

/** The repository root (tests run from out/test/). */
export const root = path.resolve(__dirname, '..', '..');

/** A fresh temp folder, removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'bc-ext-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Resolves when check() holds; rejects after timeoutMs. For conditions no event announces. */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Resolves when name appears in dir (fs.watch, then a check, so no event is missed). */
export function waitForFile(dir: string, name: string, timeoutMs = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const file = path.join(dir, name);
    const done = (err?: Error) => {
      clearTimeout(timer);
      watcher.close();
      if (err) reject(err);
      else resolve();
    };
    const watcher = fs.watch(dir, () => {
      if (fs.existsSync(file)) done();
    });
    const timer = setTimeout(() => done(new Error(`${file} did not appear within ${timeoutMs} ms`)), timeoutMs);
    if (fs.existsSync(file)) done();
  });
}

const browserNames = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** A Chromium-family browser, or undefined. */
export function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of browserNames) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return undefined;
}

/**
 * The browser for a test, or a skip: outside CI a test without a browser
 * skips; under CI it fails (README, "Development"). npm test installs one first.
 */
export function requireChromium(t: TestContext): string | undefined {
  const found = findChromium();
  if (found) return found;
  if (process.env.CI) throw new Error('no Chromium found; CI must run the browser tests (apt-get install -y chromium)');
  t.skip('no Chromium installed');
  return undefined;
}

export interface Browser {
  proc: ChildProcess;
  userDataDir: string;
  /** Kills the browser's process group and waits for it to exit. */
  kill(): Promise<void>;
}

/** Starts headless Chromium with --remote-debugging-port=0, as VS Code's Electron does with argv.json's "0". */
export async function startChromium(t: TestContext, exe: string): Promise<Browser> {
  const userDataDir = tempDir(t, 'bc-chromium-');
  const proc = spawn(exe, [
    '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--remote-debugging-port=0', `--user-data-dir=${userDataDir}`, 'about:blank',
  ], { stdio: 'ignore', detached: true });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const kill = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      try {
        process.kill(-proc.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    }
  };
  t.after(kill);
  await waitForFile(userDataDir, 'DevToolsActivePort');
  // Chromium may create the file before writing both lines: wait for line 2.
  await waitFor(() => /\n\/devtools\/browser\//.test(fs.readFileSync(path.join(userDataDir, 'DevToolsActivePort'), 'utf8')), 'DevToolsActivePort line 2');
  return { proc, userDataDir, kill };
}

/** The sidecar built by `npm run build` for this machine, or undefined. */
export function builtSidecar(): string | undefined {
  const target = vsixTarget();
  if (!target) return undefined;
  const file = path.join(root, 'bin', target, exeName());
  return fs.existsSync(file) ? file : undefined;
}

/** The built sidecar, or a test failure that says how to build it. */
export function requireSidecar(): string {
  const file = builtSidecar();
  if (!file) throw new Error('the sidecar is not built: run npm run build (npm test builds it first)');
  return file;
}

/** Writes an executable shell script (a fake sidecar). */
export function script(file: string, body: string, mode = 0o755): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode });
  fs.chmodSync(file, mode);
  return file;
}

/** A state file's content as the sidecar writes it, for this process (alive) unless pid is given. */
export function coordinatorState(over: Partial<CoordinatorState> = {}): CoordinatorState {
  return {
    pid: process.pid,
    proxyPort: 41000,
    cdpEndpoint: 'http://127.0.0.1:41000',
    wsEndpoint: 'ws://127.0.0.1:41000/devtools/browser/coordinator',
    backend: 'tier1',
    browser: null,
    state: 'idle',
    currentUrl: '',
    workspace: '/ws',
    controlToken: 'token',
    startedAt: new Date().toISOString(),
    version: '0.1.0',
    ...over,
  };
}

/** The sidecar's cases for every OS's folders (its osdirs package, testdata/cases.json): the extension must agree with them. */
export interface OsCase {
  name: string;
  os: string;
  home: string;
  env: Record<string, string>;
  appData: string | null;
  stateBase: string | null;
}

export const osCases: OsCase[] = JSON.parse(fs.readFileSync(path.join(root, 'sidecar', 'internal', 'osdirs', 'testdata', 'cases.json'), 'utf8'));

export function platformOf(os: string): NodeJS.Platform {
  return os === 'windows' ? 'win32' : os as NodeJS.Platform;
}
