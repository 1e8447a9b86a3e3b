// Tier 2 in a real VS Code: code-server (VS Code in a browser; $BC_CODE_SERVER
// picks the oldest or the newest, scripts/lib/codeserver.mjs) opened
// in a Chromium started with --remote-debugging-port=0, which stands in for
// VS Code's Electron (its CDP port is "VS Code's CDP port"). The Simple
// Browser shows a page from another site than the workbench (localhost vs
// 127.0.0.1), so the page is its own iframe target. With the port file
// pointing at that Chromium, a wrapped Playwright MCP sees exactly one page,
// that one, clicks its button, reads the change, takes a screenshot, and
// never sees the workbench.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { findBrowser, installAdvice } from '../lib/setup.mjs';
import { startChromium } from '../lib/chromium.mjs';
import { ensureCodeServer, codeServerSkip, startCodeServer } from '../lib/codeserver.mjs';
import { startCoordinator, startWrapped, call } from '../lib/mcp.mjs';
import { watchListChanged, untilTools } from '../lib/listchanged.mjs';
import { startPageServer } from '../lib/pageserver.mjs';
import { alive, waitUntil } from '../lib/procs.mjs';
import { root } from '../lib/paths.mjs';

const skip = codeServerSkip();

let tmp, codeServer, standIn, cdpPort, pages, workbench, playwright, contentURL;
const log = (...a) => console.log('[tier2]', ...a);
// Every wait below is a failure guard, not a deadline: each waits for what it
// names and ends as soon as that is seen. On a busy machine code-server's
// workbench can take minutes to answer, so one generous guard serves them all.
const GUARD = 180_000;

before(async () => {
  if (skip) return;
  assert.ok(findBrowser(), `the Tier 2 test needs Chromium: ${installAdvice}`);
  const cs = ensureCodeServer({ log });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bct2-'));
  for (const d of ['ext', 'udd/User', 'ws', 'home', 'prof', 't', 'state']) fs.mkdirSync(path.join(tmp, d), { recursive: true });
  fs.writeFileSync(path.join(tmp, 'udd', 'User', 'settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none', 'workbench.tips.enabled': false, 'telemetry.telemetryLevel': 'off', 'update.mode': 'none',
  }));
  fs.writeFileSync(path.join(tmp, 'config.yaml'), 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  codeServer = await startCodeServer(cs, ['--config', path.join(tmp, 'config.yaml'), '--extensions-dir', path.join(tmp, 'ext'),
    '--user-data-dir', path.join(tmp, 'udd'), '--disable-workspace-trust', '--disable-telemetry', '--disable-update-check',
    '--disable-getting-started-override', path.join(tmp, 'ws')],
  { ...process.env, HOME: path.join(tmp, 'home'), XDG_CONFIG_HOME: path.join(tmp, 'home', '.config'), XDG_DATA_HOME: path.join(tmp, 'home', '.local', 'share') });
  const csURL = codeServer.url;

  // The stand-in for VS Code's Electron.
  standIn = await startChromium({ profile: path.join(tmp, 'prof'), args: ['--window-size=1400,900'] });
  cdpPort = standIn.port;

  // The user opens VS Code and the Simple Browser on a page of another site.
  pages = await startPageServer();
  contentURL = pages.url.replace('127.0.0.1', 'localhost') + '/';
  playwright = await chromium.connectOverCDP(`http://127.0.0.1:${cdpPort}`);
  workbench = playwright.contexts()[0].pages()[0];
  // A failure guard, not a deadline: on a busy machine code-server's workbench takes longer than Playwright's default 30 s to load.
  await workbench.goto(`${csURL}/?folder=${encodeURIComponent(path.join(tmp, 'ws'))}`, { timeout: GUARD });
  await workbench.locator('.monaco-workbench .part.editor').waitFor({ timeout: GUARD });
  // The palette lists the commands known when it opens: the built-in Simple
  // Browser registers its command once the extension host is up. Each look is
  // short (the palette is reopened to see a newer list); the guard is GUARD.
  for (const until = Date.now() + GUARD; ;) {
    await workbench.locator('.part.editor').click({ position: { x: 200, y: 200 } });
    await workbench.keyboard.press('Control+Shift+P');
    try {
      await workbench.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 3000 });
      await workbench.locator('.quick-input-widget input').fill('>Simple Browser: Show');
      await workbench.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'Simple Browser: Show' }).waitFor({ timeout: 3000 });
      break;
    } catch (err) {
      if (Date.now() > until) throw err;
      await workbench.keyboard.press('Escape');
    }
  }
  await workbench.keyboard.press('Enter');
  await workbench.waitForFunction(() => !document.querySelector('.quick-input-widget input')?.value.startsWith('>'), null, { timeout: GUARD });
  await workbench.keyboard.type(contentURL);
  await workbench.keyboard.press('Enter');
  await waitUntil(async () => {
    const list = await (await fetch(`http://127.0.0.1:${cdpPort}/json/list`)).json();
    return list.some((t) => t.type === 'iframe' && t.url.startsWith(contentURL));
  }, { timeout: GUARD, what: 'the Simple Browser\'s page to be its own iframe target' });
  log(`code-server ${cs.version} (VS Code ${cs.vscode}) at ${csURL}, Simple Browser on ${contentURL}, VS Code's CDP port ${cdpPort}`);
});

