// The everyday browser, end to end: the user's own Chromium, started as a
// user starts it (no debugging port), with the built extension loaded and
// the native host registered in its profile (scripts/lib/userbrowser.mjs),
// behind a coordinator started with --browser everyday. Real child MCPs
// behind `wrap` (Playwright MCP, chrome-devtools-mcp) work in the tabs the
// agent opens; the user's tabs that are not shared stay invisible and
// untouched. And Chrome 144's way without the extension: DevToolsActivePort
// in the profile, one WebSocket for every client.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCoordinator, startWrapped, call, everydayDirs } from '../lib/mcp.mjs';
import { startPageServer } from '../lib/pageserver.mjs';
import { startChromium } from '../lib/chromium.mjs';
import { startUserBrowser, hostPids } from '../lib/userbrowser.mjs';
import { alive, waitUntil } from '../lib/procs.mjs';
import { stateOf } from '../lib/statefiles.mjs';

let pages;
let work;
before(async () => {
  pages = await startPageServer();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bcev-'));
});
after(async () => {
  await pages?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const session = (name) => everydayDirs(work, name);

async function status(coord) {
  return (await call(coord.client, 'coordinator_status')).structuredContent;
}

/** Waits until the coordinator's status satisfies ok; returns it. */
async function statusUntil(coord, ok, what) {
  let s;
  await waitUntil(async () => ok((s = await status(coord))), { timeout: 30_000, what });
  return s;
}

async function tabURLs(coord) {
  return (await call(coord.client, 'coordinator_list_tabs')).structuredContent.tabs.map((t) => t.url);
}

test('everyday: Playwright MCP works in a tab it opened; the shared tab is seen; the user\'s other tabs are untouched; exit lets go', async (t) => {
  const { stateDir, cwd } = session('pw');
  const privateURL = `${pages.url}/second?private`;
  const sharedURL = `${pages.url}/second?shared`;
  const user = await startUserBrowser({ stateDir, profileRoot: work, urls: [privateURL, sharedURL] });
  t.after(() => user.stop());
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => coord.close());

  let s = await statusUntil(coord, (x) => x.state === 'running', 'the coordinator to connect to the user\'s browser');
  assert.equal(s.backend, 'everyday');
  assert.equal(s.everyday.via, 'extension');
  assert.equal(s.everyday.connected, true);
  assert.ok(alive(s.everyday.hostPid), 'status names the native host the browser started');
  assert.equal(s.everyday.tabs, 0, 'nothing shared yet: the agent sees no tab');
  assert.match((await call(coord.client, 'coordinator_status')).text, /Your browser: connected through the extension/);
  const st = stateOf(stateDir, coord.pid);
  assert.equal(st.backend, 'everyday');
  assert.equal(st.everyday.connected, true, 'the state file says what is connected');
  assert.deepEqual(await tabURLs(coord), []);

  const pw = await startWrapped('playwright', { stateDir, cwd });
  t.after(() => pw.close());
  const nav = await call(pw.client, 'browser_navigate', { url: `${pages.url}/` });
  assert.match(nav.text, /Coordinator test page/);
  const snap = await call(pw.client, 'browser_snapshot');
  const ref = snap.text.match(/button "Click me" \[ref=(\w+)\]/)?.[1];
  assert.ok(ref, `the snapshot shows the button:\n${snap.text}`);
  await call(pw.client, 'browser_click', { element: 'Click me button', target: ref });
  assert.match((await call(pw.client, 'browser_snapshot')).text, /Clicked 1 time\(s\)/, 'the click reached the page');
  assert.ok(await user.hasPage(`${pages.url}/`), 'Playwright worked in a tab of the user\'s browser');
  assert.equal(await user.evalIn((x) => x.url === `${pages.url}/`, 'window.clicks'), 1, 'the click happened in the user\'s browser');
  await statusUntil(coord, (x) => x.everyday?.tabs === 1, 'the agent\'s tab counted');
  assert.deepEqual(await tabURLs(coord), [`${pages.url}/`], 'the agent sees its own tab and no other');

  // The user's tabs: still there, where they were, never clicked.
  for (const url of [privateURL, sharedURL]) {
    assert.equal(await user.evalIn((x) => x.url === url, 'location.href + " " + document.title + " " + (window.clicks ?? "-")'), `${url} Second page -`);
  }

  // The user shares a tab: the agent sees it; the private one stays out.
  await user.share(sharedURL, cwd);
  await waitUntil(async () => (await tabURLs(coord)).includes(sharedURL), { what: 'the shared tab to appear' });
  assert.ok(!(await tabURLs(coord)).includes(privateURL), 'the private tab is not listed');
  assert.doesNotMatch((await call(pw.client, 'browser_tabs', { action: 'list' })).text, /private/, 'Playwright does not see the private tab either');

  // The coordinator exits: it lets go. The browser and the user's tabs stay; the agent's tab closes.
  await pw.close();
  await coord.exit(); // its own clean shutdown, not the SDK's kill after 4 s
  await waitUntil(async () => !(await user.hasPage(`${pages.url}/`)), { what: 'the agent\'s tab to close at the coordinator\'s exit' });
  assert.ok(user.alive(), 'the user\'s browser runs on');
  assert.ok(await user.hasPage(privateURL) && await user.hasPage(sharedURL), 'the user\'s tabs stay');
});

test('everyday: chrome-devtools-mcp navigates, snapshots and clicks in the user\'s browser', async (t) => {
  const { stateDir, cwd } = session('cdt');
  const privateURL = `${pages.url}/second?private`;
  const user = await startUserBrowser({ stateDir, profileRoot: work, urls: [privateURL] });
  t.after(() => user.stop());
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => coord.close());
  const cdt = await startWrapped('chrome-devtools', { stateDir, cwd });
  t.after(() => cdt.close());

  const opened = await call(cdt.client, 'new_page', { url: `${pages.url}/` });
  assert.match(opened.text, new RegExp(`${pages.url}/`));
  const list = await call(cdt.client, 'list_pages');
  assert.doesNotMatch(list.text, /private/, `chrome-devtools-mcp sees no unshared tab:\n${list.text}`);
  const id = Number(list.text.match(/^(\d+): .*\[selected\]/m)?.[1]);
  assert.ok(id, `list_pages names the selected page:\n${list.text}`);
  const snap = await call(cdt.client, 'take_snapshot', { pageId: id });
  const uid = snap.text.match(/uid=(\S+) button "Click me"/)?.[1];
  assert.ok(uid, `the snapshot shows the button:\n${snap.text}`);
  await call(cdt.client, 'click', { pageId: id, uid });
  assert.match((await call(cdt.client, 'take_snapshot', { pageId: id })).text, /Clicked 1 time\(s\)/);
  const nav = await call(cdt.client, 'navigate_page', { pageId: id, type: 'url', url: `${pages.url}/second` });
  assert.match(nav.text, /second/i);
  assert.equal(await user.evalIn((x) => x.url === privateURL, 'location.href'), privateURL, 'the user\'s tab was not navigated');
});

