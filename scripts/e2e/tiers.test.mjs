// VS Code tiers, end to end: a real Chromium stands in for VS Code's
// Electron (its CDP port is "VS Code's CDP port", its page the integrated
// browser). The port file is written, changed and removed while a wrapped
// Playwright MCP works; each of its calls succeeds and lands in the right
// browser, and the proxy port never changes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCoordinator, startWrapped, call, playwrightDisconnectLog, noticedDisconnects } from '../lib/mcp.mjs';
import { startPageServer } from '../lib/pageserver.mjs';
import { startChromium } from '../lib/chromium.mjs';
import { waitUntil } from '../lib/procs.mjs';
import { stateOf } from '../lib/statefiles.mjs';

let pages, work, standIn;

/** VS Code's Electron: a Chromium showing url; { port, pageURL(), kill() }. */
async function startStandIn(url) {
  const chromium = await startChromium({ profile: fs.mkdtempSync(path.join(work, 'v-')), url });
  return {
    port: chromium.port,
    async pageURL() {
      const list = await (await fetch(`http://127.0.0.1:${chromium.port}/json/list`)).json();
      return list.filter((t) => t.type === 'page').map((t) => t.url);
    },
    kill: chromium.kill,
  };
}

before(async () => {
  pages = await startPageServer();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bctier-'));
  standIn = await startStandIn(`${pages.url}/second`);
});
after(async () => {
  await standIn?.kill();
  await pages?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

test('the port file moves a wrapped Playwright MCP between the launched browser and VS Code\'s view, with no failed call', async (t) => {
  const stateDir = path.join(work, 'state');
  const tmp = fs.mkdtempSync(path.join(work, 't-')); // the coordinator's $TMPDIR: the port file lives here
  const portFile = path.join(tmp, 'vscode-cdp-port');
  const cwd = fs.mkdtempSync(path.join(work, 'ws-'));
  const env = { TERM_PROGRAM: 'vscode', TMPDIR: tmp };
  const coord = await startCoordinator({ stateDir, cwd, env });
  t.after(() => coord.close());
  // An agent's next call comes seconds after VS Code restarts; the test's
  // would come within a millisecond, so it waits until Playwright MCP has
  // noticed the switch (see noticedDisconnects).
  const pw = await startWrapped('playwright', { stateDir, cwd, env: playwrightDisconnectLog });
  t.after(() => pw.close());
  const disconnects = () => noticedDisconnects(pw);
  const backend = () => {
    const f = stateOf(stateDir, coord.pid);
    return f.state === 'running' || f.state === 'idle' ? f.backend : `${f.backend} (${f.state})`;
  };
  const status = async () => (await call(coord.client, 'coordinator_status')).structuredContent;

  // Tier 1: no port file, a launched browser.
  let s = await status();
  assert.equal(s.vscode?.tier, 1, JSON.stringify(s.vscode));
  assert.match((await call(pw.client, 'browser_navigate', { url: `${pages.url}/` })).text, /Coordinator test page/);
  assert.equal(backend(), 'tier1');
  const port = s.proxyPort;

  // The extension writes the port file (atomically): the next call lands in VS Code's view.
  let seen = disconnects();
  fs.writeFileSync(`${portFile}.tmp`, `${standIn.port}\n`);
  fs.renameSync(`${portFile}.tmp`, portFile);
  await waitUntil(() => backend() === 'tier2', { what: 'the switch to Tier 2' });
  await waitUntil(() => disconnects() > seen, { what: 'Playwright MCP to notice the switch' });
  const snap = await call(pw.client, 'browser_snapshot');
  assert.match(snap.text, /Second page/, 'the first call after the switch sees VS Code\'s browser view');
  const tabs = await call(pw.client, 'browser_tabs', { action: 'list' });
  assert.equal((tabs.text.match(/^- \d+:/gm) ?? []).length, 1, `one tab only:\n${tabs.text}`);
  await call(pw.client, 'browser_navigate', { url: `${pages.url}/` });
  assert.deepEqual(await standIn.pageURL(), [`${pages.url}/`], 'the navigation happened in VS Code\'s view');
  s = await status();
  assert.equal(s.vscode.tier, 2);
  assert.equal(s.vscode.port, standIn.port);
  assert.equal(s.proxyPort, port, 'the proxy port never changes');
  assert.equal(s.currentUrl, `${pages.url}/`, 'currentUrl follows the view');

  // The port file goes (VS Code restarted without native CDP): back to a launched browser.
  seen = disconnects();
  fs.rmSync(portFile);
  await waitUntil(() => backend() === 'tier1', { what: 'the switch back to Tier 1' });
  await waitUntil(() => disconnects() > seen, { what: 'Playwright MCP to notice the switch' });
  assert.match((await call(pw.client, 'browser_navigate', { url: `${pages.url}/second` })).text, /Second page/);
  assert.deepEqual(await standIn.pageURL(), [`${pages.url}/`], 'VS Code\'s view was left alone');
  assert.equal((await status()).proxyPort, port);
});

test('a wrapped chrome-devtools-mcp works in VS Code\'s view, and nothing it does reaches the rest of VS Code', async (t) => {
  // Puppeteer connects with browser-level commands of its own
  // (Target.getBrowserContexts, setDiscoverTargets, getDevToolsTarget…):
  // Tier 2 lets through those and no other (vscodetier's browserLevel).
  const stateDir = path.join(work, 'state-cdt');
  const tmp = fs.mkdtempSync(path.join(work, 't-'));
  fs.writeFileSync(path.join(tmp, 'vscode-cdp-port'), `${standIn.port}\n`);
  const cwd = fs.mkdtempSync(path.join(work, 'ws-'));
  const coord = await startCoordinator({ stateDir, cwd, env: { TERM_PROGRAM: 'vscode', TMPDIR: tmp } });
  t.after(() => coord.close());
  assert.equal((await call(coord.client, 'coordinator_status')).structuredContent.vscode?.tier, 2);
  const cdt = await startWrapped('chrome-devtools', { stateDir, cwd });
  t.after(() => cdt.close());

  const listed = (await call(cdt.client, 'list_pages')).text.match(/^\d+: .*$/gm) ?? [];
  assert.equal(listed.length, 1, `one page, VS Code's view:\n${listed.join('\n')}`);
  const pageId = Number(listed[0].split(':')[0]);
  await call(cdt.client, 'navigate_page', { pageId, type: 'url', url: `${pages.url}/` });
  assert.deepEqual(await standIn.pageURL(), [`${pages.url}/`], 'the navigation happened in VS Code\'s view');
  const uid = (await call(cdt.client, 'take_snapshot', { pageId })).text.match(/uid=(\S+) button "Click me"/)?.[1];
  assert.ok(uid, 'the page\'s button');
  await call(cdt.client, 'click', { pageId, uid });
  assert.match((await call(cdt.client, 'take_snapshot', { pageId })).text, /Clicked 1 time\(s\)/);
  const shot = await call(cdt.client, 'take_screenshot', { pageId });
  assert.ok(shot.content.some((c) => c.type === 'image' && c.data.length > 1000), 'a screenshot of the view');
  // A trace is the page's own (Tracing on its session), not all of VS Code's.
  assert.match((await call(cdt.client, 'performance_start_trace', { pageId, reload: false, autoStop: true })).text, /performance trace has been stopped/);

  const opened = await call(cdt.client, 'new_page', { url: `${pages.url}/second` }, { allowError: true });
  assert.equal(opened.isError, true);
  assert.match(opened.text, /opening new windows or tabs is refused/);
  const resized = await call(cdt.client, 'resize_page', { pageId, width: 500, height: 400 }, { allowError: true });
  assert.equal(resized.isError, true);
  assert.match(resized.text, /may close or reshape VS Code/);
  assert.deepEqual(await standIn.pageURL(), [`${pages.url}/`], 'VS Code still has its one page');
});
