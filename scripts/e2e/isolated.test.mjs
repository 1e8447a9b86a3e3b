// End to end: many agents on one browser (`--isolated`). Each MCP session
// over HTTP and each connection to the coordinator's endpoint works in a
// browser context of its own: real clients (Playwright and Puppeteer as
// libraries, a raw CDP client, wrapped Playwright MCPs and
// chrome-devtools-mcp, official SDK sessions) never see each other's tabs or
// cookies, checked on the page server (the Cookie header each request
// carries) and on the real browser (its own debugging port, in attach mode).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { call, startWrapped } from '../lib/mcp.mjs';
import { listen } from '../lib/pageserver.mjs';
import { childMCPs } from '../lib/paths.mjs';
import { readStates } from '../lib/statefiles.mjs';
import { startHTTPCoordinator, connectHTTP } from '../lib/httpmcp.mjs';
import { startChromium } from '../lib/chromium.mjs';
import { cdp } from '../lib/cdpclient.mjs';
import { waitUntil } from '../lib/procs.mjs';
import { workspace } from '../lib/workspace.mjs';

const ws = workspace('bciso-');

// The site: /set?who=X sets an HttpOnly cookie naming X (no page script can
// read or carry it: only the browser context that got it sends it back);
// every request is recorded with the Cookie header it carried.
let site;
const siteUp = () => (site ??= startSite());
after(() => site?.then((s) => s.close()));

async function startSite() {
  const seen = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const who = u.searchParams.get('who') ?? '';
    seen.push({ path: u.pathname, who, cookie: req.headers.cookie ?? '' });
    if (u.pathname === '/favicon.ico') return res.writeHead(204).end();
    const headers = { 'content-type': 'text/html; charset=utf-8' };
    if (u.pathname === '/set') headers['set-cookie'] = `agent=${who}; HttpOnly; Path=/; SameSite=Lax`;
    // The button's click is seen by the server too (/clicked).
    const button = u.pathname === '/plain' ? '' : `<button id="b" onclick="fetch('/clicked?who=${encodeURIComponent(who)}'); document.getElementById('out').textContent='clicked by ${who}'">Click me</button><p id="out">not clicked</p>`;
    res.writeHead(200, headers).end(`<!doctype html><title>${who} ${u.pathname}</title><h1>${who}</h1>${button}`);
  });
  const s = await listen(server, '127.0.0.1');
  return {
    ...s,
    page: (who, p = '/page') => `${s.url}${p}?who=${encodeURIComponent(who)}`,
    /** The Cookie headers the requests for who carried. */
    cookies: (who) => seen.filter((r) => r.who === who && r.path !== '/favicon.ico' && r.path !== '/clicked').map((r) => r.cookie),
    requests: (who) => seen.filter((r) => r.who === who && r.path !== '/favicon.ico' && r.path !== '/clicked').length,
    clicks: (who) => seen.filter((r) => r.who === who && r.path === '/clicked').length,
  };
}

/** An MCP session over HTTP and its agent's endpoints (coordinator_status's agent). */
async function session(hc) {
  const conn = await connectHTTP(hc, 'streamable');
  const agent = (await call(conn.client, 'coordinator_status')).structuredContent.agent;
  assert.ok(agent?.cdpEndpoint, 'an isolated session is shown its own endpoint');
  return { ...conn, agent };
}

const tabURLs = async (conn) => (await call(conn.client, 'coordinator_list_tabs')).structuredContent.tabs.map((t) => t.url);