test('everyday: two coordinators in two folders each work in their own tabs', async (t) => {
  const { stateDir, cwd: cwdA } = session('two');
  const cwdB = fs.mkdtempSync(path.join(work, 'two-w'));
  const user = await startUserBrowser({ stateDir, profileRoot: work });
  t.after(() => user.stop());
  const a = await startCoordinator({ stateDir, cwd: cwdA, args: ['--browser', 'everyday'] });
  t.after(() => a.close());
  const b = await startCoordinator({ stateDir, cwd: cwdB, args: ['--browser', 'everyday'] });
  t.after(() => b.close());
  await call(a.client, 'coordinator_open_tab', { url: `${pages.url}/?a` });
  const pwB = await startWrapped('playwright', { stateDir, cwd: cwdB });
  t.after(() => pwB.close());
  assert.match((await call(pwB.client, 'browser_navigate', { url: `${pages.url}/?b` })).text, /Coordinator test page/);

  assert.deepEqual(await tabURLs(a), [`${pages.url}/?a`], 'A sees its tab only');
  assert.deepEqual(await tabURLs(b), [`${pages.url}/?b`], 'B sees its tab only');
  assert.doesNotMatch((await call(pwB.client, 'browser_tabs', { action: 'list' })).text, /\?a/, 'B\'s Playwright does not see A\'s tab');
  const aTab = (await call(a.client, 'coordinator_list_tabs')).structuredContent.tabs[0].id;
  const refused = await call(b.client, 'coordinator_close_tab', { tabId: aTab }, { allowError: true });
  assert.equal(refused.isError, true, 'B cannot close A\'s tab');
  assert.ok(await user.hasPage(`${pages.url}/?a`));
});

