// The extension in a real VS Code: the linux-x64 VSIX installed into
// code-server (VS Code 1.103 in a browser, from npm; scripts/lib/codeserver.mjs),
// a workspace opened in headless Chromium driven by playwright-core, and
// everything checked from the page: activation, the status bar item following
// the coordinator's state file, browser actions through the control API, the
// .mcp.json command going through the sidecar, the log's resolution chain,
// and the servers in VS Code's own MCP list (started from there, in the
// workspace folder, which is how `wrap` finds its coordinator).
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { root, binaryPath } from '../lib/paths.mjs';
import { buildSidecar } from '../lib/build.mjs';
import { findBrowser } from '../lib/setup.mjs';
import { compileExtension, packVsix, vsixPath } from '../lib/vsix.mjs';
import { ensureCodeServer, codeServerSkip, startCodeServer } from '../lib/codeserver.mjs';
import { readStates } from '../lib/statefiles.mjs';
import { alive, processesWith, waitUntil } from '../lib/procs.mjs';

const TARGET = 'linux-x64';
const EXT_ID = 'browser-coordinator.browser-coordinator';
const ITEM = `[id="${EXT_ID}.browserCoordinator.status"]`;
const artifacts = path.join(root, '.test-artifacts', 'vscode');

const browserPath = findBrowser();
const skip = codeServerSkip(browserPath);

let tmp, dirs, codeServer, page, browser, url, coordinator;
const figures = {};

function log(...args) {
  console.log('[vscode]', ...args);
}

async function shot(name) {
  fs.mkdirSync(artifacts, { recursive: true });
  await page?.screenshot({ path: path.join(artifacts, `${name}.png`) }).catch(() => {});
}

/** Runs a command from the palette (the editor is clicked first: the welcome page can hold focus). */
async function palette(title) {
  await page.locator('.part.editor').click({ position: { x: 200, y: 200 } });
  await page.keyboard.press('Control+Shift+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(`>${title}`);
  // Enter runs the focused row: wait until the list has caught up with the input.
  await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).waitFor();
  await page.keyboard.press('Enter');
}

async function statusText() {
  return (await page.locator(ITEM).innerText()).trim();
}

async function waitForStatus(re, timeout = 60_000) {
  try {
    await page.waitForFunction(
      ([sel, src]) => new RegExp(src).test(document.querySelector(sel)?.textContent ?? ''),
      [ITEM, re.source],
      { timeout },
    );
  } catch (err) {
    await shot(`status-${re.source.replace(/\W+/g, '_')}`);
    throw new Error(`status bar never matched ${re} (it says ${JSON.stringify(await statusText().catch(() => '?'))}): ${err.message}`);
  }
  return statusText();
}

function extensionLog() {
  const logs = path.join(dirs.udd, 'logs');
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'Browser Coordinator.log' && p.includes(EXT_ID)) found.push(p);
    }
  };
  if (fs.existsSync(logs)) walk(logs);
  return found.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

function startCoordinator() {
  const proc = spawn(binaryPath(TARGET), ['serve', '--state-dir', dirs.state], {
    cwd: dirs.ws,
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { ...process.env, BROWSER_COORDINATOR_DEBUG: '1' },
  });
  proc.stderrText = '';
  proc.stderr.on('data', (c) => { proc.stderrText += c; });
  proc.exited = new Promise((r) => proc.once('exit', r));
  return proc;
}

