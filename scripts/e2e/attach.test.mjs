// Attach mode, end to end: the coordinator fronts a browser it did not
// start (--cdp-endpoint), on loopback and on another host — a Chromium in a
// network namespace of the test's own (ip netns, a veth pair, its own
// address), standing in for a remote browser host — over http:// and over a
// bare ws:// endpoint. A wrapped Playwright MCP drives it through the proxy;
// stop lets go of the browser and never kills it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCoordinator, startWrapped, call, playwrightDisconnectLog, noticedDisconnects } from '../lib/mcp.mjs';
import { startPageServer } from '../lib/pageserver.mjs';
import { startChromium } from '../lib/chromium.mjs';
import { alive, waitUntil } from '../lib/procs.mjs';

let work;
const cleanups = [];
before(() => { work = fs.mkdtempSync(path.join(os.tmpdir(), 'bcatt-')); });
after(async () => {
  for (const c of cleanups.reverse()) await c();
  fs.rmSync(work, { recursive: true, force: true });
});

/** Chromium with remote debugging on a port of its own choosing; prefix runs it elsewhere (ip netns exec NS). */
async function startBrowser(prefix = []) {
  const profile = fs.mkdtempSync(path.join(work, 'p-'));
  const browser = await startChromium({ profile, prefix, env: { TMPDIR: profile } });
  cleanups.push(browser.kill);
  return browser;
}

test('attach to a browser on loopback: driven through the proxy, let go on stop, never killed', async (t) => {
  const browser = await startBrowser();
  const pages = await startPageServer();
  t.after(() => pages.close());
  const stateDir = path.join(work, 'lo-state');
  const cwd = fs.mkdtempSync(path.join(work, 'lo-ws-'));
  const coord = await startCoordinator({ stateDir, cwd, args: ['--cdp-endpoint', `http://127.0.0.1:${browser.port}`] });
  t.after(() => coord.close());
  const pw = await startWrapped('playwright', { stateDir, cwd, env: playwrightDisconnectLog });
  t.after(() => pw.close());

  assert.match((await call(pw.client, 'browser_navigate', { url: `${pages.url}/` })).text, /Coordinator test page/);
  const s = (await call(coord.client, 'coordinator_status')).structuredContent;
  assert.equal(s.backend, 'attach');
  assert.equal(s.state, 'running');
  const relaunch = await call(coord.client, 'coordinator_launch_browser', { headless: false }, { allowError: true });
  assert.equal(relaunch.isError, true);
  assert.match(relaunch.text, /not a browser this coordinator started.*reconnects/s);
  const seen = noticedDisconnects(pw);
  await call(coord.client, 'coordinator_stop_browser');
  assert.ok(alive(browser.pid), 'stop lets go of an attached browser; it never kills it');
  await waitUntil(() => noticedDisconnects(pw) > seen, { what: 'Playwright MCP to notice the stop' });
  assert.match((await call(pw.client, 'browser_navigate', { url: `${pages.url}/second` })).text, /Second page/, 'the next call reconnects');
  await coord.close();
  assert.ok(alive(browser.pid), 'the attached browser outlives the coordinator');
});

// The remote host: a network namespace with its own address. Needs root and iproute2.
const canNetns = process.getuid?.() === 0 && spawnSync('ip', ['netns', 'list']).status === 0;
const netnsSkip = canNetns ? false : process.env.CI ? false : 'needs root and iproute2 (ip netns); CI runs it';

function sh(...args) {
  const r = spawnSync(args[0], args.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
}

test('attach to a browser on another host (a network namespace), over http:// and ws://', { skip: netnsSkip }, async (t) => {
  const id = `${process.pid % 10000}`;
  const subnet = `10.${200 + (process.pid % 50)}.${process.pid % 250}`;
  const ns = `bc-remote-${id}`;
  const [hostIf, remoteIf] = [`bch${id}`, `bcr${id}`];
  const hostIP = `${subnet}.1`, remoteIP = `${subnet}.2`;
  sh('ip', 'netns', 'add', ns);
  cleanups.push(() => spawnSync('ip', ['netns', 'del', ns])); // takes the veth pair with it
  sh('ip', 'link', 'add', hostIf, 'type', 'veth', 'peer', 'name', remoteIf);
  sh('ip', 'link', 'set', remoteIf, 'netns', ns);
  sh('ip', 'addr', 'add', `${hostIP}/30`, 'dev', hostIf);
  sh('ip', 'link', 'set', hostIf, 'up');
  sh('ip', 'netns', 'exec', ns, 'ip', 'addr', 'add', `${remoteIP}/30`, 'dev', remoteIf);
  sh('ip', 'netns', 'exec', ns, 'ip', 'link', 'set', remoteIf, 'up');
  sh('ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');

  // Chromium binds its debugging port to loopback only; a remote browser
  // host fronts it with a listener of its own — here a TCP forwarder on the
  // namespace's address.
  const browser = await startBrowser(['ip', 'netns', 'exec', ns]);
  const forwarder = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', `
    const net = require('net');
    net.createServer((c) => { const u = net.connect(${browser.port}, '127.0.0.1'); c.pipe(u).pipe(c); c.on('error', () => u.destroy()); u.on('error', () => c.destroy()); })
      .listen(9222, '${remoteIP}', () => console.log('ready'));`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const forwarderExit = new Promise((r) => forwarder.once('exit', r));
  cleanups.push(async () => { forwarder.kill('SIGKILL'); await forwarderExit; });
  await new Promise((r) => forwarder.stdout.once('data', r));

  // The page is served on the host's side of the link, where the remote browser reaches it.
  const pages = await startPageServer({ host: hostIP });
  t.after(() => pages.close());

  for (const endpoint of [`http://${remoteIP}:9222`, `ws://${remoteIP}:9222${browser.path}`]) {
    await t.test(endpoint.split(':')[0], async () => {
      const stateDir = fs.mkdtempSync(path.join(work, 'net-state-'));
      const cwd = fs.mkdtempSync(path.join(work, 'net-ws-'));
      const coord = await startCoordinator({ stateDir, cwd, args: ['--cdp-endpoint', endpoint] });
      const pw = await startWrapped('playwright', { stateDir, cwd });
      try {
        const nav = await call(pw.client, 'browser_navigate', { url: `${pages.url}/` });
        assert.match(nav.text, /Coordinator test page/);
        const snap = await call(pw.client, 'browser_snapshot');
        assert.match(snap.text, /button "Click me"/);
        const s = (await call(coord.client, 'coordinator_status')).structuredContent;
        assert.equal(s.backend, 'attach');
        assert.match(s.cdpEndpoint, /^http:\/\/127\.0\.0\.1:\d+\/<secret>$/, 'clients use the local proxy, never the remote address');
      } finally {
        await pw.close();
        await coord.close();
      }
    });
  }
  assert.ok(alive(browser.pid), 'the remote browser was never killed');
});
