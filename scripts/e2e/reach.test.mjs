// What the agent can reach, end to end. In the everyday browser (the
// user's own Chromium with the real extension and native host, see
// scripts/lib/userbrowser.mjs), a raw CDP client on the endpoint `wrap`
// hands out, given one shared tab, reaches that tab's site and nothing
// else: not the cookies of a site the user did not share (a second origin,
// 127.0.0.2), not local files, not the browser's own pages; a tab it opens
// from the page is the agent's and closes when the coordinator lets go. And
// in every backend the tab tools refuse file:// unless the coordinator was
// started with --allow-unrestricted-file-access. Every outcome is read in
// the browser (over the harness's own pipe, or in the page), never from
// the answer that claims it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startCoordinator, call, everydayDirs } from '../lib/mcp.mjs';
import { listen } from '../lib/pageserver.mjs';
import { startUserBrowser } from '../lib/userbrowser.mjs';
import { cdp } from '../lib/cdpclient.mjs';
import { waitUntil } from '../lib/procs.mjs';
import { stateOf } from '../lib/statefiles.mjs';

/** A site on host: ?set=NAME sets an HttpOnly cookie NAME=secret-NAME; /echo answers with the cookies it was sent. */
function site(host) {
  return listen(http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    if (u.pathname === '/favicon.ico') return res.writeHead(204).end();
    if (u.pathname === '/echo') return res.writeHead(200, { 'content-type': 'text/plain' }).end(req.headers.cookie ?? '');
    const headers = { 'content-type': 'text/html; charset=utf-8' };
    const name = u.searchParams.get('set');
    if (name) headers['set-cookie'] = `${name}=secret-${name}; Path=/; HttpOnly`;
    res.writeHead(200, headers).end(`<!doctype html><title>${host}${u.pathname}</title><h1>${u.pathname}</h1>`);
  }), host);
}

const hostFile = 'file:///etc/hostname';
const hostname = fs.readFileSync('/etc/hostname', 'utf8').trim();
const fileRefusal = /local files \(file:\/\/ URLs\) are closed to the agent; start the coordinator with --allow-unrestricted-file-access to open them/;

let shop; // 127.0.0.1: the site of the tab the user shares
let bank; // 127.0.0.2: a site the user did not share
let work;
before(async () => {
  [shop, bank] = await Promise.all([site('127.0.0.1'), site('127.0.0.2')]);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bcreach-'));
});
after(async () => {
  await Promise.all([shop?.close(), bank?.close()]);
  fs.rmSync(work, { recursive: true, force: true });
});

const session = (name) => everydayDirs(work, name);

async function running(coord) {
  await waitUntil(async () => (await call(coord.client, 'coordinator_status')).structuredContent.state === 'running',
    { timeout: 30_000, what: 'the coordinator to connect to the browser' });
}

const tabURLs = async (coord) => (await call(coord.client, 'coordinator_list_tabs')).structuredContent.tabs.map((x) => x.url);

/** A raw CDP client on the coordinator's endpoint (the one `wrap` hands its child), with helpers that assert. */
async function rawClient(t, stateDir, pid) {
  const client = await cdp(stateOf(stateDir, pid).wsEndpoint);
  t.after(() => client.close());
  const ok = async (method, params, sessionId) => {
    const r = await client.call(method, params, sessionId);
    assert.ok(!r.error, `${method}: ${r.error?.message}`);
    return r.result;
  };
  const refused = async (expect, method, params, sessionId) => {
    const r = await client.call(method, params, sessionId);
    assert.ok(r.error, `${method} ${JSON.stringify(params ?? {})} was let through: ${JSON.stringify(r.result)?.slice(0, 300)}`);
    assert.match(r.error.message, expect);
  };
  return { ok, refused };
}

