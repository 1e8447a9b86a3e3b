// Page tools in the everyday browser, end to end: the user's own Chromium
// (scripts/lib/userbrowser.mjs: no debugging port, the built extension
// loaded, the native host registered in its profile) behind a coordinator
// started with --browser everyday, its MCP client the official SDK, the
// pages the fixture site (scripts/fixtures/site). The focused tab — one the
// agent opened, or one the user shared and brought to the front — brings
// its tools with list_changed; the user's tabs that are not shared never
// do; when the extension goes (its service worker stopped) the page tools
// vanish with list_changed and a call says why; when it is back, the tools
// of the tab that was focused come back by themselves. And Chrome 144's
// way in (DevToolsActivePort, no extension) has page tools too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCoordinator, startWrapped, call, everydayDirs } from '../lib/mcp.mjs';
import { startSiteServer } from '../lib/siteserver.mjs';
import { startChromium } from '../lib/chromium.mjs';
import { startUserBrowser } from '../lib/userbrowser.mjs';
import { watchListChanged, toolNames, untilTools, noListChanged, prices } from '../lib/listchanged.mjs';
import { waitUntil } from '../lib/procs.mjs';

let site;
let work;
before(async () => {
  site = await startSiteServer();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bcevp-'));
});
after(async () => {
  await site?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const session = (name) => everydayDirs(work, name);

const pageOnly = (names) => names.filter((n) => !n.startsWith('coordinator_'));
const exactly = (want) => (names) => JSON.stringify(pageOnly(names)) === JSON.stringify([...want].sort());

test('everyday: the agent\'s tab and a shared tab bring their tools; a private tab never does; the extension goes and comes back', async (t) => {
  const { stateDir, cwd } = session('pt');
  const privateURL = `${site.url}/inbox.html`;
  const sharedURL = `${site.url}/stores.html`;
  const user = await startUserBrowser({ stateDir, profileRoot: work, urls: [privateURL, sharedURL] });
  t.after(() => user.stop());
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => coord.close());
  const c = coord.client;
  const changes = watchListChanged(c);
  assert.deepEqual(pageOnly(await toolNames(c)), [], 'no page tools before a tab is focused');
  /** The browser's own id of the page at url (the user's view). */
  const targetOf = async (url) => (await user.targets()).find((x) => x.type === 'page' && x.url.startsWith(url)).targetId;

  // The agent opens the flight page in the user's browser: its tools, with list_changed.
  const opened = (await call(c, 'coordinator_open_tab', { url: `${site.url}/flights.html` })).structuredContent;
  assert.equal(opened.focused, true);
  assert.deepEqual(opened.toolsAvailable, ['search_flights', 'subscribe_newsletter']);
  await untilTools(c, changes, exactly(['search_flights', 'subscribe_newsletter']), { what: 'the agent\'s flight page' });
  assert.ok(await user.hasPage(`${site.url}/flights.html`), 'the tab is in the user\'s browser');
  const searched = await call(c, 'search_flights', { from: 'SFO', to: 'JFK', depart_date: '2026-05-01', passengers: 2 });
  assert.equal(searched.structuredContent.navigated, true);
  assert.match(searched.structuredContent.url, /results\.html\?.*from=SFO/);
  assert.equal(prices(searched.text)[0], 900, 'two passengers at Skyways\' cheapest fare');
  await untilTools(c, changes, exactly(['open_result', 'sort_by_price']), { what: 'the results page' });
  assert.equal(await user.evalIn((x) => x.url.includes('/results.html'), 'new URL(location.href).searchParams.get("passengers")'), '2',
    'the search ran in the user\'s browser');

  // The user's private tab: brought to the front, it brings nothing.
  const quiet = noListChanged(changes, 1500, 'the user\'s private tab in front');
  await user.call('Target.activateTarget', { targetId: await targetOf(privateURL) });
  await quiet;
  assert.deepEqual(pageOnly(await toolNames(c)), ['open_result', 'sort_by_price'], 'the private tab\'s tools never show');
  await assert.rejects(call(c, 'search_inbox', { search_mail: 'x' }), /search_inbox.*not found/, 'a private tab\'s tool cannot be called');
  assert.ok(!(await call(c, 'coordinator_list_tabs')).structuredContent.tabs.some((x) => x.url === privateURL), 'nor is the tab listed');

  // The user shares a tab: it comes in front for the agent, with its tools.
  await user.share(sharedURL, cwd);
  await untilTools(c, changes, exactly(['find_stores']), { what: 'the shared tab\'s tools' });
  assert.deepEqual((await call(c, 'coordinator_list_tabs')).structuredContent.focusedTabId, await targetOf(sharedURL));

  // The user brings the agent's tab to the front, then the shared one: focus follows.
  await user.call('Target.activateTarget', { targetId: await targetOf(`${site.url}/results.html`) });
  await untilTools(c, changes, exactly(['open_result', 'sort_by_price']), { what: 'the agent\'s tab brought to the front by the user' });
  await user.call('Target.activateTarget', { targetId: await targetOf(sharedURL) });
  await untilTools(c, changes, exactly(['find_stores']), { what: 'the shared tab brought to the front by the user' });

  // The extension goes (its service worker stopped): list_changed, no page tools, calls say why.
  const gone = changes.next('the extension gone');
  await user.stopServiceWorker();
  await gone;
  await untilTools(c, changes, exactly([]), { what: 'the page tools gone' });
  const refused = await call(c, 'find_stores', { zip_code: '94103' }, { allowError: true });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /find_stores.*stores\.html.*not connected.*extension disconnected.*resumes by itself/s);
  const staticRefused = await call(c, 'coordinator_call_page_tool', { name: 'find_stores', arguments: { zip_code: '94103' } }, { allowError: true });
  assert.equal(staticRefused.isError, true);
  assert.match(staticRefused.text, /not connected.*resumes by itself/s);
  const blindTools = await call(c, 'coordinator_page_tools', {}, { allowError: true });
  assert.equal(blindTools.isError, true, `coordinator_page_tools while disconnected is an error, not "no page tools":\n${blindTools.text}`);
  assert.match(blindTools.text, /not connected.*nothing in it can be seen.*extension enabled/s);
  const blindTabs = await call(c, 'coordinator_list_tabs', {}, { allowError: true });
  assert.equal(blindTabs.isError, true, `coordinator_list_tabs while disconnected is an error, not "No tabs open.":\n${blindTabs.text}`);
  assert.match(blindTabs.text, /not connected.*nothing in it can be seen.*extension enabled/s);

  // The user opens a tab (private): the browser wakes the worker, which
  // connects again; the tab that was focused is focused again, by itself.
  await user.call('Target.createTarget', { url: `${site.url}/signin.html` });
  await untilTools(c, changes, exactly(['find_stores']), { what: 'the shared tab\'s tools back', ms: 40_000 });
  assert.equal((await call(c, 'coordinator_status')).structuredContent.everyday.connected, true);
  const found = await call(c, 'find_stores', { zip_code: '94103' });
  assert.match(found.structuredContent.pageText, /Harbor Street/, 'the page tool works in the shared tab again');
  assert.equal(await user.evalIn((x) => x.url === sharedURL, 'document.querySelectorAll("li.store").length'), 3, 'in the user\'s own tab');
  assert.ok(!pageOnly(await toolNames(c)).includes('sign_in'), 'the tab that woke the worker is the user\'s, and brings nothing');
  // And the agent's tab, still there, in front again at the user's click.
  await user.call('Target.activateTarget', { targetId: await targetOf(`${site.url}/results.html`) });
  await untilTools(c, changes, exactly(['open_result', 'sort_by_price']), { what: 'the agent\'s tab after the reconnection' });
  const openedResult = await call(c, 'open_result', { index: 1 });
  assert.match(openedResult.structuredContent.url, /flight\.html\?id=/);
  await waitUntil(async () => (await user.targets()).some((x) => x.url.includes('/flight.html?id=')), { what: 'the flight page in the user\'s browser' });
});

