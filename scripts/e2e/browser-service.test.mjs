// A remote browser service as a backend (--browser-service), end to end
// against the real Browserless platform (scripts/lib/browserless.mjs runs
// it here on Debian's Chromium). What is checked on the service itself,
// by its own API (/sessions, /pressure), never by the coordinator's
// answers: no session before the first need, one session per coordinator
// whatever its clients, a new one on restart, none after stop and exit;
// its limits (two sessions, one queued) said plainly to a third and a
// fourth coordinator; the service killed and brought back; --isolated on
// the service: many agents in the one session, each in a browser context
// of its own (checked on the page server and on the session's browser).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { startCoordinator, startWrapped, call, coordinatorDirs } from '../lib/mcp.mjs';
import { startPageServer, listen } from '../lib/pageserver.mjs';
import { startHTTPCoordinator, connectHTTP } from '../lib/httpmcp.mjs';
import { cdp } from '../lib/cdpclient.mjs';
import { binaryPath } from '../lib/paths.mjs';
import { startBrowserless, getJSON } from '../lib/browserless.mjs';
import { waitUntil } from '../lib/procs.mjs';
import { readStates } from '../lib/statefiles.mjs';

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

// A site that names its visitor: /set?who=X sets an HttpOnly cookie naming
// X (only the browser context that got it sends it back); every request is
// recorded with the Cookie header it carried.
async function cookieSite() {
  const seen = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    if (u.pathname === '/favicon.ico') return res.writeHead(204).end();
    const who = u.searchParams.get('who') ?? '';
    seen.push({ who, cookie: req.headers.cookie ?? '' });
    const headers = { 'content-type': 'text/html; charset=utf-8' };
    if (u.pathname === '/set') headers['set-cookie'] = `agent=${who}; HttpOnly; Path=/; SameSite=Lax`;
    res.writeHead(200, headers).end(`<!doctype html><title>${who} ${u.pathname}</title><h1>${who}</h1>`);
  });
  const s = await listen(server, '127.0.0.1');
  cleanups.push(s.close);
  return {
    page: (who, p = '/page') => `${s.url}${p}?who=${encodeURIComponent(who)}`,
    /** The Cookie headers of the requests that named who. */
    cookies: (who) => seen.filter((r) => r.who === who).map((r) => r.cookie),
  };
}