after(async () => {
  if (skip) return;
  if (workbench) await workbench.screenshot({ path: path.join(root, '.test-artifacts', 'vscode', `tier2-${process.env.BC_CODE_SERVER || 'oldest'}-last.png`) }).catch(() => {});
  await playwright?.close().catch(() => {});
  await standIn?.kill();
  await codeServer?.stop();
  await pages?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('a wrapped Playwright MCP sees VS Code\'s Simple Browser as its only page, clicks and reads it', { skip, timeout: 240_000 }, async (t) => {
  fs.writeFileSync(path.join(tmp, 't', 'vscode-cdp-port'), `${cdpPort}\n`);
  const stateDir = path.join(tmp, 'state');
  const cwd = path.join(tmp, 'ws');
  const coord = await startCoordinator({ stateDir, cwd, env: { TERM_PROGRAM: 'vscode', TMPDIR: path.join(tmp, 't') } });
  t.after(() => coord.close());
  const changes = watchListChanged(coord.client);
  const status = (await call(coord.client, 'coordinator_status')).structuredContent;
  assert.equal(status.vscode?.tier, 2, JSON.stringify(status.vscode));
  const pw = await startWrapped('playwright', { stateDir, cwd });
  t.after(() => pw.close());

  const tabs = await call(pw.client, 'browser_tabs', { action: 'list' });
  const listed = tabs.text.match(/^- \d+:.*$/gm) ?? [];
  assert.equal(listed.length, 1, `exactly one page:\n${tabs.text}`);
  assert.match(listed[0], /localhost:\d+\//, 'the Simple Browser\'s page');
  assert.doesNotMatch(tabs.text, /code-server|127\.0\.0\.1:\d+\/\?folder/, 'never the workbench');

  const snap = await call(pw.client, 'browser_snapshot');
  const ref = snap.text.match(/button "Click me" \[ref=(\w+)\]/)?.[1];
  assert.ok(ref, `the page's button:\n${snap.text}`);
  await call(pw.client, 'browser_click', { element: 'Click me button', target: ref });
  assert.match((await call(pw.client, 'browser_snapshot')).text, /Clicked 1 time\(s\)/, 'the click changed the page');
  // And the user sees it: the Simple Browser inside VS Code shows the change.
  const frame = workbench.frames().find((f) => f.url().includes('localhost:'));
  assert.match(await frame.locator('#out').innerText(), /Clicked 1 time\(s\)/);

  // Page tools: the view's page is the focused tab; its button is a tool.
  await untilTools(coord.client, changes, (names) => names.includes('click_me'), { what: 'the view\'s page tools' });
  const tabsNow = (await call(coord.client, 'coordinator_list_tabs')).structuredContent;
  assert.equal(tabsNow.tabs.length, 1);
  assert.equal(tabsNow.focusedTabId, tabsNow.tabs[0].id, 'the view is the focused tab');
  const clicked = await call(coord.client, 'click_me');
  assert.match(clicked.text, /Clicked 2 time\(s\)/, 'the page tool clicked in the view');
  assert.match(await frame.locator('#out').innerText(), /Clicked 2 time\(s\)/, 'and the user sees it');

  const shot = await call(pw.client, 'browser_take_screenshot', {});
  assert.ok(shot.content.some((c) => c.type === 'image' && c.data.length > 1000), 'a screenshot of the view');
  const attempt = await call(pw.client, 'browser_tabs', { action: 'new' }, { allowError: true });
  assert.equal(attempt.isError, true, 'a new tab is refused in Tier 2');
  assert.ok(alive(codeServer.pid), 'VS Code is still there');
});

test('with no browser view open, coordinator_open_tab opens the Simple Browser through the palette', { skip, timeout: 240_000 }, async (t) => {
  const iframes = async () => (await (await fetch(`http://127.0.0.1:${cdpPort}/json/list`)).json()).filter((x) => x.type === 'iframe');
  // The user closes every editor: no browser view is left. (The Simple
  // Browser covers the editor area: focus the side bar instead.)
  await workbench.locator('.part.sidebar').click({ position: { x: 100, y: 200 } });
  await workbench.keyboard.press('Control+Shift+P');
  await workbench.locator('.quick-input-widget input').fill('>View: Close All Editors');
  await workbench.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'Close All Editors' }).waitFor();
  await workbench.keyboard.press('Enter');
  await waitUntil(async () => (await iframes()).length === 0, { what: 'the Simple Browser to close' });

  const stateDir = path.join(tmp, 'state2');
  const cwd = path.join(tmp, 'ws');
  const coord = await startCoordinator({ stateDir, cwd, env: { TERM_PROGRAM: 'vscode', TMPDIR: path.join(tmp, 't') } });
  t.after(() => coord.close());
  const opened = await call(coord.client, 'coordinator_open_tab', { url: `${contentURL}second` });
  assert.match(opened.text, /Opened tab/);
  assert.ok((await iframes()).some((x) => x.url.startsWith(`${contentURL}second`)), 'the Simple Browser shows the page');
  const tabs = (await call(coord.client, 'coordinator_list_tabs')).structuredContent.tabs;
  assert.equal(tabs.length, 1);
  assert.equal(tabs[0].url, `${contentURL}second`, 'the tab is the Simple Browser\'s page, without its own query parameters');
});