test('everyday: page tools follow a wrapped Playwright MCP in the user\'s browser, both in one tab', async (t) => {
  const { stateDir, cwd } = session('pw');
  const user = await startUserBrowser({ stateDir, profileRoot: work });
  t.after(() => user.stop());
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => coord.close());
  const changes = watchListChanged(coord.client);
  const pw = await startWrapped('playwright', { stateDir, cwd });
  t.after(() => pw.close());
  await call(pw.client, 'browser_navigate', { url: `${site.url}/flights.html` });
  await untilTools(coord.client, changes, exactly(['search_flights', 'subscribe_newsletter']), { what: 'the page Playwright MCP opened' });
  const res = await call(coord.client, 'search_flights', { from: 'SFO', to: 'JFK', depart_date: '2026-05-01' });
  assert.equal(res.structuredContent.navigated, true);
  await untilTools(coord.client, changes, exactly(['open_result', 'sort_by_price']), { what: 'the results page' });
  // Playwright MCP, on the extension's same debugger session in that tab, sees what the page tool did and works on.
  const snap = await call(pw.client, 'browser_snapshot');
  assert.match(snap.text, /results\.html\?.*from=SFO/, 'Playwright MCP sees the results page');
  await call(pw.client, 'browser_navigate', { url: `${site.url}/inbox.html` });
  await untilTools(coord.client, changes, exactly(['search_inbox', 'open_thread', 'compose', 'refresh']), { what: 'the next page' });
  assert.match((await call(coord.client, 'search_inbox', { search_mail: 'lunch' })).text, /search_inbox: done/);
  assert.match((await call(pw.client, 'browser_snapshot')).text, /inbox\.html\?q=lunch/, 'Playwright MCP sees the search');
});