test('isolated: two agents never see each other\'s tabs or cookies (Playwright, Puppeteer, a raw CDP client, /json/list; checked on the server)', async (t) => {
  const s = await siteUp();
  const { stateDir, cwd } = ws.dirs('cookies');
  const hc = await startHTTPCoordinator({ stateDir, cwd, args: ['--isolated'] });
  t.after(() => hc.stop());
  const [st] = readStates(stateDir);
  const a = await session(hc);
  const b = await session(hc);
  t.after(() => Promise.all([a.close(), b.close()]));
  assert.notEqual(a.agent.cdpEndpoint, b.agent.cdpEndpoint);

  // A, with Playwright on its agent's endpoint: the site gives it a cookie.
  const pw = await chromium.connectOverCDP(a.agent.cdpEndpoint);
  t.after(() => pw.close());
  const pa = await pw.contexts()[0].newPage();
  await pa.goto(s.page('A', '/set'));
  await pa.goto(s.page('A'));
  assert.equal(await pa.title(), 'A /page');
  assert.deepEqual(s.cookies('A').at(-1), 'agent=A', 'A\'s own requests carry its cookie (the control)');

  // B, with Puppeteer on its own endpoint, on the same site.
  const pp = await puppeteer.connect({ browserURL: b.agent.cdpEndpoint });
  t.after(() => pp.disconnect());
  const pb = await pp.newPage();
  await pb.goto(s.page('B'));
  assert.equal(await pb.title(), 'B /page');
  // And a raw CDP client on the coordinator's own endpoint: a context of its own.
  const version = await (await fetch(`${st.cdpEndpoint}/json/version`)).json();
  const raw = await cdp(version.webSocketDebuggerUrl);
  t.after(() => raw.close());
  const made = await raw.call('Target.createTarget', { url: s.page('C') });
  assert.ok(made.result?.targetId, JSON.stringify(made));
  await waitUntil(() => s.requests('C') > 0, { timeout: 60_000, what: 'the raw client\'s page to load' });
  assert.deepEqual([...s.cookies('B'), ...s.cookies('C')].filter((c) => c.includes('agent=')), [], 'no request of another agent carried A\'s cookie (the server saw it)');

  // Tabs: each sees its own, through every way there is to look.
  assert.deepEqual(await tabURLs(a), [s.page('A')]);
  assert.deepEqual(await tabURLs(b), [s.page('B')]);
  assert.deepEqual(pw.contexts().flatMap((c) => c.pages()).map((p) => p.url()), [s.page('A')], 'Playwright sees A\'s page only');
  assert.deepEqual((await pp.pages()).map((p) => p.url()), [s.page('B')], 'Puppeteer sees B\'s page only');
  const list = async (endpoint) => (await (await fetch(`${endpoint}/json/list`)).json()).filter((e) => e.type === 'page').map((e) => e.url);
  assert.deepEqual(await list(a.agent.cdpEndpoint), [s.page('A')]);
  assert.deepEqual(await list(b.agent.cdpEndpoint), [s.page('B')]);
  assert.deepEqual(await list(st.cdpEndpoint), [], 'a request to the coordinator\'s own endpoint has no context of its own');
  const targets = (await raw.call('Target.getTargets')).result.targetInfos;
  assert.deepEqual(targets.filter((x) => x.type === 'page').map((x) => x.url), [s.page('C')], 'Target.getTargets shows the raw client its own page only');
  const aTarget = (await (await fetch(`${a.agent.cdpEndpoint}/json/list`)).json()).find((e) => e.type === 'page').id;
  for (const method of ['Target.attachToTarget', 'Target.closeTarget', 'Target.activateTarget']) {
    const r = await raw.call(method, { targetId: aTarget, flatten: true });
    assert.match(r.error?.message ?? '', /No target with given id/, `${method} on another agent's tab is refused`);
  }
  const jar = (await raw.call('Storage.getCookies')).result.cookies;
  assert.deepEqual(jar.map((c) => c.name), [], 'the raw client\'s cookie jar is its own');
  assert.equal((await fetch(`${b.agent.cdpEndpoint}/json/close/${aTarget}`)).status, 404, '/json/close of another agent\'s tab is refused');
  assert.deepEqual(await tabURLs(a), [s.page('A')], 'A\'s tab is still open');
});

test('isolated: an agent\'s browser context is disposed when it leaves (a connection closes, a session ends), checked on the real browser', async (t) => {
  const s = await siteUp();
  // The browser the coordinator attaches to: the test watches it on its own port.
  const real = await startChromium({ profile: fs.mkdtempSync(path.join(ws.work, 'real-')) });
  t.after(() => real.kill());
  const watch = await cdp(real.ws);
  t.after(() => watch.close());
  const contexts = async () => (await watch.call('Target.getBrowserContexts')).result.browserContextIds;
  const pages = async () => (await watch.call('Target.getTargets')).result.targetInfos.filter((x) => x.type === 'page');
  const before = await contexts();

  const { stateDir, cwd } = ws.dirs('dispose');
  const hc = await startHTTPCoordinator({ stateDir, cwd, args: ['--isolated', '--cdp-endpoint', `http://127.0.0.1:${real.port}`] });
  t.after(() => hc.stop());
  const [st] = readStates(stateDir);

  // A connection to the coordinator's endpoint: its context lives as long as it.
  const version = await (await fetch(`${st.cdpEndpoint}/json/version`)).json();
  const raw = await cdp(version.webSocketDebuggerUrl);
  const { targetId } = (await raw.call('Target.createTarget', { url: s.page('leaving') })).result;
  const target = (await pages()).find((x) => x.targetId === targetId);
  assert.ok(target, 'the real browser has the page');
  assert.ok(!before.includes(target.browserContextId) && (await contexts()).includes(target.browserContextId), 'in a context of its own');
  raw.close();
  await waitUntil(async () => !(await pages()).some((x) => x.targetId === targetId) && !(await contexts()).includes(target.browserContextId),
    { timeout: 60_000, what: 'the connection\'s context to be disposed' });

  // An MCP session: its context goes when the session ends.
  const m = await session(hc);
  const tab = (await call(m.client, 'coordinator_open_tab', { url: s.page('session') })).structuredContent;
  const opened = (await pages()).find((x) => x.targetId === tab.id);
  assert.ok(opened && !before.includes(opened.browserContextId), 'the session\'s tab is in a context of its own');
  await m.transport.terminateSession();
  await waitUntil(async () => !(await pages()).some((x) => x.targetId === tab.id) && !(await contexts()).includes(opened.browserContextId),
    { timeout: 60_000, what: 'the session\'s context to be disposed' });
  assert.deepEqual((await contexts()).sort(), [...before].sort(), 'no context is left behind');
  await m.close();
});

