// End to end: the coordinator and real child MCPs (@playwright/mcp,
// chrome-devtools-mcp) behind `wrap`, driven by the official MCP TypeScript
// SDK, against pages served on loopback and a real Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCoordinator, startWrapped, call, playwrightDisconnectLog, noticedDisconnects } from '../lib/mcp.mjs';
import { startPageServer } from '../lib/pageserver.mjs';
import { alive, processesWith, waitUntil } from '../lib/procs.mjs';
import { stateOf, readStates } from '../lib/statefiles.mjs';

const coordinatorTools = [
  'coordinator_call_page_tool', 'coordinator_close_tab', 'coordinator_focus_tab', 'coordinator_handle_dialog', 'coordinator_launch_browser', 'coordinator_list_browsers',
  'coordinator_list_tabs', 'coordinator_open_tab', 'coordinator_page_tools', 'coordinator_restart_browser', 'coordinator_status',
  'coordinator_stop_browser',
];

let pages;
let work; // a private folder: state dir, workspace, child MCP output
before(async () => {
  pages = await startPageServer();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bce2e-'));
});
after(async () => {
  await pages?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

function newSession(name) {
  const stateDir = path.join(work, `${name}-state`);
  const cwd = path.join(work, `${name}-ws`);
  fs.mkdirSync(cwd, { recursive: true });
  return { stateDir, cwd };
}

async function status(coord) {
  return (await call(coord.client, 'coordinator_status')).structuredContent;
}

test('Playwright MCP through wrap: lazy launch, restart, stop, relaunch', async (t) => {
  const { stateDir, cwd } = newSession('pw');
  const coord = await startCoordinator({ stateDir, cwd });
  t.after(() => coord.close());

  const { tools } = await coord.client.listTools();
  assert.deepEqual(tools.map((x) => x.name).sort(), coordinatorTools);
  for (const tool of tools) {
    assert.ok(tool.description.length > 40, `${tool.name} has a description an agent can act on`);
    assert.equal(typeof tool.annotations.readOnlyHint, 'boolean', `${tool.name} says whether it is read-only`);
    assert.ok(tool.outputSchema, `${tool.name} declares its output`);
  }
  let s = await status(coord);
  assert.equal(s.state, 'idle');
  assert.equal(s.browser, undefined, 'no browser: the field is absent (portable schemas have no null)');
  assert.deepEqual(processesWith(path.join(stateDir, 'profiles')), [], 'no browser at start');

  const pw = await startWrapped('playwright', { stateDir, cwd });
  t.after(() => pw.close());
  assert.ok((await pw.client.listTools()).tools.some((x) => x.name === 'browser_navigate'));
  assert.equal((await status(coord)).state, 'idle', 'a child MCP starting does not launch the browser');

  const nav = await call(pw.client, 'browser_navigate', { url: `${pages.url}/` });
  assert.match(nav.text, /Coordinator test page/);
  s = await status(coord);
  assert.equal(s.state, 'running', 'the first browser call launched the browser');
  assert.equal(s.currentUrl, `${pages.url}/`, 'the coordinator follows the page in front');
  const endpoint = s.cdpEndpoint;
  const firstPid = s.browser.pid;
  assert.equal(stateOf(stateDir, coord.pid).currentUrl, `${pages.url}/`, 'currentUrl is in the state file');

  const snap = await call(pw.client, 'browser_snapshot');
  const ref = snap.text.match(/button "Click me" \[ref=(\w+)\]/)?.[1];
  assert.ok(ref, `snapshot shows the button:\n${snap.text}`);
  await call(pw.client, 'browser_click', { element: 'Click me button', target: ref });
  assert.match((await call(pw.client, 'browser_snapshot')).text, /Clicked 1 time\(s\)/, 'the click changed the page');

  await call(coord.client, 'coordinator_restart_browser');
  s = await status(coord);
  assert.equal(s.cdpEndpoint, endpoint, 'the endpoint survives a restart');
  assert.notEqual(s.browser.pid, firstPid, 'a new browser runs');
  assert.ok(!alive(firstPid), 'the old browser is gone');
  // The very next Playwright call goes through the same endpoint to the new browser.
  const after = await call(pw.client, 'browser_navigate', { url: `${pages.url}/second` });
  assert.match(after.text, /Second page/);

  await call(coord.client, 'coordinator_stop_browser');
  s = await status(coord);
  assert.equal(s.state, 'stopped');
  assert.equal(s.cdpEndpoint, endpoint);
  await waitUntil(() => processesWith(path.join(stateDir, 'profiles')).length === 0, { what: 'the stopped browser to exit' });
  // The next child call launches a browser again.
  const again = await call(pw.client, 'browser_navigate', { url: `${pages.url}/` });
  assert.match(again.text, /Coordinator test page/);
  assert.equal((await status(coord)).state, 'running');
});

test('chrome-devtools-mcp through wrap: lazy launch, restart, stop, relaunch', async (t) => {
  const { stateDir, cwd } = newSession('cdt');
  const coord = await startCoordinator({ stateDir, cwd });
  t.after(() => coord.close());
  const cdt = await startWrapped('chrome-devtools', { stateDir, cwd });
  t.after(() => cdt.close());
  assert.equal((await status(coord)).state, 'idle');

  const pageId = async () => {
    const list = await call(cdt.client, 'list_pages');
    const id = list.text.match(/^(\d+): .*\[selected\]/m)?.[1];
    assert.ok(id, `list_pages names the selected page:\n${list.text}`);
    return Number(id);
  };
  let id = await pageId();
  assert.equal((await status(coord)).state, 'running', 'the first browser call launched the browser');
  const nav = await call(cdt.client, 'navigate_page', { pageId: id, type: 'url', url: `${pages.url}/` });
  assert.match(nav.text, /Coordinator test page/);
  const snap = await call(cdt.client, 'take_snapshot', { pageId: id });
  assert.match(snap.text, /button "Click me"/);
  const endpoint = (await status(coord)).cdpEndpoint;

  await call(coord.client, 'coordinator_restart_browser');
  assert.equal((await status(coord)).cdpEndpoint, endpoint);
  // The very next call succeeds; chrome-devtools-mcp notices the new browser itself.
  id = await pageId();
  const after = await call(cdt.client, 'navigate_page', { pageId: id, type: 'url', url: `${pages.url}/second` });
  assert.match(after.text, /Second page/);

  await call(coord.client, 'coordinator_stop_browser');
  assert.equal((await status(coord)).state, 'stopped');
  await pageId();
  assert.equal((await status(coord)).state, 'running', 'the next child call launched the browser again');
});

test('kill -9 of the coordinator leaves no browser, and the next start sweeps what it left', async (t) => {
  const { stateDir, cwd } = newSession('kill');
  const coord = await startCoordinator({ stateDir, cwd });
  await call(coord.client, 'coordinator_launch_browser');
  const st = stateOf(stateDir, coord.pid);
  assert.equal(st.state, 'running');
  const profiles = path.join(stateDir, 'profiles');
  const [profile] = fs.readdirSync(profiles);
  assert.ok(profile, 'a temporary profile exists while the browser runs');
  assert.ok(processesWith(path.join(profiles, profile)).length > 1, 'the browser and its helpers run');

  process.kill(coord.pid, 'SIGKILL');
  await waitUntil(() => !alive(st.browser.pid), { what: 'the browser to die with its coordinator' });
  await waitUntil(() => processesWith(path.join(profiles, profile)).length === 0, { what: "the browser's helpers to exit" });
  await coord.close().catch(() => {});
  assert.ok(fs.existsSync(st.path), 'a killed coordinator cannot remove its own state file');

  const next = await startCoordinator({ stateDir, cwd });
  t.after(() => next.close());
  assert.equal((await status(next)).state, 'idle');
  assert.ok(!fs.existsSync(st.path), 'the dead coordinator\'s state file was swept');
  assert.ok(!fs.existsSync(path.join(profiles, profile)), 'the dead coordinator\'s profile was swept');
  assert.deepEqual(readStates(stateDir).map((s) => s.pid), [next.pid]);
});

test('a coordinator that exits cleanly removes its state file and its browser', async () => {
  const { stateDir, cwd } = newSession('clean');
  const coord = await startCoordinator({ stateDir, cwd });
  await call(coord.client, 'coordinator_launch_browser');
  const st = stateOf(stateDir, coord.pid);
  await coord.exit(); // stdin EOF, and its own clean shutdown however long a busy machine makes it
  await waitUntil(() => !alive(coord.pid), { what: 'the coordinator to exit' });
  assert.ok(!alive(st.browser.pid), 'browser stopped');
  assert.ok(!fs.existsSync(st.path), 'state file removed');
  const profiles = path.join(stateDir, 'profiles');
  assert.ok(!fs.existsSync(profiles) || fs.readdirSync(profiles).length === 0, 'temporary profile removed');
});

test('wrap without a coordinator fails after --timeout and says how to start one', async () => {
  const { stateDir, cwd } = newSession('nowrap');
  await assert.rejects(startWrapped('playwright', { stateDir, cwd, timeout: '300ms' }), (err) => {
    assert.match(err.message, /no browser-coordinator is running/);
    assert.match(err.message, /Start one/);
    return true;
  });
});

test('bad tool arguments are tool errors that say what is allowed', async (t) => {
  const { stateDir, cwd } = newSession('bad');
  const coord = await startCoordinator({ stateDir, cwd });
  t.after(() => coord.close());
  const cases = [
    ['coordinator_launch_browser', { browserType: 'firefox' }, /unknown browser type "firefox".*chromium/s],
    ['coordinator_launch_browser', { headless: 'yes' }, /headless must be true or false/],
    ['coordinator_launch_browser', { url: 'not a url' }, /not a URL a browser can open/],
    ['coordinator_launch_browser', { browserPath: '/nonexistent/chrome' }, /not an executable/],
    ['coordinator_status', { verbose: true }, /unknown argument verbose; allowed: none/],
    ['coordinator_focus_tab', {}, /tabId is required/],
  ];
  for (const [name, args, want] of cases) {
    const res = await call(coord.client, name, args, { allowError: true });
    assert.equal(res.isError, true, `${name} ${JSON.stringify(args)} is an error`);
    assert.match(res.text, want);
  }
  const s = await status(coord);
  assert.equal(s.state, 'idle', 'bad arguments launched nothing');
});

test('the host restarts the coordinator: the same endpoint, and the wrapped child\'s next call works', async (t) => {
  const { stateDir, cwd } = newSession('restart');
  let coord = await startCoordinator({ stateDir, cwd });
  const pw = await startWrapped('playwright', { stateDir, cwd, env: playwrightDisconnectLog });
  t.after(() => pw.close());
  assert.match((await call(pw.client, 'browser_navigate', { url: `${pages.url}/` })).text, /Coordinator test page/);
  const [first] = readStates(stateDir);

  // The host (VS Code reloading its window, Claude Code restarting its
  // servers) restarts the coordinator alone; the child keeps its endpoint.
  const seen = noticedDisconnects(pw);
  await coord.close();
  await waitUntil(() => noticedDisconnects(pw) > seen, { what: 'Playwright MCP to notice the browser went away' });
  coord = await startCoordinator({ stateDir, cwd });
  t.after(() => coord.close());
  const [second] = readStates(stateDir);
  assert.notEqual(second.pid, first.pid, 'a new coordinator');
  assert.equal(second.proxyPort, first.proxyPort, 'the same port');
  assert.equal(second.proxySecret, first.proxySecret, 'the same secret');
  assert.equal(second.cdpEndpoint, first.cdpEndpoint);

  const again = await call(pw.client, 'browser_navigate', { url: `${pages.url}/second` });
  assert.match(again.text, /Second page/, 'the child\'s next call reaches the new coordinator\'s browser');
  assert.equal((await status(coord)).state, 'running');
});

test('a program without the coordinator\'s secret gets nothing from its port', async (t) => {
  const { stateDir, cwd } = newSession('secret');
  const coord = await startCoordinator({ stateDir, cwd });
  t.after(() => coord.close());
  const [st] = readStates(stateDir);
  const base = `http://127.0.0.1:${st.proxyPort}`;
  for (const path of ['/json/version', '/json/list', `/${'0'.repeat(32)}/json/version`]) {
    const res = await fetch(base + path);
    assert.equal(res.status, 401, path);
    assert.match(await res.text(), /--proxy-auth off/);
  }
  assert.equal((await status(coord)).state, 'idle', 'a refused request launches no browser');
  const ok = await fetch(`${st.cdpEndpoint}/json/version`);
  assert.equal(ok.status, 200);
  assert.match((await ok.json()).webSocketDebuggerUrl, new RegExp(`^ws://127\\.0\\.0\\.1:${st.proxyPort}/${st.proxySecret}/devtools/browser`));
});