test('everyday: the extension\'s service worker stops and comes back; work continues by itself', async (t) => {
  const { stateDir, cwd } = session('sw');
  const user = await startUserBrowser({ stateDir, profileRoot: work });
  t.after(() => user.stop());
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => coord.close());
  const pw = await startWrapped('playwright', { stateDir, cwd });
  t.after(() => pw.close());
  assert.match((await call(pw.client, 'browser_navigate', { url: `${pages.url}/` })).text, /Coordinator test page/);

  const hosts = hostPids(stateDir);
  await user.stopServiceWorker();
  // The worker's native host goes with it. Until it has exited, the coordinator may find it still
  // listening and try it once more: "not answered yet: busy" for a moment, then disconnected.
  await waitUntil(() => hosts.every((pid) => !alive(pid)), { what: 'the stopped worker\'s native host to exit' });
  const s = await statusUntil(coord, (x) => x.everyday && !x.everyday.connected && /disconnected/.test(x.everyday.reason),
    'the coordinator to see the extension gone');
  assert.equal(s.state, 'running', 'the backend stays: it waits for the extension');
  assert.match(s.everyday.reason, /disconnected/);
  assert.match((await call(coord.client, 'coordinator_status')).text, /not connected: .*resumes by itself/);
  const refused = await call(coord.client, 'coordinator_open_tab', { url: `${pages.url}/second` }, { allowError: true });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /not connected/, 'a call says the user\'s browser is not connected');
  // Reading says it cannot see, not that there is nothing: the agent's tab is still there.
  const blind = await call(coord.client, 'coordinator_list_tabs', {}, { allowError: true });
  assert.equal(blind.isError, true, `coordinator_list_tabs while disconnected is an error, not "No tabs open.":\n${blind.text}`);
  assert.match(blind.text, /not connected.*nothing in it can be seen.*extension enabled/s, 'it says why and what to do');
  assert.ok(await user.hasPage(`${pages.url}/`), 'the agent\'s tab is still open in the browser');

  // The user opens a tab: the browser wakes the worker, which connects again.
  await user.call('Target.createTarget', { url: `${pages.url}/second?wake` });
  await statusUntil(coord, (x) => x.everyday?.connected && x.everyday.tabs === 1, 'the extension back, with the agent\'s tab');
  assert.deepEqual(await tabURLs(coord), [`${pages.url}/`], 'the agent\'s tab came back; the user\'s new tab stays theirs');
  // Playwright goes on through the same endpoint (its first call may meet the tab it lost).
  await waitUntil(async () => {
    const r = await call(pw.client, 'browser_navigate', { url: `${pages.url}/second` }, { allowError: true });
    return !r.isError && /Second page/.test(r.text);
  }, { timeout: 30_000, what: 'Playwright MCP to work again' });
  assert.match((await call(pw.client, 'browser_snapshot')).text, /Second page/);
});