test('isolated on the service: three agents (two MCP sessions, a CDP client) share its one session, each in a context of its own (tabs and cookies), disposed when it leaves; stop releases the session', async (t) => {
  const svc = await service({ concurrent: 3 });
  const site = await cookieSite();
  const dirs = coordinatorDirs(work, 'iso');
  const env = { BROWSER_COORDINATOR_STATE_DIR: dirs.stateDir };
  const hc = await startHTTPCoordinator({ ...dirs, args: ['--isolated', '--browser-service', svc.url], env: { BROWSERLESS_TOKEN: svc.token } });
  cleanups.push(() => hc.stop());
  const session = async () => {
    const conn = await connectHTTP(hc, 'streamable');
    cleanups.push(conn.close);
    const { agent } = (await call(conn.client, 'coordinator_status')).structuredContent;
    assert.ok(agent?.cdpEndpoint, 'an isolated session is shown its own endpoint');
    return { ...conn, agent };
  };
  const a = await session();
  const b = await session();
  assert.equal((await svc.sessions()).length, 0, 'two agents that need nothing yet open no session');

  // A, through its MCP tools: the site gives it a cookie.
  const began = Date.now();
  await call(a.client, 'coordinator_open_tab', { url: site.page('A', '/set') });
  const firstPage = Date.now() - began;
  t.diagnostic(`A's first page through the service (a session started for it, and A's context): ${firstPage} ms, load ${os.loadavg()[0].toFixed(1)}`);
  const aTab = (await call(a.client, 'coordinator_open_tab', { url: site.page('A') })).structuredContent;
  assert.deepEqual(site.cookies('A'), ['', 'agent=A'], "A's second request carries its cookie (the control), as the server saw it");

  // B, with Playwright on its agent's endpoint, on the same site.
  const bBegan = Date.now();
  const pw = await chromium.connectOverCDP(b.agent.cdpEndpoint);
  t.after(() => pw.close());
  const pb = await pw.contexts()[0].newPage();
  await pb.goto(site.page('B'));
  t.diagnostic(`B's first page, in the running session (a context made for it): ${Date.now() - bBegan} ms, load ${os.loadavg()[0].toFixed(1)}`);
  await pb.goto(site.page('B', '/set'));
  await pb.goto(site.page('B', '/again'));
  assert.equal(await pb.title(), 'B /again');
  assert.deepEqual(site.cookies('B'), ['', '', 'agent=B'], "B's requests never carried A's cookie, and its own once it had it");

  // C, a raw CDP client on the coordinator's own endpoint: an agent of its own for as long as it is connected.
  const [st] = readStates(dirs.stateDir);
  const version = await (await fetch(`${st.cdpEndpoint}/json/version`)).json();
  const raw = await cdp(version.webSocketDebuggerUrl);
  cleanups.push(() => raw.close());
  const cTarget = (await raw.call('Target.createTarget', { url: site.page('C', '/set') })).result?.targetId;
  assert.ok(cTarget, "C's tab was made");
  await waitUntil(() => site.cookies('C').length > 0, { ...guard, what: "C's page to reach the server" });
  assert.deepEqual(site.cookies('C'), [''], "C's request carried neither A's nor B's cookie");

  // The service runs one session for the coordinator and its three agents.
  const sessions = await svc.sessions();
  assert.equal(sessions.length, 1, `one session on the service for the coordinator, not one per agent: ${JSON.stringify(sessions)}`);
  t.diagnostic(`sessions on the service with three isolated agents: ${sessions.length}`);

  // The session's browser, watched through the service on a connection of
  // the test's own: each agent's pages in a context of its own.
  const listed = (await getJSON(`${svc.url}/sessions`, svc.token)).body;
  const endpoint = listed.find((x) => x.type === 'page')?.browserWSEndpoint;
  assert.ok(endpoint, `the service lists the session's pages: ${JSON.stringify(listed)}`);
  const watch = await cdp(`${endpoint}?token=${svc.token}`);
  const targets = async () => (await watch.call('Target.getTargets')).result.targetInfos.filter((x) => x.type === 'page');
  const contexts = async () => (await watch.call('Target.getBrowserContexts')).result.browserContextIds;
  const pages = await targets();
  const contextOf = (who) => [...new Set(pages.filter((x) => new URL(x.url).searchParams.get('who') === who).map((x) => x.browserContextId))];
  const [ca, cb, cc] = [contextOf('A'), contextOf('B'), contextOf('C')];
  for (const [who, c] of [['A', ca], ['B', cb], ['C', cc]]) assert.equal(c.length, 1, `${who}'s pages are in one context: ${JSON.stringify(pages)}`);
  assert.equal(new Set([ca[0], cb[0], cc[0]]).size, 3, 'A, B and C work in three contexts');
  const made = await contexts(); // the contexts made on the browser: not its default one
  assert.ok([ca, cb, cc].every(([c]) => made.includes(c)), `none works in the browser's default context: ${JSON.stringify({ made, ca, cb, cc })}`);
  const cookiesIn = async (ctx) => (await watch.call('Storage.getCookies', { browserContextId: ctx })).result.cookies.map((c) => `${c.name}=${c.value}`);
  assert.deepEqual(await cookiesIn(ca[0]), ['agent=A'], "A's cookie jar, on the browser");
  assert.deepEqual(await cookiesIn(cb[0]), ['agent=B'], "B's cookie jar, on the browser");
  assert.deepEqual(await cookiesIn(cc[0]), ['agent=C'], "C's cookie jar, on the browser");

  // Tabs: each agent sees its own only.
  const tabURLs = async (conn) => (await call(conn.client, 'coordinator_list_tabs')).structuredContent.tabs.map((x) => x.url);
  assert.deepEqual((await tabURLs(a)).sort(), [site.page('A', '/set'), site.page('A')].sort());
  assert.deepEqual(await tabURLs(b), [site.page('B', '/again')]);
  assert.deepEqual(pw.contexts().flatMap((c) => c.pages()).map((p) => p.url()), [site.page('B', '/again')], 'Playwright on B\'s endpoint sees B\'s page only');
  const refused = await call(b.client, 'coordinator_close_tab', { tabId: aTab.id }, { allowError: true });
  assert.ok(refused.isError, `B cannot close A's tab: ${refused.text}`);
  assert.ok((await targets()).some((x) => x.targetId === aTab.id), "A's tab is still open on the browser");

  // A and C leave (A's MCP session ends, C's connection closes): their
  // contexts are disposed on the browser; B's stays, and so does the session.
  await a.transport.terminateSession();
  raw.close();
  for (const [who, [c]] of [['A', ca], ['C', cc]]) {
    await waitUntil(async () => !(await contexts()).includes(c) && !(await targets()).some((x) => x.browserContextId === c),
      { ...guard, what: `${who}'s context to be disposed on the service's browser` });
  }
  assert.ok((await contexts()).includes(cb[0]), "B's context is still there");
  assert.equal(await pb.title(), 'B /again', "B's page works on");
  assert.equal((await svc.sessions()).length, 1);

  // The coordinator's stop (the control API, as `browser-coordinator stop`) releases the session.
  watch.close();
  await pw.close();
  await promisify(execFile)(binaryPath(), ['stop'], { cwd: dirs.cwd, env: { ...process.env, ...env }, timeout: guard.timeout });
  await sessionsBecome(svc, 0, 'the stop');
  t.diagnostic('sessions on the service after stop: 0');
  // The next need opens one again; the coordinator's exit releases it.
  await call(b.client, 'coordinator_open_tab', { url: site.page('B', '/after') });
  await sessionsBecome(svc, 1, "B's need after the stop");
  await hc.stop();
  await sessionsBecome(svc, 0, "the coordinator's exit");
});
