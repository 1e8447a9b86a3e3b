// End to end: page tools. The coordinator (the official MCP SDK as client),
// a real Chromium and the fixture site (scripts/fixtures/site): the focused
// tab's tools in tools/list with list_changed, the static pair for hosts
// that list once, the seed's progressive surface (its state machine and its
// multi-tab comparison), and page tools that follow a wrapped Playwright MCP,
// an attached browser and HTTP sessions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCoordinator, startWrapped, call, coordinatorDirs } from '../lib/mcp.mjs';
import { startSiteServer } from '../lib/siteserver.mjs';
import { startChromium } from '../lib/chromium.mjs';
import { startHTTPCoordinator, connectHTTP } from '../lib/httpmcp.mjs';
import { watchListChanged, toolNames, untilTools, noListChanged, prices } from '../lib/listchanged.mjs';
import { readStates } from '../lib/statefiles.mjs';

let site;
let work;
before(async () => {
  site = await startSiteServer();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bcpt-'));
});
after(async () => {
  await site?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const dirs = (name) => coordinatorDirs(work, name);

const pageOnly = (names) => names.filter((n) => !n.startsWith('coordinator_'));
const same = (want) => (names) => JSON.stringify(pageOnly(names)) === JSON.stringify([...want].sort());
const seedOnly = (names, want) => JSON.stringify(names) === JSON.stringify([...want].sort());

test('dynamic page tools: the focused tab\'s tools, list_changed on focus, navigation and close, none for tabs not focused', async (t) => {
  const coord = await startCoordinator(dirs('dyn'));
  t.after(() => coord.close());
  assert.equal(coord.client.getServerCapabilities().tools.listChanged, true, 'the server says its tool list changes');
  const changes = watchListChanged(coord.client);
  assert.deepEqual(pageOnly(await toolNames(coord.client)), [], 'no page tools before a tab is focused');

  // Focus: a tab opened in front.
  const flights = (await call(coord.client, 'coordinator_open_tab', { url: `${site.url}/flights.html` })).structuredContent;
  assert.equal(flights.focused, true);
  assert.deepEqual(flights.toolsAvailable, ['search_flights', 'subscribe_newsletter']);
  await untilTools(coord.client, changes, same(['search_flights', 'subscribe_newsletter']));
  const listed = (await coord.client.listTools()).tools.find((x) => x.name === 'search_flights');
  assert.deepEqual(listed.inputSchema.required.sort(), ['depart_date', 'from', 'to']);
  assert.equal(listed.inputSchema.properties.depart_date.format, 'date');
  assert.equal(listed.annotations.readOnlyHint, true, 'a GET search only navigates');
  assert.match(listed.description, /Page text: "/, 'page text is marked as the page\'s');

  // A form the page rejects: the browser's own validation message, nothing submitted.
  const rejected = await call(coord.client, 'search_flights', { from: 'SFO', to: 'JFK', depart_date: '2026-05-10', return_date: '2026-05-01' }, { allowError: true });
  assert.equal(rejected.isError, true);
  assert.match(rejected.text, /"return_date".*Return date must be on or after the departure date/s);
  assert.deepEqual(pageOnly(await toolNames(coord.client)), ['search_flights', 'subscribe_newsletter'], 'still on the form');

  // Navigation: the call reaches the results page; the tools follow.
  const before = changes.count();
  const searched = await call(coord.client, 'search_flights', { from: 'SFO', to: 'JFK', depart_date: '2026-05-01', passengers: 2 });
  assert.equal(searched.structuredContent.navigated, true);
  assert.match(searched.structuredContent.url, /results\.html\?.*from=SFO/);
  assert.equal(prices(searched.text)[0], 900, 'two passengers at Skyways\' cheapest fare');
  await untilTools(coord.client, changes, same(['open_result', 'sort_by_price']));
  assert.ok(changes.count() > before, 'list_changed after the navigation');

  // A tool of the page the tab left: the error says so and gives the new tools.
  const stale = await call(coord.client, 'search_flights', { from: 'SFO', to: 'JFK', depart_date: '2026-05-01' }, { allowError: true });
  assert.equal(stale.isError, true);
  assert.match(stale.text, /flights\.html.*navigated.*open_result, sort_by_price/s);
  const invalid = await call(coord.client, 'open_result', { index: 'first' }, { allowError: true });
  assert.equal(invalid.isError, true);
  assert.match(invalid.text, /"index"/, 'a bad argument is named');

  // Tabs that are not focused: opened behind, their forms changing: no list_changed.
  const quiet = noListChanged(changes, 1500, 'tabs that are not focused');
  const stores = (await call(coord.client, 'coordinator_open_tab', { url: `${site.url}/stores.html`, focus: false })).structuredContent;
  assert.equal(stores.focused, false);
  assert.deepEqual(stores.toolsAvailable, ['find_stores']);
  const inbox = (await call(coord.client, 'coordinator_open_tab', { url: `${site.url}/inbox.html`, focus: false })).structuredContent;
  await quiet;
  const tabs = (await call(coord.client, 'coordinator_list_tabs')).structuredContent;
  assert.equal(tabs.focusedTabId, flights.id);
  const row = (id) => tabs.tabs.find((x) => x.id === id);
  assert.equal(row(flights.id).focused, true);
  assert.equal(row(flights.id).toolCount, 2);
  assert.equal(row(stores.id).toolCount, 1);
  assert.equal(row(inbox.id).toolCount, 4);

  // Focus moves to another tab: list_changed, that tab's tools.
  const moved = changes.next('focus moved');
  const focused = (await call(coord.client, 'coordinator_focus_tab', { tabId: inbox.id })).structuredContent;
  assert.deepEqual(focused.toolsAvailable, ['search_inbox', 'open_thread', 'compose', 'refresh']);
  await moved;
  await untilTools(coord.client, changes, same(['search_inbox', 'open_thread', 'compose', 'refresh']));

  // Closing a tab that is not focused: nothing; closing the focused tab: list_changed, none focused.
  const calm = noListChanged(changes, 1000, 'closing a tab that is not focused');
  await call(coord.client, 'coordinator_close_tab', { tabId: stores.id });
  await calm;
  const closing = changes.next('the focused tab closed');
  assert.deepEqual((await call(coord.client, 'coordinator_close_tab')).structuredContent, { closed: inbox.id });
  await closing;
  assert.deepEqual(pageOnly(await toolNames(coord.client)), []);
  const after = (await call(coord.client, 'coordinator_list_tabs')).structuredContent;
  assert.equal(after.focusedTabId, undefined, 'closing the focused tab leaves none focused');
  assert.ok(after.tabs.every((x) => !x.focused));
});

test('the static pair: a client that lists the tools once', async (t) => {
  for (const args of [[], ['--page-tools', 'static']]) {
    const coord = await startCoordinator({ ...dirs(`static${args.length}`), args });
    t.after(() => coord.close());
    const names = await toolNames(coord.client); // the one and only list
    assert.ok(names.includes('coordinator_page_tools') && names.includes('coordinator_call_page_tool'));
    if (args.length) assert.notEqual(coord.client.getServerCapabilities().tools.listChanged, true, 'static: the list never changes');

    await call(coord.client, 'coordinator_open_tab', { url: `${site.url}/flights.html` });
    const listed = (await call(coord.client, 'coordinator_page_tools')).structuredContent;
    assert.equal(listed.focused, true);
    const search = listed.tools.find((x) => x.name === 'search_flights');
    assert.ok(search, JSON.stringify(listed));
    assert.deepEqual(search.inputSchema.required.sort(), ['depart_date', 'from', 'to']);
    const res = await call(coord.client, 'coordinator_call_page_tool', { name: 'search_flights', arguments: { from: 'SFO', to: 'JFK', depart_date: '2026-05-01' } });
    assert.equal(res.structuredContent.navigated, true);
    assert.deepEqual(res.structuredContent.tools, ['open_result', 'sort_by_price']);
    const opened = await call(coord.client, 'coordinator_call_page_tool', { name: 'open_result', arguments: { index: 1 } });
    assert.match(opened.structuredContent.url, /flight\.html\?id=SW102&price=450/);
    const bad = await call(coord.client, 'coordinator_call_page_tool', { name: 'search_flights', arguments: {} }, { allowError: true });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /is gone|no tool/);
  }
});

/** The browser as its user (or another program) sees it: its CDP endpoint's /json API, through the proxy. */
function browserSide(stateDir) {
  const [st] = readStates(stateDir);
  const json = async (p, method = 'GET') => (await fetch(`${st.cdpEndpoint}/json/${p}`, { method })).text();
  return {
    open: async (url) => JSON.parse(await json(`new?${url}`, 'PUT')),
    close: async (url) => {
      const target = JSON.parse(await json('list')).find((x) => x.type === 'page' && x.url.startsWith(url));
      assert.ok(target, `a page at ${url}`);
      await json(`close/${target.id}`);
    },
  };
}

test('progressive: the seed\'s state machine, step by step, with the exact tool sets', async (t) => {
  const d = dirs('prog');
  const coord = await startCoordinator({ ...d, args: ['--tools', 'progressive'] });
  t.after(() => coord.close());
  const c = coord.client;
  const changes = watchListChanged(c);
  const core = ['list_tabs', 'open_tab', 'focus_tab', 'close_tab'];
  const exactly = async (want) => assert.deepEqual(await toolNames(c), [...want].sort());

  await exactly(['connect_browser']);
  const none = (await call(c, 'connect_browser')).structuredContent;
  assert.deepEqual(Object.keys(none).sort(), ['connected', 'error', 'instructions']);
  assert.equal(none.connected, false);
  assert.equal(none.error, 'No browser found');

  let next = changes.next('connected');
  const connected = (await call(c, 'connect_browser', { launch: true })).structuredContent;
  assert.equal(connected.connected, true);
  assert.equal(connected.tabCount, 0, 'a launched browser shows no tabs until one is opened');
  assert.match(connected.browser.version, /^\d+\./);
  await next;
  await exactly(['list_tabs', 'open_tab']);
  assert.deepEqual((await call(c, 'list_tabs')).structuredContent, { tabs: [], focusedTabId: null });

  // Bad input: an error, no state change, no list_changed.
  const calm = noListChanged(changes, 500, 'bad input');
  for (const [tool, args, re] of [['open_tab', { url: 'no url' }, /not a URL/], ['focus_tab', { tabId: 42 }, /no tab has id 42/]]) {
    const r = await call(c, tool, args, { allowError: true });
    assert.equal(r.isError, true, tool);
    assert.match(r.text, re);
  }
  await calm;
  await exactly(['list_tabs', 'open_tab']);

  next = changes.next('the first tab');
  const opened = (await call(c, 'open_tab', { url: `${site.url}/webmcp.html`, focus: false })).structuredContent;
  assert.deepEqual(Object.keys(opened).sort(), ['focused', 'tab', 'toolsAvailable']);
  assert.equal(opened.focused, false);
  assert.equal(typeof opened.tab.id, 'number');
  await next;
  await exactly(['list_tabs', 'open_tab', 'focus_tab']);

  next = changes.next('focus');
  const focused = (await call(c, 'focus_tab', { tabId: opened.tab.id })).structuredContent;
  assert.equal(focused.success, true);
  assert.deepEqual(focused.tab.id, opened.tab.id);
  await next;
  const webmcp = focused.toolsAvailable;
  assert.ok(webmcp.includes('book_table') && webmcp.includes('get_page_content'), webmcp.join(', '));
  await exactly([...core, ...webmcp]);
  const listed = (await call(c, 'list_tabs')).structuredContent;
  assert.equal(listed.focusedTabId, opened.tab.id);
  assert.deepEqual(listed.tabs.map((x) => [x.id, x.focused, x.toolCount]), [[opened.tab.id, true, webmcp.length]]);

  next = changes.next('a second tab, focused');
  const second = (await call(c, 'open_tab', { url: `${site.url}/signin.html` })).structuredContent;
  assert.equal(second.focused, true);
  assert.deepEqual(second.toolsAvailable, ['sign_in', 'get_page_content']);
  await next;
  await exactly([...core, 'sign_in', 'get_page_content']);
  const signedIn = await call(c, 'sign_in', { email: 'ada@example.com', password: 'correct horse' });
  assert.doesNotMatch(signedIn.text, /correct horse/, 'a password is never echoed');

  next = changes.next('the focused tab closed');
  assert.deepEqual((await call(c, 'close_tab')).structuredContent, { closed: true, tabId: second.tab.id });
  await next;
  await exactly(['list_tabs', 'open_tab', 'focus_tab']);
  assert.equal((await call(c, 'list_tabs')).structuredContent.focusedTabId, null);

  next = changes.next('the last tab closed');
  await call(c, 'close_tab', { tabId: opened.tab.id });
  await next;
  await exactly(['list_tabs', 'open_tab']);

  // The seed's edge cases that happen in the browser. The user opens a tab:
  // from no tabs, focus_tab appears; from some, nothing is sent.
  const user = browserSide(d.stateDir);
  await user.open(`${site.url}/inbox.html`);
  await untilTools(c, changes, (names) => names.includes('focus_tab'), { what: 'a tab the user opened' });
  const quietOpen = noListChanged(changes, 1000, 'a second tab the user opened');
  await user.open(`${site.url}/stores.html`);
  await quietOpen;
  const rows = (await call(c, 'list_tabs')).structuredContent.tabs;
  assert.equal(rows.length, 2);
  // The user closes the focused tab: list_changed, page tools gone, none focused.
  const inbox = rows.find((x) => x.url.endsWith('/inbox.html'));
  await call(c, 'focus_tab', { tabId: inbox.id });
  await untilTools(c, changes, (names) => names.includes('search_inbox'));
  next = changes.next('the user closed the focused tab');
  await user.close(`${site.url}/inbox.html`);
  await next;
  await untilTools(c, changes, (names) => seedOnly(names, ['list_tabs', 'open_tab', 'focus_tab']));
  assert.equal((await call(c, 'list_tabs')).structuredContent.focusedTabId, null);
});

test('progressive: the seed\'s multi-tab comparison, start to end', async (t) => {
  const coord = await startCoordinator({ ...dirs('compare'), args: ['--tools', 'progressive'] });
  t.after(() => coord.close());
  const c = coord.client;
  const changes = watchListChanged(c);

  await call(c, 'connect_browser', { launch: true });
  await call(c, 'open_tab', { url: `${site.url}/jetcheap.html`, focus: false });
  const expedia = (await call(c, 'open_tab', { url: `${site.url}/flights.html` })).structuredContent;
  assert.ok(expedia.toolsAvailable.includes('search_flights'));
  await untilTools(c, changes, (names) => names.includes('search_flights'));

  // [State: TAB FOCUSED, the first shop]
  const first = await call(c, 'search_flights', { from: 'SFO', to: 'NYC', depart_date: '2026-06-05' });
  const priceA = prices(first.text)[0];
  // Claude calls list_tabs and sees the other shop.
  const tabs = (await call(c, 'list_tabs')).structuredContent;
  const other = tabs.tabs.find((x) => /JetCheap/.test(x.title));
  assert.ok(other, JSON.stringify(tabs));
  assert.equal(other.focused, false);
  assert.equal(other.toolCount, 2, 'search_flights and get_page_content');
  // focus_tab: list_changed, the other shop's tools.
  const moved = changes.next('focus_tab');
  await call(c, 'focus_tab', { tabId: other.id });
  await moved;
  await untilTools(c, changes, (names) => names.includes('search_flights') && !names.includes('subscribe_newsletter'));
  const second = await call(c, 'search_flights', { from: 'SFO', to: 'NYC', depart_date: '2026-06-05' });
  const priceB = prices(second.text)[0];
  assert.deepEqual([priceA, priceB], [450, 520]);
  assert.equal(priceB - priceA, 70, 'the first shop is cheaper by $70');
});

test('a wrapped Playwright MCP navigates: the page tools follow (and with --tools progressive --follow-user-focus)', async (t) => {
  for (const args of [[], ['--tools', 'progressive', '--follow-user-focus']]) {
    const d = dirs(`pw${args.length}`);
    const coord = await startCoordinator({ ...d, args });
    t.after(() => coord.close());
    const changes = watchListChanged(coord.client);
    if (args.length) await call(coord.client, 'connect_browser', { launch: true });
    const pw = await startWrapped('playwright', d);
    t.after(() => pw.close());
    await call(pw.client, 'browser_navigate', { url: `${site.url}/flights.html` });
    await untilTools(coord.client, changes, (names) => names.includes('search_flights'), { what: 'the page Playwright MCP opened' });
    await call(pw.client, 'browser_navigate', { url: `${site.url}/inbox.html` });
    await untilTools(coord.client, changes, (names) => names.includes('search_inbox') && !names.includes('search_flights'), { what: 'the next page' });
    const r = await call(coord.client, 'search_inbox', { search_mail: 'lunch' });
    assert.match(r.text, /search_inbox: done/);
    const snap = await call(pw.client, 'browser_snapshot');
    assert.match(snap.text, /inbox\.html\?q=lunch/, 'Playwright MCP sees what the page tool did');
  }
});

test('attach mode: page tools for the attached browser\'s page', async (t) => {
  const profile = fs.mkdtempSync(path.join(work, 'p-'));
  const browser = await startChromium({ profile, url: `${site.url}/flights.html`, env: { TMPDIR: profile } });
  t.after(() => browser.kill());
  const coord = await startCoordinator({ ...dirs('attach'), args: ['--cdp-endpoint', `http://127.0.0.1:${browser.port}`] });
  t.after(() => coord.close());
  const changes = watchListChanged(coord.client);
  await untilTools(coord.client, changes, same(['search_flights', 'subscribe_newsletter']), { what: 'the attached browser\'s page' });
  const res = await call(coord.client, 'search_flights', { from: 'AMS', to: 'LIS', depart_date: '2026-05-01' });
  assert.equal(res.structuredContent.navigated, true);
  await untilTools(coord.client, changes, same(['open_result', 'sort_by_price']));
});

test('HTTP: every session hears list_changed, and they share one focus', async (t) => {
  const d = dirs('http');
  const hc = await startHTTPCoordinator(d);
  t.after(() => hc.stop());
  const [a, b] = await Promise.all([connectHTTP(hc, 'streamable'), connectHTTP(hc, 'sse')]);
  t.after(() => Promise.all([a.close(), b.close()]));
  const ca = watchListChanged(a.client), cb = watchListChanged(b.client);
  const heard = Promise.all([ca.next('session a'), cb.next('session b')]);
  await call(a.client, 'coordinator_open_tab', { url: `${site.url}/flights.html` });
  await heard;
  assert.ok((await toolNames(b.client)).includes('search_flights'), 'the other session lists the tab a session focused');
  const res = await call(b.client, 'search_flights', { from: 'SFO', to: 'JFK', depart_date: '2026-05-01' });
  assert.equal(res.structuredContent.navigated, true);
  await untilTools(a.client, ca, (names) => names.includes('open_result'));
});

test('--tools progressive refuses --mcp with a reason', async () => {
  const { spawnSync } = await import('node:child_process');
  const { binaryPath } = await import('../lib/paths.mjs');
  const r = spawnSync(binaryPath(), ['--tools', 'progressive', '--mcp', 'npx', '@playwright/mcp'], { encoding: 'utf8', env: { ...process.env, BROWSER_COORDINATOR_STATE_DIR: path.join(work, 'refused') } });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /--tools progressive .* cannot serve a child MCP's tools \(--mcp\)/);
  assert.equal(r.stdout, '');
});