before(async () => {
  if (skip) return;
  assert.ok(browserPath, 'CI needs Chromium for the code-server test: apt-get install -y chromium');
  if (!fs.existsSync(vsixPath(TARGET))) {
    log(`${vsixPath(TARGET)} is missing: packing it`);
    compileExtension({ log });
    buildSidecar(TARGET, { log });
    packVsix(TARGET, { log });
  }
  const t0 = Date.now();
  const cs = ensureCodeServer({ log });
  figures.codeServerReady = Date.now() - t0;

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-vscode-'));
  dirs = Object.fromEntries(['ext', 'udd', 'ws', 'state', 'home'].map((d) => [d, path.join(tmp, d)]));
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  fs.mkdirSync(path.join(dirs.udd, 'User'));
  const playwrightCli = path.join(root, 'node_modules', '@playwright', 'mcp', 'cli.js');
  fs.writeFileSync(path.join(dirs.udd, 'User', 'settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    // The wrapped child: the repository's Playwright MCP (no download).
    'browserCoordinator.childMcp': 'custom',
    'browserCoordinator.childMcpCommand': `"${process.execPath}" "${playwrightCli}" --headless --cdp-endpoint {cdp_endpoint}`,
  }, null, 2));
  // HOME is a temp folder so nothing lands in the real ~/.code-server or ~/.config.
  const env = {
    ...process.env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: path.join(dirs.home, '.config'),
    XDG_DATA_HOME: path.join(dirs.home, '.local', 'share'),
    BROWSER_COORDINATOR_STATE_DIR: dirs.state,
  };
  const common = ['--extensions-dir', dirs.ext, '--user-data-dir', dirs.udd, '--config', path.join(tmp, 'config.yaml')];
  fs.writeFileSync(path.join(tmp, 'config.yaml'), 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');

  const installed = execFileSync(cs.node, [cs.entry, ...common, '--install-extension', vsixPath(TARGET)], { env, encoding: 'utf8' });
  assert.match(installed, /was successfully installed/, installed);
  const extDir = fs.readdirSync(dirs.ext).find((d) => d.startsWith(EXT_ID));
  assert.ok(extDir, `the extension is in ${dirs.ext}`);
  dirs.extension = path.join(dirs.ext, extDir);
  const bundled = path.join(dirs.extension, 'bin', TARGET, 'browser-coordinator');
  figures.runBitAfterInstall = (fs.statSync(bundled).mode & 0o111) !== 0;

  codeServer = await startCodeServer(cs, [...common, '--disable-workspace-trust', '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override', dirs.ws], env);
  url = codeServer.url;
  log(`code-server ${cs.version} on ${url}`);
  browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
});

after(async () => {
  if (skip) return;
  await shot('last');
  await browser?.close().catch(() => {});
  if (coordinator && coordinator.exitCode === null) {
    coordinator.stdin.end();
    await coordinator.exited;
  }
  await codeServer?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  log('figures', JSON.stringify(figures));
});

afterEach(async (t) => {
  if (skip || !page) return;
  await shot(t.name.replace(/\W+/g, '_').slice(0, 60));
});

/** On failure, what the extension and the coordinator logged. */
async function explain(fn) {
  try {
    await fn();
  } catch (err) {
    err.message += `\n--- extension log ---\n${extensionLog()}\n--- coordinator stderr ---\n${coordinator?.stderrText ?? ''}`;
    throw err;
  }
}

test('the extension activates and its status bar item shows tier and state', { skip }, async () => {
  const t0 = Date.now();
  await page.goto(`${url}/?folder=${encodeURIComponent(dirs.ws)}`);
  await page.locator(ITEM).waitFor({ timeout: 120_000 });
  figures.pageToStatusBarMs = Date.now() - t0;
  assert.match(await waitForStatus(/external · off/), /external · off/);
  const aria = await page.locator(ITEM).getAttribute('aria-label');
  assert.match(aria, /No coordinator runs for this workspace/, 'the tooltip text is the accessible label');
  await waitUntil(() => /ready in \d+ ms/.test(extensionLog()), { timeout: 30_000, what: 'the extension to finish its setup' });
  const text = extensionLog();
  figures.activateMs = Number(/activated in (\d+) ms/.exec(text)?.[1]);
  figures.readyMs = Number(/ready in (\d+) ms/.exec(text)?.[1]);
  log(`status bar ${figures.pageToStatusBarMs} ms after page load; activate() ${figures.activateMs} ms, setup done ${figures.readyMs} ms`);
  await shot('activated');
});

test('the log has the sidecar resolution chain, and VS Code\'s MCP API was found', { skip }, async () => {
  const text = extensionLog();
  assert.match(text, /Browser Coordinator 0\.1\.0 in code-server 1\.1\d\d\.\d+/);
  assert.match(text, /sidecar: setting: browserCoordinator\.sidecarPath is not set/);
  const bundled = new RegExp(`sidecar: bundled: using ${dirs.extension.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/bin/linux-x64/browser-coordinator \\(browser-coordinator 0\\.1\\.0 \\(commit `);
  assert.match(text, bundled);
  if (!figures.runBitAfterInstall) assert.match(text, /restored the run bit/);
  assert.match(text, /mcp: registered the provider browserCoordinator\.servers/);
  assert.match(text, /native CDP: not available here/);

  // The same lines on screen: Show Log, filtered to the chain.
  await palette('Browser Coordinator: Show Log');
  const filter = page.locator('.part.panel .viewpane-filter input');
  await filter.waitFor({ timeout: 15_000 });
  await filter.fill('sidecar:');
  // Monaco renders spaces as no-break spaces.
  await page.waitForFunction(() => /bundled:\s+using/.test(document.querySelector('.part.panel .view-lines')?.textContent ?? ''), null, { timeout: 15_000 });
  const shown = (await page.locator('.part.panel .view-lines').innerText()).replace(/\u00a0/g, ' ');
  assert.match(shown, /setting: browserCoordinator\.sidecarPath is not set/);
  assert.match(shown, /bundled: using/);
  await shot('log');
  await filter.fill('');
});

