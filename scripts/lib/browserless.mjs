// The Browserless platform (@browserless.io/browserless), the remote browser
// service the tests run a coordinator against: installed once from npm into
// the cache outside the repository (~/.cache/browser-coordinator, or
// $BROWSER_COORDINATOR_CACHE), and run on this machine with Debian's
// Chromium.
//
// Browserless launches the Chromium of its bundled playwright-core: a link
// at that path (under a PLAYWRIGHT_BROWSERS_PATH of the run's own) points it
// at the system browser. It refuses to start when a route wants a browser
// it lacks (Chrome, Edge, Firefox, WebKit), so it runs with a routes folder
// of its own that holds only Chromium's routes and the management API.
// Pinned, like the other tools the tests install. It asks for Node 24 and
// runs on Node 20 for what the tests use (a CDP session per WebSocket, the
// management API).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { cacheRoot } from './codeserver.mjs';
import { findBrowser } from './setup.mjs';
import { processesWith, waitUntil } from './procs.mjs';

export const BROWSERLESS_VERSION = '2.42.0';

/** Installs Browserless when missing; returns the folder it is installed in. */
export function ensureBrowserless({ log = console.log } = {}) {
  const dir = path.join(cacheRoot(), `browserless-${BROWSERLESS_VERSION}`);
  if (!fs.existsSync(path.join(dir, '.installed'))) {
    // Into a folder of its own, renamed into place when complete: a run that
    // stops half-way leaves nothing that looks installed.
    const tmp = `${dir}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    fs.writeFileSync(path.join(tmp, 'package.json'), '{"private": true}\n');
    log(`npm install @browserless.io/browserless@${BROWSERLESS_VERSION} (in ${dir}; about 600 MB, once) ...`);
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false', `@browserless.io/browserless@${BROWSERLESS_VERSION}`], {
      cwd: tmp, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' },
    });
    fs.writeFileSync(path.join(tmp, '.installed'), `${BROWSERLESS_VERSION}\n`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
  }
  return dir;
}

/** A loopback port free now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * GETs a JSON document with a bearer token; resolves to { status, body },
 * or rejects when nothing answers within the timeout. (Not fetch: Node 20's
 * fetch never settles against a connection closed unread.)
 */
export function getJSON(url, token, { timeout = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: token ? { Authorization: `Bearer ${token}` } : {}, timeout }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        let body = text;
        try { body = JSON.parse(text); } catch { /* not JSON: kept as text */ }
        resolve({ status: res.statusCode, body });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within ${timeout} ms`)));
    req.on('error', reject);
  });
}

/**
 * Starts Browserless with TOKEN, PORT, CONCURRENT and QUEUED, its temporary
 * files (and its browsers' profiles) under work. Resolves once its API
 * answers, to a handle:
 *   url          http://127.0.0.1:PORT, the service's address
 *   token        its token
 *   sessions()   the browser sessions it runs now, by its own API (/sessions)
 *   pressure()   its load (/pressure): running, queued, maxConcurrent, maxQueued
 *   kill()       SIGKILL, as a crash: Browserless and the browsers it started
 *   start()      starts it again on the same port (after kill or stop)
 *   stop()       stops it and everything it started (for cleanup)
 */
export async function startBrowserless({ work, token, concurrent = 2, queued = 0, log = () => {} }) {
  const dir = ensureBrowserless({ log });
  const home = fs.mkdtempSync(path.join(work, 'bl-'));
  const routes = path.join(home, 'routes');
  fs.mkdirSync(routes);
  const built = path.join(dir, 'node_modules', '@browserless.io', 'browserless', 'build');
  for (const r of ['chromium', 'management']) fs.symlinkSync(path.join(built, 'routes', r), path.join(routes, r));
  const browsersPath = path.join(home, 'browsers');
  const exe = execFileSync(process.execPath, ['-e', "process.stdout.write(require('playwright-core').chromium.executablePath())"], {
    cwd: dir, encoding: 'utf8', env: { ...process.env, PLAYWRIGHT_BROWSERS_PATH: browsersPath },
  });
  fs.mkdirSync(path.dirname(exe), { recursive: true });
  fs.symlinkSync(findBrowser(), exe);
  const tmp = path.join(home, 'tmp'); // its browsers' profiles: processesWith(tmp) finds them
  fs.mkdirSync(tmp);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let proc, exited, output = '';

  const start = async () => {
    output = '';
    // Its cwd is the install folder: its /meta route reads playwright-core's browsers.json from there.
    proc = spawn(process.execPath, [path.join(built, 'index.js')], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: {
        ...process.env, TOKEN: token, PORT: String(port), HOST: '127.0.0.1', CONCURRENT: String(concurrent), QUEUED: String(queued),
        ROUTES: routes, PLAYWRIGHT_BROWSERS_PATH: browsersPath, TMPDIR: tmp, DEBUG: 'browserless*,-**:trace,-**:verbose',
      },
    });
    const keep = (d) => { output = (output + d).slice(-20_000); };
    proc.stdout.on('data', keep);
    proc.stderr.on('data', keep);
    exited = new Promise((r) => proc.once('exit', r));
    let gone = false;
    exited.then(() => { gone = true; });
    await waitUntil(async () => {
      if (gone) throw new Error(`Browserless exited at start:\n${output}`);
      return (await getJSON(`${url}/pressure`, token, { timeout: 2000 }).catch(() => null))?.status === 200;
    }, { timeout: 120_000, what: `Browserless to answer on ${url}` });
  };

  // Browserless starts its browsers in process groups of their own: a
  // crash of it leaves them, as a crash of a real service's front would.
  const killBrowsers = async () => {
    for (const { pid } of processesWith(tmp)) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    }
    await waitUntil(() => processesWith(tmp).length === 0, { timeout: 30_000, what: 'the browsers Browserless started to exit' });
  };
  const kill = async () => {
    try { process.kill(-proc.pid, 'SIGKILL'); } catch { /* gone */ }
    await exited;
    await killBrowsers();
  };

  await start();
  return {
    url,
    token,
    output: () => output,
    start,
    kill,
    stop: kill,
    async sessions() {
      // Browserless lists its sessions by asking each browser for its
      // pages: one that is closing fails the whole answer (500, "fetch
      // failed") for a moment. Ask again then.
      let last;
      await waitUntil(async () => {
        last = await getJSON(`${url}/sessions`, token);
        return last.status !== 500;
      }, { timeout: 30_000, what: 'Browserless to list its sessions' });
      if (last.status !== 200) throw new Error(`Browserless /sessions answered ${last.status}: ${JSON.stringify(last.body)}`);
      return last.body.filter((s) => s.type === 'browser');
    },
    async pressure() {
      const { status, body } = await getJSON(`${url}/pressure`, token);
      if (status !== 200) throw new Error(`Browserless /pressure answered ${status}: ${JSON.stringify(body)}`);
      return body.pressure;
    },
  };
}