test('everyday: a CDP client given one shared tab reaches its site\'s cookies and nothing else; no file:, no chrome:; a tab it opens from the page is the agent\'s', async (t) => {
  const { stateDir, cwd } = session('ev');
  const bankURL = `${bank.url}/account?set=bank`;
  const sharedURL = `${shop.url}/cart?set=cart`;
  const user = await startUserBrowser({ stateDir, profileRoot: work, urls: [bankURL, sharedURL] });
  t.after(() => user.stop());
  const coord = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => coord.close());
  await running(coord);
  await user.share(sharedURL, cwd);
  await waitUntil(async () => (await tabURLs(coord)).includes(sharedURL), { what: 'the shared tab to reach the coordinator' });

  // The user's cookie jar, read over the harness's own pipe: both sites' cookies are there.
  const jar = async () => (await user.call('Storage.getCookies')).cookies.map((c) => `${c.name}@${c.domain}=${c.value}`).sort();
  assert.deepEqual(await jar(), ['bank@127.0.0.2=secret-bank', 'cart@127.0.0.1=secret-cart']);

  const { ok, refused } = await rawClient(t, stateDir, coord.pid);
  const shared = (await ok('Target.getTargets')).targetInfos.find((x) => x.type === 'page' && x.url === sharedURL);
  assert.ok(shared, 'the client sees the shared tab');
  const { sessionId: s } = await ok('Target.attachToTarget', { targetId: shared.targetId, flatten: true });

  // Reading: the shared site's cookie only, however it is asked for.
  const names = (r) => r.cookies.map((c) => `${c.name}=${c.value}`);
  assert.deepEqual(names(await ok('Storage.getCookies')), ['cart=secret-cart'], 'Storage.getCookies on the browser session');
  assert.deepEqual(names(await ok('Storage.getCookies', {}, s)), ['cart=secret-cart'], 'Storage.getCookies on the page');
  assert.deepEqual(names(await ok('Network.getAllCookies', {}, s)), ['cart=secret-cart'], 'Network.getAllCookies');
  assert.deepEqual(names(await ok('Network.getCookies', { urls: [bankURL] }, s)), [], 'Network.getCookies for the other site');
  assert.deepEqual(names(await ok('Network.getCookies', { urls: [bankURL, sharedURL] }, s)), ['cart=secret-cart']);

  // Writing, deleting, clearing another site's cookies, or every site's: refused, saying what to do.
  const notShared = /is not a site of the tabs the agent sees\. The agent reaches the cookies of the sites of the tabs it sees only \(127\.0\.0\.1\); the user can share a tab of that site/;
  await refused(new RegExp(`^browser-coordinator: Network\\.setCookie refused: its domain 127\\.0\\.0\\.2 ${notShared.source}`),
    'Network.setCookie', { name: 'planted', value: 'x', domain: '127.0.0.2', path: '/' }, s);
  await refused(/Network\.setCookie refused: its url http:\/\/127\.0\.0\.2:\d+\/account\?set=bank is not on a site of the tabs the agent sees/,
    'Network.setCookie', { name: 'bank', value: 'overwritten', url: bankURL }, s);
  await refused(new RegExp(`Storage\\.setCookies refused: cookie planted: its domain 127\\.0\\.0\\.2 ${notShared.source}`),
    'Storage.setCookies', { cookies: [{ name: 'planted', value: 'x', domain: '127.0.0.2' }] });
  const everySite = /refused: it would delete the cookies of every site in the user's browser; delete the cookies of the tabs' sites \(127\.0\.0\.1\) with Network\.deleteCookies and their url/;
  await refused(everySite, 'Storage.clearCookies');
  await refused(everySite, 'Storage.clearCookies', {}, s);
  await refused(everySite, 'Network.clearBrowserCookies', {}, s);
  await refused(/Network\.deleteCookies refused: its domain 127\.0\.0\.2 is not the host of a tab the agent sees/,
    'Network.deleteCookies', { name: 'bank', domain: '127.0.0.2' }, s);
  await refused(/Storage\.clearDataForOrigin for http:\/\/127\.0\.0\.2:\d+ refused: the agent reaches the storage of the origins of the tabs it sees only \(http:\/\/127\.0\.0\.1:\d+\)/,
    'Storage.clearDataForOrigin', { origin: bank.url, storageTypes: 'all' }, s);
  // The other site's pages, fetched as the shared page with the user's cookies past CORS: refused.
  await refused(/Network\.loadNetworkResource of http:\/\/127\.0\.0\.2:\d+\/account\?set=bank refused: it reads a resource with the user's cookies, past the page's CORS checks/,
    'Network.loadNetworkResource', { frameId: shared.targetId, url: bankURL, options: { disableCache: true, includeCredentials: true } }, s);
  // The shared site's own cookies stay the agent's to write.
  await ok('Network.setCookie', { name: 'added', value: 'by-agent', url: sharedURL }, s);

  assert.deepEqual(await jar(), ['added@127.0.0.1=by-agent', 'bank@127.0.0.2=secret-bank', 'cart@127.0.0.1=secret-cart'],
    'the other site\'s cookie is intact and nothing was planted for it; the agent\'s own write landed');
  assert.equal(await user.evalIn((x) => x.url === bankURL, "fetch('/echo').then((r) => r.text())"), 'bank=secret-bank',
    'the unshared tab\'s own page is still sent its cookie, and only it');

  // Local files and the browser's own pages: refused; the tab is where it was.
  await refused(new RegExp(`^browser-coordinator: Page\\.navigate to file:///etc/hostname refused: ${fileRefusal.source}`), 'Page.navigate', { url: hostFile }, s);
  await refused(new RegExp(`Page\\.navigate to file:///etc/ refused: ${fileRefusal.source}`), 'Page.navigate', { url: 'file:///etc/' }, s);
  await refused(new RegExp(`Target\\.createTarget to file:///etc/hostname refused: ${fileRefusal.source}`), 'Target.createTarget', { url: hostFile });
  await refused(new RegExp(`Target\\.createTarget to file:///etc/hostname refused: ${fileRefusal.source}`), 'Target.createTarget', { url: hostFile }, s);
  await refused(/Page\.navigate to chrome:\/\/settings refused: the everyday browser opens web pages only \(http, https, data, blob, about:blank\); chrome: URLs reach past the tabs the user shared/,
    'Page.navigate', { url: 'chrome://settings' }, s);
  await refused(/view-source: URLs reach past/, 'Page.navigate', { url: `view-source:${bankURL}` }, s);
  // The user's tab is theirs to close.
  await refused(/Page\.close refused: this tab is the user's, shared with the agent, and the coordinator never closes a tab it did not open/, 'Page.close', {}, s);
  const pages = async () => (await user.targets()).filter((x) => x.type === 'page').map((x) => x.url);
  assert.deepEqual((await pages()).filter((u) => /^(file|chrome|view-source):/.test(u)), [], 'no tab shows a file or a browser page');
  assert.equal(await user.evalIn((x) => x.url === sharedURL, 'location.href'), sharedURL, 'the shared tab is open, where it was');

  // A tab the page session creates is the agent's: listed as the agent's, and closed when the coordinator lets go.
  const fromPage = `${shop.url}/from-page`;
  await ok('Target.createTarget', { url: fromPage }, s);
  await waitUntil(async () => (await user.hasPage(fromPage)), { what: 'the tab the page session opened' });
  await waitUntil(async () => (await tabURLs(coord)).includes(fromPage), { what: 'the new tab to be the coordinator\'s' });
  await coord.close();
  await waitUntil(async () => !(await user.hasPage(fromPage)), { timeout: 20_000, what: 'the agent\'s tab to close as the coordinator lets go' });
  assert.ok(await user.hasPage(sharedURL) && await user.hasPage(bankURL), 'the user\'s tabs stay');
});