test('the status bar follows a coordinator live and acts on it through the control API', { skip }, () => explain(async () => {
  coordinator = startCoordinator();
  assert.match(await waitForStatus(/external · idle/), /idle/);

  await palette('Browser Coordinator: Launch the Browser');
  assert.match(await waitForStatus(/external · running/, 90_000), /running/);
  const [state] = readStates(dirs.state);
  assert.equal(state.state, 'running');
  assert.equal(state.browser.headless, true);

  // The quick pick behind the status bar item: stop.
  await page.locator(ITEM).click();
  const stop = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Stop the browser' });
  await stop.waitFor();
  const offered = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
  assert.ok(offered.some((r) => /Restart the browser/.test(r)) && offered.some((r) => /Show the browser window/.test(r)), offered.join(' | '));
  await stop.click();
  assert.match(await waitForStatus(/external · stopped/, 30_000), /stopped/);
  await shot('stopped');

  coordinator.stdin.end(); // the coordinator exits and removes its state file
  await coordinator.exited;
  assert.match(await waitForStatus(/external · off/), /off/);
}));

test('"Write .mcp.json for Claude Code" goes through the sidecar and keeps other servers and comments', { skip }, async () => {
  const file = path.join(dirs.ws, '.mcp.json');
  fs.writeFileSync(file, '{\n  // the team\'s servers\n  "mcpServers": {\n    "github": { "command": "gh-mcp" }\n  }\n}\n');
  await palette('Browser Coordinator: Write .mcp.json for Claude Code');
  await waitUntil(() => fs.readFileSync(file, 'utf8').includes('browser-coordinator'), { timeout: 30_000, what: '.mcp.json to be written' });
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.includes("// the team's servers"), text);
  assert.ok(text.includes('"github": { "command": "gh-mcp" }'), text);
  const bundled = path.join(dirs.extension, 'bin', TARGET, 'browser-coordinator');
  assert.ok(text.includes(`"command": "${bundled}"`), `the entries run the bundled sidecar:\n${text}`);
  assert.match(text, /"browser": \{[^}]*"wrap",\s*"--",/s, 'the custom child behind wrap');
  await page.locator('.notifications-toasts', { hasText: 'wrote' }).waitFor({ timeout: 15_000 });
  assert.match(extensionLog(), /mcp\.json: wrote .*\.mcp\.json \(through `browser-coordinator install --host claude-code`\)/);
  await shot('mcp-json');
});

test('VS Code\'s MCP list has both servers; started from there, the coordinator serves this workspace and wrap finds it', { skip }, async () => {
  await palette('MCP: List Servers');
  const row = (name) => page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first();
  await row('Browser Coordinator').waitFor({ timeout: 30_000 });
  const rows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
  assert.ok(rows.some((r) => r.startsWith('Browser Coordinator')), rows.join(' | '));
  assert.ok(rows.some((r) => /Browser MCP \(node\) \(via Browser Coordinator\)/.test(r)), rows.join(' | '));
  await row(/^Browser Coordinator/).click();
  await row('Start Server').click();
  assert.match(await waitForStatus(/external · idle/, 60_000), /idle/);
  const [state] = readStates(dirs.state);
  assert.equal(fs.realpathSync(state.workspace), fs.realpathSync(dirs.ws), 'started in the workspace folder (the definition\'s cwd)');

  // The child behind wrap: VS Code starts it in the same folder, wrap finds
  // this coordinator and execs Playwright MCP with its endpoint filled in.
  await page.keyboard.press('Escape');
  await palette('MCP: List Servers');
  await row('Browser MCP (node)').click();
  await row('Start Server').click();
  await waitUntil(() => processesWith(`--cdp-endpoint http://127.0.0.1:${state.proxyPort}`).some((p) => p.cmdline.includes('cli.js')), {
    timeout: 60_000,
    what: 'Playwright MCP with the coordinator\'s endpoint',
  });
  let shown = '';
  for (let i = 0; i < 30 && !/Running/.test(shown); i++) {
    await page.keyboard.press('Escape');
    await palette('MCP: List Servers');
    shown = await row('Browser MCP (node)').innerText();
    if (!/Running/.test(shown)) await new Promise((r) => setTimeout(r, 1000));
  }
  assert.match(shown, /Running/, 'VS Code lists the wrapped child as running');
  await page.keyboard.press('Escape');
  await shot('mcp-running');
});