test('isolated: the tab and page tools of an HTTP session see that session\'s context, and its stop is its own', async (t) => {
  const s = await siteUp();
  const { stateDir, cwd } = ws.dirs('tools');
  const hc = await startHTTPCoordinator({ stateDir, cwd, args: ['--isolated'] });
  t.after(() => hc.stop());
  const a = await session(hc);
  const b = await session(hc);
  t.after(() => Promise.all([a.close(), b.close()]));

  const ta = (await call(a.client, 'coordinator_open_tab', { url: s.page('A') })).structuredContent;
  assert.ok(ta.toolsAvailable.length > 0, `A's page has its tools: ${JSON.stringify(ta)}`);
  const tb = (await call(b.client, 'coordinator_open_tab', { url: s.page('B', '/plain') })).structuredContent;
  assert.deepEqual(await tabURLs(a), [s.page('A')]);
  assert.deepEqual(await tabURLs(b), [s.page('B', '/plain')]);
  const names = async (conn) => (await conn.client.listTools()).tools.map((x) => x.name).filter((n) => !n.startsWith('coordinator_'));
  const aTools = await names(a);
  assert.ok(aTools.length > 0, 'A lists its page\'s tools');
  assert.deepEqual((await names(b)).filter((n) => aTools.includes(n)), [], 'B lists none of A\'s page\'s tools');

  // A's page tool acts in A's page: seen there by A's own CDP client.
  const pw = await chromium.connectOverCDP(a.agent.cdpEndpoint);
  t.after(() => pw.close());
  const [pa] = pw.contexts()[0].pages();
  assert.equal(pa.url(), s.page('A'), 'a CDP client of A\'s endpoint sees A\'s tab');
  const clickTool = aTools.find((n) => /click/.test(n)) ?? aTools[0];
  await call(a.client, clickTool, {});
  await pa.waitForFunction("document.getElementById('out').textContent === 'clicked by A'"); // runs in the page
  // A's CDP client opens a page: A's tab tools follow it, B's do not see it.
  const p2 = await pw.contexts()[0].newPage();
  await p2.goto(s.page('A2'));
  await waitUntil(async () => (await tabURLs(a)).includes(s.page('A2')), { timeout: 60_000, what: 'A\'s tab list to show the page its CDP client opened' });
  assert.deepEqual(await tabURLs(b), [s.page('B', '/plain')]);

  // B cannot reach A's tab by its id.
  for (const [tool, args] of [['coordinator_focus_tab', { tabId: ta.id }], ['coordinator_close_tab', { tabId: ta.id }]]) {
    const r = await call(b.client, tool, args, { allowError: true });
    assert.ok(r.isError, `${tool} of A's tab from B is refused: ${r.text}`);
    assert.match(r.text, /no such tab/);
  }
  assert.ok((await tabURLs(a)).includes(s.page('A')), 'A\'s tab is still open');

  // B stops "its browser": its context, not the one every agent shares.
  const pid = (await call(a.client, 'coordinator_status')).structuredContent.browser.pid;
  await call(b.client, 'coordinator_stop_browser');
  assert.deepEqual(await tabURLs(b), []);
  assert.deepEqual((await tabURLs(a)).sort(), [s.page('A'), s.page('A2')].sort(), 'A\'s tabs are still open');
  assert.equal((await call(b.client, 'coordinator_status')).structuredContent.browser.pid, pid, 'the browser runs on');
  const refused = await call(b.client, 'coordinator_launch_browser', { headless: false }, { allowError: true });
  assert.ok(refused.isError && /shared by the isolated agents/.test(refused.text), refused.text);
  assert.notEqual(tb.id, undefined);
});