test('coordinator_open_tab and open_tab refuse file:// in a launched browser, saying how to allow it; --allow-unrestricted-file-access opens it', async (t) => {
  const pagesOf = async (client) => (await client.ok('Target.getTargets')).targetInfos.filter((x) => x.type === 'page').map((x) => x.url);

  const { stateDir, cwd } = session('launched');
  const coord = await startCoordinator({ stateDir, cwd });
  t.after(() => coord.close());
  await call(coord.client, 'coordinator_launch_browser');
  const refused = await call(coord.client, 'coordinator_open_tab', { url: hostFile }, { allowError: true });
  assert.equal(refused.isError, true);
  assert.match(refused.text, new RegExp(`^url file:///etc/hostname refused: ${fileRefusal.source}$`));
  const relaunch = await call(coord.client, 'coordinator_launch_browser', { url: 'file:///etc/' }, { allowError: true });
  assert.equal(relaunch.isError, true);
  assert.match(relaunch.text, fileRefusal);
  const client = await rawClient(t, stateDir, coord.pid);
  assert.deepEqual((await pagesOf(client)).filter((u) => u.startsWith('file:')), [], 'no tab of the launched browser shows a file');

  // The progressive surface: open_tab would load the browser's first blank tab itself; refused before.
  const pr = session('progressive');
  const prog = await startCoordinator({ ...pr, args: ['--tools', 'progressive'] });
  t.after(() => prog.close());
  await call(prog.client, 'connect_browser', { launch: true });
  const progRefused = await call(prog.client, 'open_tab', { url: hostFile }, { allowError: true });
  assert.equal(progRefused.isError, true);
  assert.match(progRefused.text, new RegExp(`^open_tab: url file:///etc/hostname refused: ${fileRefusal.source}$`));
  const progClient = await rawClient(t, pr.stateDir, prog.pid);
  assert.deepEqual((await pagesOf(progClient)).filter((u) => u.startsWith('file:')), [], 'the blank tab was not loaded with the file');

  // Allowed: the file opens, and the page shows it.
  const al = session('allowed');
  const allowed = await startCoordinator({ ...al, args: ['--allow-unrestricted-file-access'] });
  t.after(() => allowed.close());
  const opened = await call(allowed.client, 'coordinator_open_tab', { url: hostFile });
  assert.equal(opened.structuredContent.url, hostFile);
  const ac = await rawClient(t, al.stateDir, allowed.pid);
  const page = (await ac.ok('Target.getTargets')).targetInfos.find((x) => x.type === 'page' && x.url === hostFile);
  assert.ok(page, 'the browser shows the file');
  const { sessionId } = await ac.ok('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  let text;
  await waitUntil(async () => (text = (await ac.ok('Runtime.evaluate', { expression: 'document.body?.innerText ?? ""', returnByValue: true }, sessionId)).result.value.trim()) === hostname,
    { what: 'the file\'s content in the page' });
  assert.equal(text, hostname);
});

test('everyday: coordinator_open_tab refuses file:// in the user\'s browser; --allow-unrestricted-file-access opens it there', async (t) => {
  const { stateDir, cwd } = session('evfile');
  const user = await startUserBrowser({ stateDir, profileRoot: work });
  t.after(() => user.stop());
  const shut = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday'] });
  t.after(() => shut.close());
  await running(shut);
  const refused = await call(shut.client, 'coordinator_open_tab', { url: hostFile }, { allowError: true });
  assert.equal(refused.isError, true);
  assert.match(refused.text, new RegExp(`^url file:///etc/hostname refused: ${fileRefusal.source}$`));
  assert.ok(!(await user.targets()).some((x) => x.url.startsWith('file:')), 'no tab of the user\'s browser shows the file');
  await shut.close();

  const open = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday', '--allow-unrestricted-file-access'] });
  t.after(() => open.close());
  await running(open);
  await call(open.client, 'coordinator_open_tab', { url: hostFile });
  let text;
  await waitUntil(async () => (text = String(await user.evalIn((x) => x.url === hostFile, 'document.body?.innerText ?? ""')).trim()) === hostname,
    { what: 'the file\'s content in the user\'s tab' });
  assert.equal(text, hostname);
});
