// A remote browser service as a backend (--browser-service), end to end
// against the real Browserless platform (scripts/lib/browserless.mjs runs
// it here on Debian's Chromium). What is checked on the service itself,
// by its own API (/sessions, /pressure), never by the coordinator's
// answers: no session before the first need, one session per coordinator
// whatever its clients, a new one on restart, none after stop and exit;
// its limits (two sessions, one queued) said plainly to a third and a
// fourth coordinator; the service killed and brought back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCoordinator, startWrapped, call, coordinatorDirs } from '../lib/mcp.mjs';
import { startPageServer } from '../lib/pageserver.mjs';
import { startBrowserless } from '../lib/browserless.mjs';
import { waitUntil } from '../lib/procs.mjs';

const TOKEN = 'bc-test-token-7f3a';
const guard = { timeout: 120_000 };

let work, pages;
const cleanups = [];
before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bcsvc-'));
  pages = await startPageServer();
});
after(async () => {
  for (const c of cleanups.reverse()) await c();
  await pages?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

async function service(opts) {
  const svc = await startBrowserless({ work, token: TOKEN, log: (m) => console.log(m), ...opts });
  cleanups.push(svc.stop);
  return svc;
}

/** A coordinator on the service; its token comes from the environment, as a user's does. */
async function coordinatorOn(svc, name, args = []) {
  const dirs = coordinatorDirs(work, name);
  const coord = await startCoordinator({ ...dirs, args: ['--browser-service', svc.url, ...args], env: { BROWSERLESS_TOKEN: svc.token } });
  cleanups.push(() => coord.close());
  return { ...coord, dirs };
}

const status = async (coord) => (await call(coord.client, 'coordinator_status')).structuredContent;

async function sessionsBecome(svc, n, what) {
  await waitUntil(async () => (await svc.sessions()).length === n, { ...guard, what: `${what}: ${n} session(s) on the service` });
  return svc.sessions();
}

test('one session per coordinator, at its first need, shared by every client; a new one on restart; none after stop and exit', async (t) => {
  const svc = await service({ concurrent: 3 });
  const coord = await coordinatorOn(svc, 'one');
  const s0 = await status(coord);
  assert.equal(s0.backend, 'service');
  assert.equal(s0.state, 'idle');
  assert.equal((await svc.sessions()).length, 0, 'a coordinator opens no session (and no probe) before a need');

  const pw = await startWrapped('playwright', coord.dirs);
  t.after(() => pw.close());
  const began = Date.now();
  const nav = await call(pw.client, 'browser_navigate', { url: `${pages.url}/` });
  const firstPage = Date.now() - began;
  assert.match(nav.text, /Coordinator test page/);
  t.diagnostic(`first page through the service (a session started for it): ${firstPage} ms`);

  // The coordinator's own tools see the page the agent's MCP opened: the
  // same browser, the one session.
  const tabs = (await call(coord.client, 'coordinator_list_tabs')).structuredContent.tabs;
  assert.ok(tabs.some((tab) => tab.url === `${pages.url}/`), `the coordinator's tabs show the agent's page: ${JSON.stringify(tabs)}`);
  await call(coord.client, 'coordinator_open_tab', { url: `${pages.url}/second` });
  const snap = await call(pw.client, 'browser_tabs', { action: 'list' });
  assert.match(snap.text, /Second page/, 'the agent sees the tab the coordinator opened');
  const [first] = await svc.sessions();
  assert.equal((await svc.sessions()).length, 1, 'one session for the coordinator and every client of it');
  t.diagnostic(`sessions on the service while running: ${(await svc.sessions()).length}`);
  assert.equal((await status(coord)).state, 'running');

  await call(coord.client, 'coordinator_restart_browser');
  await waitUntil(async () => {
    const now = await svc.sessions();
    return now.length === 1 && now[0].id !== first.id;
  }, { ...guard, what: 'the restart to replace the session' });
  t.diagnostic(`sessions on the service after restart: ${(await svc.sessions()).length} (a new one)`);

  await call(coord.client, 'coordinator_stop_browser');
  await sessionsBecome(svc, 0, 'stop');
  assert.equal((await status(coord)).state, 'stopped');
  t.diagnostic('sessions on the service after stop: 0');

  assert.match((await call(pw.client, 'browser_navigate', { url: `${pages.url}/second` })).text, /Second page/, 'the next need opens a session again');
  await sessionsBecome(svc, 1, 'the need after stop');
  await pw.close();
  await coord.exit();
  await sessionsBecome(svc, 0, "the coordinator's exit");
  t.diagnostic('sessions on the service after exit: 0');
});

test('limits: two sessions and one queued; the third coordinator is queued and says so, the fourth is told the service is at capacity, a stop lets the third in', async (t) => {
  const svc = await service({ concurrent: 2, queued: 1 });
  const [a, b, c, d] = await Promise.all(['la', 'lb', 'lc', 'ld'].map((n) => coordinatorOn(svc, n)));
  await call(a.client, 'coordinator_launch_browser');
  await call(b.client, 'coordinator_launch_browser');
  assert.equal((await svc.sessions()).length, 2);

  const third = call(c.client, 'coordinator_launch_browser', {}, { allowError: true });
  await waitUntil(async () => /queued/.test((await status(c)).waiting ?? ''), { ...guard, what: "the third coordinator's status to say it is queued" });
  const queuedStatus = await status(c);
  assert.equal(queuedStatus.state, 'launching');
  t.diagnostic(`third coordinator, queued: ${queuedStatus.waiting}`);
  assert.equal((await svc.pressure()).queued, 1, 'the service holds the third session in its queue');

  const fourth = await call(d.client, 'coordinator_launch_browser', {}, { allowError: true });
  assert.equal(fourth.isError, true);
  assert.match(fourth.text, /at capacity/);
  assert.match(fourth.text, /2 of 2 sessions running/);
  t.diagnostic(`fourth coordinator: ${fourth.text.split('\n')[0]}`);
  const dStatus = await status(d);
  assert.notEqual(dStatus.state, 'running');
  assert.match(dStatus.lastError, /at capacity/);

  await call(a.client, 'coordinator_stop_browser');
  const got = await third;
  assert.ok(!got.isError, `the queued start went on once a slot was free: ${got.text}`);
  assert.equal((await status(c)).state, 'running');
  const sessions = await sessionsBecome(svc, 2, 'the queued session to run');
  t.diagnostic(`sessions on the service: ${sessions.length} (b and c), queued: ${(await svc.pressure()).queued}`);
  assert.equal((await svc.pressure()).queued, 0);
});

test('a start that gives up while queued leaves nothing on the service', async (t) => {
  const svc = await service({ concurrent: 1, queued: 1 });
  const a = await coordinatorOn(svc, 'qa');
  const b = await coordinatorOn(svc, 'qb', ['--browser-service-timeout', '5s']);
  await call(a.client, 'coordinator_launch_browser');
  const gaveUp = await call(b.client, 'coordinator_launch_browser', {}, { allowError: true });
  assert.equal(gaveUp.isError, true);
  assert.match(gaveUp.text, /queued the session and had no slot for it within 5s/);
  assert.match(gaveUp.text, /--browser-service-timeout/);
  assert.notEqual((await status(b)).state, 'running');
  t.diagnostic(`a start that gave up: ${gaveUp.text.split('\n')[0]}`);
  // Browserless keeps the job of a connection that left in its queue until
  // a slot frees; it must then start no browser for it.
  await call(a.client, 'coordinator_stop_browser');
  await waitUntil(async () => {
    const p = await svc.pressure();
    return p.running === 0 && p.queued === 0;
  }, { ...guard, what: 'the queue to drain once the slot was free' });
  assert.equal((await svc.sessions()).length, 0, 'no browser was started for the start that gave up');
  await call(a.client, 'coordinator_launch_browser');
  assert.equal((await svc.sessions()).length, 1);
});

test('the service killed and brought back: the coordinator says it is unreachable, and works again once it is back', async (t) => {
  const svc = await service({ concurrent: 2 });
  const coord = await coordinatorOn(svc, 'kill');
  await call(coord.client, 'coordinator_open_tab', { url: `${pages.url}/` });
  assert.equal((await svc.sessions()).length, 1);

  await svc.kill();
  await waitUntil(async () => (await status(coord)).state === 'crashed', { ...guard, what: 'the coordinator to notice the service went away' });
  const crashed = await status(coord);
  assert.match(crashed.lastError, /does not answer/);
  t.diagnostic(`status after the kill: ${crashed.state}: ${crashed.lastError}`);

  const refused = await call(coord.client, 'coordinator_list_tabs', {}, { allowError: true });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /does not answer/);
  assert.notEqual((await status(coord)).state, 'running', 'never "running" while the service is down');

  await svc.start();
  // The next need works once the service is back (the coordinator may have
  // opened its new session on its own by then, as it relaunches a crashed
  // browser: either way one session).
  const opened = await call(coord.client, 'coordinator_open_tab', { url: `${pages.url}/second` });
  assert.ok(!opened.isError, opened.text);
  assert.equal((await status(coord)).state, 'running');
  await sessionsBecome(svc, 1, 'the need once the service is back');
  const tabs = (await call(coord.client, 'coordinator_list_tabs')).structuredContent.tabs;
  assert.ok(tabs.some((tab) => tab.url === `${pages.url}/second`), JSON.stringify(tabs));

  // A launch with a url after a stop: the session's first page, in place
  // of the browser's startup page, as a launched browser's.
  await call(coord.client, 'coordinator_stop_browser');
  await sessionsBecome(svc, 0, 'the stop');
  const launched = await call(coord.client, 'coordinator_launch_browser', { url: `${pages.url}/third` });
  assert.ok(!launched.isError, launched.text);
  await sessionsBecome(svc, 1, 'the launch');
  const first = (await call(coord.client, 'coordinator_list_tabs')).structuredContent.tabs;
  assert.deepEqual(first.map((tab) => tab.url), [`${pages.url}/third`], 'the first page, in place of the blank one');
});