test('everyday, the seed\'s progressive surface: the focused tab\'s tools go with the extension and come back with it', async (t) => {
  const { stateDir, cwd } = session('prog');
  const user = await startUserBrowser({ stateDir, profileRoot: work, urls: [`${site.url}/inbox.html`] });
  t.after(() => user.stop());
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday', '--tools', 'progressive'] });
  t.after(() => coord.close());
  const c = coord.client;
  const changes = watchListChanged(c);
  const connected = (await call(c, 'connect_browser')).structuredContent;
  assert.equal(connected.connected, true);
  assert.equal(connected.tabCount, 0, 'the user\'s tab is not the agent\'s');
  const opened = (await call(c, 'open_tab', { url: `${site.url}/flights.html` })).structuredContent;
  assert.equal(opened.focused, true);
  const core = ['list_tabs', 'open_tab', 'focus_tab', 'close_tab'];
  const seed = (want) => (names) => JSON.stringify(names) === JSON.stringify([...want].sort());
  await untilTools(c, changes, seed([...core, ...opened.toolsAvailable]), { what: 'the flight page\'s tools' });

  const gone = changes.next('the extension gone');
  await user.stopServiceWorker();
  await gone;
  await untilTools(c, changes, seed(['list_tabs', 'open_tab']), { what: 'no tab, no page tools' });
  const refused = await call(c, 'search_flights', { from: 'SFO', to: 'JFK', depart_date: '2026-05-01' }, { allowError: true });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /not connected.*resumes by itself/s);
  const blind = await call(c, 'list_tabs', {}, { allowError: true });
  assert.equal(blind.isError, true, `list_tabs while disconnected is an error, not an empty list:\n${blind.text}`);
  assert.match(blind.text, /list_tabs: .*not connected.*nothing in it can be seen.*extension enabled/s);
  const again = (await call(c, 'connect_browser')).structuredContent;
  assert.equal(again.connected, false, 'connect_browser does not say connected while the extension is away');
  assert.match(again.error, /not connected.*extension enabled/s);

  await user.call('Target.createTarget', { url: `${site.url}/signin.html` });
  await untilTools(c, changes, seed([...core, ...opened.toolsAvailable]), { what: 'the focused tab\'s tools back', ms: 40_000 });
  const tabs = (await call(c, 'list_tabs')).structuredContent;
  assert.equal(tabs.focusedTabId, opened.tab.id, 'the same tab, the same id, focused again');
  const searched = await call(c, 'search_flights', { from: 'SFO', to: 'JFK', depart_date: '2026-05-01' });
  assert.ok(prices(searched.text).length > 0, searched.text);
});

test('everyday without the extension (Chrome 144+): page tools for the tab in front', async (t) => {
  const { stateDir, cwd } = session('port');
  const profile = fs.mkdtempSync(path.join(work, 'p-'));
  const browser = await startChromium({ profile, url: `${site.url}/inbox.html`, env: { TMPDIR: profile } });
  t.after(() => browser.kill());
  await waitUntil(() => fs.existsSync(path.join(profile, 'DevToolsActivePort')), { what: 'DevToolsActivePort' });
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday', '--user-data-dir', profile] });
  t.after(() => coord.close());
  const c = coord.client;
  const changes = watchListChanged(c);
  // Through the debugging port the agent sees every tab (the README says
  // so): once connected, the page in front brings its tools.
  assert.equal((await call(c, 'coordinator_list_tabs')).structuredContent.tabs.length, 1);
  await untilTools(c, changes, exactly(['search_inbox', 'open_thread', 'compose', 'refresh']), { what: 'the tab in front' });
  const opened = (await call(c, 'coordinator_open_tab', { url: `${site.url}/flights.html` })).structuredContent;
  assert.deepEqual(opened.toolsAvailable, ['search_flights', 'subscribe_newsletter']);
  await untilTools(c, changes, exactly(['search_flights', 'subscribe_newsletter']), { what: 'the agent\'s flight page' });
  const searched = await call(c, 'search_flights', { from: 'AMS', to: 'LIS', depart_date: '2026-05-01' });
  assert.equal(searched.structuredContent.navigated, true);
  assert.ok(prices(searched.text).length > 0, `the results list prices:\n${searched.text}`);
  await untilTools(c, changes, exactly(['open_result', 'sort_by_price']), { what: 'the results page' });
});
