// npm run demo: the main job, end to end, on a fresh machine. Builds the
// sidecar, starts the coordinator and Playwright MCP behind `wrap` the way an
// MCP host would (two entries), and drives them with the official MCP SDK
// against a page served on loopback: navigate, snapshot, restart, snapshot,
// stop — printing each step and how long it took.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureNpmDeps, ensureBrowser, installAdvice } from './lib/setup.mjs';
import { buildSidecar, requireGo } from './lib/build.mjs';

const t0 = Date.now();
const say = (msg) => console.log(msg);

async function timed(label, fn) {
  const start = performance.now();
  const result = await fn();
  say(`  ${label.padEnd(44)} ${(performance.now() - start).toFixed(0).padStart(6)} ms`);
  return result;
}

say('Browser Coordinator demo\n');
say('Setting up');
ensureNpmDeps({ log: (m) => say(`  ${m}`) });
requireGo();
buildSidecar(undefined, { log: (m) => say(`  ${m}`) });
const browser = ensureBrowser({ install: true, log: (m) => say(`  ${m}`) });
if (!browser) {
  console.error(`\n${installAdvice}`);
  process.exit(1);
}
say(`  browser: ${browser}`);

// Imported after npm packages are installed.
const { startCoordinator, startWrapped, call } = await import('./lib/mcp.mjs');
const { startPageServer } = await import('./lib/pageserver.mjs');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-demo-'));
const stateDir = path.join(work, 'state');
const pages = await startPageServer();
const cleanups = [() => pages.close(), () => fs.rmSync(work, { recursive: true, force: true })];
let exitCode = 0;
try {
  say(`\nServing a test page at ${pages.url}/`);
  say('\nStarting the two MCP entries, as an MCP host would');
  const coord = await timed('coordinator started, tools listed', async () => {
    const c = await startCoordinator({ stateDir, cwd: work });
    await c.client.listTools();
    return c;
  });
  cleanups.unshift(() => coord.close());
  const status = async () => (await call(coord.client, 'coordinator_status')).structuredContent;
  let s = await status();
  say(`  coordinator: CDP endpoint ${s.cdpEndpoint}, browser ${s.state} (nothing launched yet)`);

  const pw = await timed('wrap -- @playwright/mcp started', () =>
    startWrapped('playwright', { stateDir, cwd: work }));
  cleanups.unshift(() => pw.close());
  say(`  Playwright MCP got --cdp-endpoint ${s.cdpEndpoint} from wrap`);

  say('\nDriving the browser through Playwright MCP');
  await timed('browser_navigate (launches the browser)', () => call(pw.client, 'browser_navigate', { url: `${pages.url}/` }));
  s = await status();
  say(`  browser: ${s.state}, ${s.browser.type} ${s.browser.version}, pid ${s.browser.pid}`);
  const snap = await timed('browser_snapshot', () => call(pw.client, 'browser_snapshot'));
  say(indent(snap.text.match(/```yaml\n([\s\S]*?)```/)?.[1] ?? snap.text));

  say('Restarting the browser through the coordinator');
  const oldPid = s.browser.pid;
  await timed('coordinator_restart_browser', () => call(coord.client, 'coordinator_restart_browser'));
  s = await status();
  say(`  new browser pid ${s.browser.pid} (was ${oldPid}), same endpoint ${s.cdpEndpoint}`);
  await timed('browser_navigate (same endpoint, new browser)', () => call(pw.client, 'browser_navigate', { url: `${pages.url}/second` }));
  const snap2 = await timed('browser_snapshot', () => call(pw.client, 'browser_snapshot'));
  say(indent(snap2.text.match(/```yaml\n([\s\S]*?)```/)?.[1] ?? snap2.text));

  say('Stopping');
  await timed('coordinator_stop_browser', () => call(coord.client, 'coordinator_stop_browser'));
  s = await status();
  say(`  browser: ${s.state}; the endpoint ${s.cdpEndpoint} stays, and the next call would launch again`);
} catch (err) {
  console.error(`\ndemo failed: ${err.message}`);
  exitCode = 1;
} finally {
  for (const c of cleanups) await c();
}
say(`\nDone in ${((Date.now() - t0) / 1000).toFixed(1)} s.`);
process.exit(exitCode);

function indent(text) {
  return text.trim().split('\n').map((l) => `    ${l}`).join('\n') + '\n';
}