test('everyday: a coordinator killed with -9 leaves no tab behind: its agent tab closes after the grace period; the user\'s and another folder\'s tabs stay', async (t) => {
  const { stateDir, cwd } = session('kill');
  const otherCwd = fs.mkdtempSync(path.join(work, 'kill-w'));
  const privateURL = `${pages.url}/second?private`;
  const sharedURL = `${pages.url}/second?shared`;
  const user = await startUserBrowser({ stateDir, profileRoot: work, urls: [privateURL, sharedURL] });
  t.after(() => user.stop());
  const other = await startCoordinator({ stateDir, cwd: otherCwd, args: ['--browser', 'everyday'] });
  t.after(() => other.close());
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => coord.close());
  await call(other.client, 'coordinator_open_tab', { url: `${pages.url}/?other` });
  await call(coord.client, 'coordinator_open_tab', { url: `${pages.url}/?killed` });
  await user.share(sharedURL, cwd);
  await waitUntil(async () => (await tabURLs(coord)).includes(sharedURL), { what: 'the shared tab to reach the coordinator' });
  assert.ok(await user.hasPage(`${pages.url}/?killed`), 'the agent\'s tab is open in the user\'s browser');

  process.kill(coord.pid, 'SIGKILL'); // no goodbye, no closing of its tabs
  await waitUntil(() => !alive(coord.pid), { what: 'the killed coordinator to be gone' });
  // Seen in the browser itself (the harness's own pipe): the tab closes by itself.
  await waitUntil(async () => !(await user.hasPage(`${pages.url}/?killed`)), { timeout: 60_000, what: 'the killed coordinator\'s tab to close after the grace period' });
  assert.ok(user.alive(), 'the user\'s browser runs on');
  for (const url of [privateURL, sharedURL]) {
    assert.equal(await user.evalIn((x) => x.url === url, 'location.href'), url, `the user's tab ${url} stays, where it was`);
  }
  assert.ok(await user.hasPage(`${pages.url}/?other`), 'the tab of the coordinator of another folder, still running, stays');
  assert.deepEqual(await tabURLs(other), [`${pages.url}/?other`], 'and that coordinator still works in it');
});

test('everyday: each reconnection of the native host gives Playwright MCP back the tab it had: no tab piles up', async (t) => {
  const { stateDir, cwd } = session('pile');
  const user = await startUserBrowser({ stateDir, profileRoot: work });
  t.after(() => user.stop());
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => coord.close());
  const pw = await startWrapped('playwright', { stateDir, cwd });
  t.after(() => pw.close());
  const agentTabs = async () => (await user.targets()).filter((x) => x.type === 'page' && x.url.startsWith(`${pages.url}/?pile`)).map((x) => x.url);
  assert.match((await call(pw.client, 'browser_navigate', { url: `${pages.url}/?pile=0` })).text, /Coordinator test page/);
  for (let i = 1; i <= 3; i++) {
    // The native host goes (killed); the extension starts another, the coordinator reconnects.
    const [host] = hostPids(stateDir);
    process.kill(host, 'SIGKILL');
    await waitUntil(() => !alive(host), { what: 'the native host to be gone' });
    await statusUntil(coord, (x) => x.everyday?.connected && x.everyday.hostPid !== host, 'the coordinator to reconnect through a new host');
    await waitUntil(async () => {
      const r = await call(pw.client, 'browser_navigate', { url: `${pages.url}/?pile=${i}` }, { allowError: true });
      return !r.isError && /Coordinator test page/.test(r.text);
    }, { timeout: 30_000, what: 'Playwright MCP to work again' });
    // Seen in the browser itself: one agent tab, the one it had, at the new page.
    assert.deepEqual(await agentTabs(), [`${pages.url}/?pile=${i}`], `after reconnection ${i} the agent has one tab`);
  }
});

test('everyday: two coordinators of one folder: one that stops closes its own tabs, never the other\'s', async (t) => {
  const { stateDir, cwd } = session('samefolder');
  const user = await startUserBrowser({ stateDir, profileRoot: work });
  t.after(() => user.stop());
  const a = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => a.close());
  const b = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => b.close());
  await call(a.client, 'coordinator_open_tab', { url: `${pages.url}/?a` });
  await call(b.client, 'coordinator_open_tab', { url: `${pages.url}/?b` });
  await waitUntil(async () => (await tabURLs(b)).length === 2, { what: 'B to see both agent tabs of its folder' });

  await a.exit(); // its own clean shutdown: it closes the tabs it opened
  await waitUntil(async () => !(await user.hasPage(`${pages.url}/?a`)), { what: 'A\'s tab to close at its exit' });
  assert.ok(await user.hasPage(`${pages.url}/?b`), 'B\'s tab stays open');
  assert.deepEqual(await tabURLs(b), [`${pages.url}/?b`], 'and B still works in it');
  assert.match((await call(b.client, 'coordinator_list_tabs')).text, /\?b/);
});

