// The user's own browser, for the everyday tests and benchmarks: Chromium
// started as a user starts it (no debugging port), with the built Browser
// Coordinator extension loaded (dist/browser-extension, from `npm run
// build`) and the native host registered in its profile by the built
// sidecar (`install --host chromium --user-data-dir`). The browser passes
// BROWSER_COORDINATOR_STATE_DIR to the host, as a user's browser passes it
// from the user's environment.
//
// The harness keeps a --remote-debugging-pipe to that Chromium for what the
// user does by hand (open tabs, share one in the extension's popup, look at
// their tabs) and to stop the extension's service worker; the coordinator
// under test never sees it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { binaryPath } from './paths.mjs';
import { findBrowser, installAdvice } from './setup.mjs';
import { unpackedDir } from './browserExtension.mjs';
import { alive, waitUntil } from './procs.mjs';

/** The extension's id, fixed by the manifest's key. */
export const extensionId = 'ccgooljpoihlpcjlebchdcobkpcdkffa';

/** The native hosts announced in stateDir (their pids). */
export function hostPids(stateDir) {
  const dir = path.join(stateDir, 'everyday');
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n.endsWith('.host') && !n.startsWith('.')).map((n) => Number(n.slice(0, -'.host'.length))).filter(alive);
}

/**
 * Starts the user's browser on about:blank, then opens urls as the user's
 * tabs. profileRoot is where its profile goes (removed by stop()); args are
 * more command-line flags (a benchmark adds --remote-debugging-port=0).
 * Resolves to a handle: { pid, profile, call, targets, hasPage, evalIn,
 * share, stopServiceWorker, stop }.
 */
export async function startUserBrowser({ stateDir, profileRoot, urls = [], args: extra = [] }) {
  const exe = findBrowser();
  if (!exe) throw new Error(installAdvice);
  if (!fs.existsSync(path.join(unpackedDir, 'background.js'))) {
    throw new Error(`the browser extension is not built (${unpackedDir}): run npm run build`);
  }
  const profile = fs.mkdtempSync(path.join(profileRoot, 'prof-'));
  const install = spawnSync(binaryPath(), ['install', '--host', 'chromium', '--user-data-dir', profile], { encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`install --host chromium: ${install.stderr}`);
  const tmp = path.join(profile, 'tmp');
  fs.mkdirSync(tmp);
  const args = ['--headless=new', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', `--user-data-dir=${profile}`, `--load-extension=${unpackedDir}`, `--disable-extensions-except=${unpackedDir}`,
    '--remote-debugging-pipe', ...extra, 'about:blank'];
  if (process.getuid?.() === 0) args.unshift('--no-sandbox');
  const proc = spawn(exe, args, {
    stdio: ['ignore', 'ignore', process.env.BROWSER_COORDINATOR_DEBUG ? 'inherit' : 'ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: stop() takes the renderers and the native host's siblings too
    env: { ...process.env, BROWSER_COORDINATOR_STATE_DIR: stateDir, TMPDIR: tmp },
  });
  const exited = new Promise((r) => proc.once('exit', r));
  const toBrowser = proc.stdio[3];
  const fromBrowser = proc.stdio[4];
  let next = 0;
  const pending = new Map();
  const listeners = new Set();
  let buf = Buffer.alloc(0);
  fromBrowser.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (let i = buf.indexOf(0); i >= 0; i = buf.indexOf(0)) {
      const msg = JSON.parse(buf.subarray(0, i).toString('utf8'));
      buf = buf.subarray(i + 1);
      if (msg.id !== undefined) {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error) p?.reject(new Error(`${p.method}: ${msg.error.message}`));
        else p?.resolve(msg.result);
      } else {
        for (const l of listeners) l(msg);
      }
    }
  });
  fromBrowser.on('error', () => {});
  toBrowser.on('error', () => {});
  exited.then(() => {
    for (const p of pending.values()) p.reject(new Error(`${p.method}: the browser exited`));
    pending.clear();
  });

  /** A CDP command over the harness pipe. */
  const call = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const id = ++next;
    pending.set(id, { resolve, reject, method });
    toBrowser.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
  });
  const targets = async () => (await call('Target.getTargets')).targetInfos;
  const hasPage = async (url) => (await targets()).some((t) => t.type === 'page' && t.url === url);
  /** Evaluates expr (awaiting a promise) in the first target match accepts. */
  const evalIn = async (match, expression) => {
    let target;
    await waitUntil(async () => { target = (await targets()).find(match); return !!target; }, { what: 'a target to evaluate in' });
    const { sessionId } = await call('Target.attachToTarget', { targetId: target.targetId, flatten: true });
    try {
      const r = await call('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId);
      if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return r.result.value;
    } finally {
      await call('Target.detachFromTarget', { sessionId }).catch(() => {});
    }
  };
  const popup = `chrome-extension://${extensionId}/popup.html`;
  /** Runs expr in the extension's popup page (opened as a tab), which reaches the service worker as the popup's buttons do. */
  const inExtension = async (expr) => {
    const isPopup = (t) => t.url === popup;
    if (!(await targets()).some(isPopup)) {
      await call('Target.createTarget', { url: popup, background: true });
      await waitUntil(async () => (await evalIn(isPopup, "document.readyState === 'complete' && !!globalThis.chrome?.tabs").catch(() => false)) === true,
        { what: "the extension's popup page to load" });
    }
    return evalIn(isPopup, expr);
  };
  /** What "Share this tab" in the popup does, for the tab at url and the coordinator of folder. */
  const share = (url, folder) => inExtension(`(async () => {
    const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === ${JSON.stringify(url)});
    if (!tab) throw new Error('no tab at ' + ${JSON.stringify(url)});
    const r = await chrome.runtime.sendMessage({ type: 'popup:share', tabId: tab.id, folder: ${JSON.stringify(folder)} });
    if (!r.ok) throw new Error(r.error);
    return tab.id;
  })()`);
  /** Stops the extension's service worker, as the browser does to an idle worker. */
  const stopServiceWorker = async () => {
    const sw = (await targets()).find((t) => t.type === 'service_worker' && t.url.includes(extensionId));
    if (!sw) throw new Error("the extension's service worker is not running");
    await call('Target.closeTarget', { targetId: sw.targetId });
  };
  let stopped;
  /** Kills the browser (its process group), waits for it and its native hosts to exit, removes the profile. */
  const stop = () => (stopped ??= (async () => {
    const hosts = hostPids(stateDir);
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
    await waitUntil(() => hosts.every((pid) => !alive(pid)), { what: 'the native hosts to exit with their browser' });
    fs.rmSync(profile, { recursive: true, force: true });
  })());

  try {
    await call('Browser.getVersion');
    for (const url of urls) await call('Target.createTarget', { url });
    // The extension's service worker connects to its native host.
    await waitUntil(() => hostPids(stateDir).length > 0, { timeout: 20_000, what: 'the extension to start its native host' });
  } catch (err) {
    await stop();
    throw err;
  }
  return { pid: proc.pid, profile, call, targets, hasPage, evalIn, inExtension, share, stopServiceWorker, stop, alive: () => alive(proc.pid) };
}