test('isolated: two wrapped Playwright MCPs and a chrome-devtools-mcp on one coordinator work side by side, without a collision', async (t) => {
  const s = await siteUp();
  const { stateDir, cwd } = ws.dirs('side');
  const hc = await startHTTPCoordinator({ stateDir, cwd, args: ['--isolated'] });
  t.after(() => hc.stop());
  const agents = {
    P1: await startWrapped('playwright', { stateDir, cwd }),
    P2: await startWrapped('playwright', { stateDir, cwd }),
    D: await startWrapped('chrome-devtools', { stateDir, cwd }),
  };
  t.after(() => Promise.all(Object.values(agents).map((c) => c.close())));
  const rounds = 6;
  const failures = [];
  const work = {
    async playwright(who, client) {
      for (let i = 0; i < rounds; i++) {
        const url = s.page(`${who}-${i}`);
        const nav = await call(client, 'browser_navigate', { url }, { allowError: true });
        const snap = await call(client, 'browser_snapshot', {}, { allowError: true });
        const ref = /button "Click me" \[ref=(\w+)\]/.exec(snap.text)?.[1];
        const click = ref ? await call(client, 'browser_click', { element: 'Click me button', target: ref }, { allowError: true }) : { isError: true, text: 'no button' };
        for (const [what, r, want] of [['navigate', nav, `${who}-${i} /page`], ['snapshot', snap, `${who}-${i}`], ['click', click, `who=${who}-${i}`]]) {
          if (r.isError || !r.text.includes(want)) failures.push(`${who} round ${i} ${what}: ${r.text.slice(0, 300)}`);
        }
      }
    },
    async devtools(who, client) {
      for (let i = 0; i < rounds; i++) {
        const url = s.page(`${who}-${i}`);
        const nav = await call(client, 'new_page', { url }, { allowError: true });
        const pages = await call(client, 'list_pages', {}, { allowError: true });
        if (nav.isError || pages.isError || !pages.text.includes(url)) failures.push(`${who} round ${i}: ${nav.text.slice(0, 200)} / ${pages.text.slice(0, 300)}`);
        const others = [...pages.text.matchAll(/who=(P\d)/g)];
        if (others.length) failures.push(`${who} round ${i} lists another agent's page: ${pages.text.slice(0, 300)}`);
      }
    },
  };
  await Promise.all([
    work.playwright('P1', agents.P1.client),
    work.playwright('P2', agents.P2.client),
    work.devtools('D', agents.D.client),
  ]);
  assert.deepEqual(failures, [], 'every call did what it was asked in its own page');
  for (const who of ['P1', 'P2', 'D']) {
    for (let i = 0; i < rounds; i++) {
      assert.ok(s.requests(`${who}-${i}`) >= 1, `the server saw ${who}'s round ${i}`);
      if (who !== 'D') assert.equal(s.clicks(`${who}-${i}`), 1, `the server saw ${who}'s click of round ${i}, in its own page, once`);
    }
  }
});

test('HTTP with --mcp: each session gets a Playwright MCP and a browser context of its own by default; --isolated=false shares them', async (t) => {
  const s = await siteUp();
  for (const [args, shared] of [[[], false], [['--isolated=false'], true]]) {
    const { stateDir, cwd } = ws.dirs(`mcp-${shared}`);
    const hc = await startHTTPCoordinator({ stateDir, cwd, args: [...args, '--mcp', ...childMCPs.playwright] });
    t.after(() => hc.stop());
    const a = await connectHTTP(hc, 'streamable');
    const b = await connectHTTP(hc, 'sse');
    t.after(() => Promise.all([a.close(), b.close()]));
    assert.match((await call(a.client, 'browser_navigate', { url: s.page(`nav-${shared}`) })).text, new RegExp(`nav-${shared} /page`));
    const snap = (await call(b.client, 'browser_snapshot')).text;
    if (shared) {
      assert.match(snap, new RegExp(`nav-${shared}`), '--isolated=false: the SSE client sees the page the other client opened');
    } else {
      assert.doesNotMatch(snap, /nav-false/, 'each session has its own child and context: B does not see A\'s page');
    }
    const [sa, sb] = [(await call(a.client, 'coordinator_status')).structuredContent, (await call(b.client, 'coordinator_status')).structuredContent];
    assert.equal(sa.browser.pid, sb.browser.pid, 'one browser');
    assert.equal(sa.child.pid !== sb.child.pid, !shared, shared ? 'one child' : 'a child each');
    await hc.stop();
  }
});