test('everyday: a grace period outlives the service worker: stopped mid-grace and woken, it still closes the killed coordinator\'s tab', async (t) => {
  const { stateDir, cwd } = session('swgrace');
  const user = await startUserBrowser({ stateDir, profileRoot: work });
  t.after(() => user.stop());
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => coord.close());
  await call(coord.client, 'coordinator_open_tab', { url: `${pages.url}/?orphan` });
  process.kill(coord.pid, 'SIGKILL');
  await waitUntil(() => !alive(coord.pid), { what: 'the killed coordinator to be gone' });
  // The extension has seen the coordinator go, and started the grace period ...
  await waitUntil(async () => (await user.inExtension("chrome.runtime.sendMessage({ type: 'popup:get' }).then((s) => s.clients.length)")) === 0,
    { timeout: 30_000, what: 'the extension to see the coordinator gone' });
  // ... and the browser stops its service worker before it ends.
  await user.stopServiceWorker();
  await waitUntil(() => hostPids(stateDir).length === 0, { what: 'the native host to go with the worker' });
  // Something wakes the worker (the user opens a tab): the grace period goes on and ends.
  await user.call('Target.createTarget', { url: `${pages.url}/second?wake` });
  await waitUntil(async () => !(await user.hasPage(`${pages.url}/?orphan`)), { timeout: 60_000, what: 'the killed coordinator\'s tab to close' });
  assert.ok(await user.hasPage(`${pages.url}/second?wake`), 'the user\'s tab stays');
});

/** This process's (pid's) established TCP connections to 127.0.0.1:port. */
function connectionsTo(pid, port) {
  const inodes = new Set();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const want = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return fs.readFileSync(`/proc/${pid}/net/tcp`, 'utf8').split('\n').slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[2] === want && f[3] === '01' && inodes.has(f[9])).length;
}

test('everyday without the extension (Chrome 144+): DevToolsActivePort in the profile, one connection for every client', async (t) => {
  const { stateDir, cwd } = session('port');
  const profile = fs.mkdtempSync(path.join(work, 'p-'));
  const browser = await startChromium({ profile, url: `${pages.url}/second?users`, env: { TMPDIR: profile } });
  t.after(() => browser.kill());
  await waitUntil(() => fs.existsSync(path.join(profile, 'DevToolsActivePort')), { what: 'DevToolsActivePort' });
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday', '--user-data-dir', profile] });
  t.after(() => coord.close());
  const pw = await startWrapped('playwright', { stateDir, cwd });
  t.after(() => pw.close());
  const cdt = await startWrapped('chrome-devtools', { stateDir, cwd });
  t.after(() => cdt.close());

  const s = await statusUntil(coord, (x) => x.state === 'running', 'the coordinator to connect');
  assert.equal(s.backend, 'everyday');
  assert.equal(s.everyday.via, 'devtools-port');
  assert.equal(s.everyday.port, browser.port);
  assert.match((await call(coord.client, 'coordinator_status')).text, /debugging port .*sees every tab/);
  // Through the debugging port the agent sees every tab: Playwright MCP
  // would take the user's tab as its first; it opens one of its own.
  assert.match((await call(cdt.client, 'list_pages')).text, /second\?users/, 'chrome-devtools-mcp sees the user\'s tab');
  await call(pw.client, 'browser_tabs', { action: 'new' });
  assert.match((await call(pw.client, 'browser_navigate', { url: `${pages.url}/` })).text, /Coordinator test page/);
  assert.match((await call(pw.client, 'browser_snapshot')).text, /button "Click me"/);
  assert.match((await call(cdt.client, 'list_pages')).text, /second\?users[\s\S]*Coordinator test page|Coordinator test page[\s\S]*second\?users/,
    'both clients see the same browser');
  assert.equal(connectionsTo(coord.pid, browser.port), 1, 'two clients and the coordinator share one connection to the browser (one prompt)');
  await pw.close();
  await cdt.close();
  await coord.close();
  assert.ok(alive(browser.pid), 'the coordinator never closes the user\'s browser');
});
