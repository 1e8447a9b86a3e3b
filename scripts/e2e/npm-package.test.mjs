// End to end: the npm packages as a user gets them. They are packed
// (scripts/lib/npmpkg.mjs, what `npm run pack` does), installed from the
// tarballs into an empty folder with --offline and an empty cache (no
// registry), and run the way MCP hosts run them: through `npx` and by the
// installed command's path, driven by the official MCP SDK client.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, call } from '../lib/mcp.mjs';
import { childMCPs, hostTarget, root } from '../lib/paths.mjs';
import { installOffline, packNpm } from '../lib/npmpkg.mjs';
import { workspace } from '../lib/workspace.mjs';
import { alive, waitUntil } from '../lib/procs.mjs';

const ws = workspace('bcnpm-');
const coordinatorTools = 12; // 9, the page-tools pair and coordinator_handle_dialog
// No registry: whatever npm would fetch fails instead.
const offline = { npm_config_offline: 'true' };
let work; // the packages, packed and installed
let packed; // { version, main, platforms }
let proj; // the folder the packages are installed in
let installed; // its node_modules/.bin/browser-coordinator
let launcher; // the main package's bin file, which the bin link points at
let binary; // the platform package's binary

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bcnpm-pkg-'));
  packed = packNpm({ targets: [hostTarget()], out: path.join(work, 'dist') });
  proj = path.join(work, 'proj');
  installed = installOffline(proj, [packed.platforms[hostTarget()], packed.main]);
  launcher = path.join(proj, 'node_modules', 'browser-coordinator', 'bin', 'browser-coordinator');
  binary = path.join(proj, 'node_modules', '@browser-coordinator', hostTarget(), 'bin', 'browser-coordinator');
});

after(() => work && fs.rmSync(work, { recursive: true, force: true }));

const isNative = (file) => fs.readFileSync(file).subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])); // ELF
const sameFile = (a, b) => fs.statSync(a).ino === fs.statSync(b).ino;

test('the tarballs install offline: the command links to the launcher, which runs the platform package\'s binary', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(proj, 'node_modules', 'browser-coordinator', 'package.json'), 'utf8'));
  assert.equal(Object.keys(pkg.optionalDependencies).length, 6, 'every platform is an optional dependency');
  assert.ok(Object.values(pkg.optionalDependencies).every((v) => v === packed.version), 'pinned to the same version');
  assert.deepEqual(fs.readdirSync(path.join(proj, 'node_modules', '@browser-coordinator')), [hostTarget()], 'only this platform\'s package');
  assert.equal(fs.realpathSync(installed), fs.realpathSync(launcher));
  assert.match(fs.readFileSync(launcher, 'utf8'), /^#!\/usr\/bin\/env node\n/, 'JavaScript before its first run');

  // `node FILE` (how pnpm's and Yarn's shims start a bin) runs the binary and leaves the launcher JavaScript.
  const r = spawnSync(process.execPath, [launcher, '--version'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^browser-coordinator ${packed.version.replaceAll('.', '\\.')} \\(commit \\S+, \\w+/\\w+, go[\\d.]+\\)\\ninstalled from the npm package browser-coordinator \\(@browser-coordinator/${hostTarget()}\\)\\n$`));
  assert.ok(!isNative(launcher), 'a launcher started as `node FILE` must stay JavaScript');
});

test('through the JavaScript launcher: stdio untouched, exit codes and signals passed on', async (t) => {
  const stateDir = path.join(ws.work, 'signals-state');
  // An MCP session through the launcher: the stream passes byte for byte.
  const conn = await connect(process.execPath, [launcher], { cwd: ws.work, env: { BROWSER_COORDINATOR_STATE_DIR: stateDir } });
  t.after(() => conn.close());
  assert.equal((await conn.client.listTools()).tools.length, coordinatorTools);

  const bad = spawnSync(process.execPath, [launcher, 'install', '--host', 'emacs'], { encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /unknown host "emacs"/);
  const wrapped = spawnSync(process.execPath, [launcher, 'wrap', '--', 'sh', '-c', 'exit 7'], {
    encoding: 'utf8', cwd: ws.work, env: { ...process.env, BROWSER_COORDINATOR_STATE_DIR: stateDir },
  });
  assert.equal(wrapped.status, 7, `wrap's child's exit code, through the launcher: ${wrapped.stderr}`);

  // SIGTERM to the launcher reaches the binary, which shuts down cleanly (exit 0, state file removed).
  const serveDir = path.join(ws.work, 'sigterm-state');
  const p = spawn(process.execPath, [launcher], { cwd: ws.work, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, BROWSER_COORDINATOR_STATE_DIR: serveDir } });
  let stderr = '';
  p.stderr.on('data', (d) => { stderr += d; });
  await waitUntil(() => fs.existsSync(serveDir) && fs.readdirSync(serveDir).some((f) => f.endsWith('.json')), { what: 'the coordinator\'s state file' });
  const stateFile = path.join(serveDir, fs.readdirSync(serveDir).find((f) => f.endsWith('.json')));
  const pid = JSON.parse(fs.readFileSync(stateFile, 'utf8')).pid;
  assert.notEqual(pid, p.pid, 'the binary runs as the launcher\'s child');
  const exited = new Promise((resolve) => p.once('exit', (code, signal) => resolve({ code, signal })));
  p.kill('SIGTERM');
  assert.deepEqual(await exited, { code: 0, signal: null }, stderr);
  assert.match(stderr, /shutting down.*reason=signal/);
  assert.ok(!fs.existsSync(stateFile), 'the binary got the signal and removed its state file');
  assert.ok(!alive(pid));
  p.stdin.destroy();
});

test('through npx, as an MCP host runs it: tools/list answers, the launcher becomes the binary, a wrapped Playwright MCP navigates', async (t) => {
  const { stateDir } = ws.dirs('npx');
  const env = { ...offline, BROWSER_COORDINATOR_STATE_DIR: stateDir };
  // The first run, through npx and npm's bin link.
  const coord = await connect('npx', ['browser-coordinator'], { cwd: proj, env });
  t.after(() => coord.close());
  const { tools } = await coord.client.listTools();
  assert.equal(tools.length, coordinatorTools, tools.map((x) => x.name).join(', '));
  assert.ok(tools.every((x) => x.name.startsWith('coordinator_')));
  await waitUntil(() => isNative(launcher), { what: 'the launcher to be replaced by the binary' });
  assert.ok(sameFile(launcher, binary), 'a hard link to the platform package\'s binary');

  // The second entry of a two-entry setup, through npx too: Playwright MCP behind wrap.
  const pw = await connect('npx', ['browser-coordinator', 'wrap', '--', ...childMCPs.playwright, '--cdp-endpoint', '{cdp_endpoint}'], { cwd: proj, env });
  t.after(() => pw.close());
  const nav = await call(pw.client, 'browser_navigate', { url: `${ws.pages.url}/` });
  assert.match(nav.text, /Coordinator test page/);
  const st = (await call(coord.client, 'coordinator_status')).structuredContent;
  assert.equal(st.state, 'running');
  assert.match(st.currentUrl, /^http:\/\/127\.0\.0\.1:\d+\/$/);
});

test('--mcp @playwright/mcp: a package spec runs through npx -y and its tools are served', async (t) => {
  const { stateDir, cwd } = ws.dirs('spec');
  // The installed command by its path, as Claude Desktop runs it. npx -y
  // looks for the package in the node_modules of the folder it runs in
  // first: here a link to the repository's, whose devDependencies hold
  // @playwright/mcp, so it is found with the registry off.
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(cwd, 'node_modules'));
  const conn = await connect(installed, ['--mcp', '@playwright/mcp'], { cwd, env: { ...offline, BROWSER_COORDINATOR_STATE_DIR: stateDir } });
  t.after(() => conn.close());
  const names = (await conn.client.listTools()).tools.map((x) => x.name);
  assert.ok(names.includes('browser_navigate') && names.includes('coordinator_status'), names.join(', '));
  const nav = await call(conn.client, 'browser_navigate', { url: `${ws.pages.url}/second` });
  assert.match(nav.text, /Second page/);
  const { child } = (await call(conn.client, 'coordinator_status')).structuredContent;
  assert.match(child.command, /^npx -y @playwright\/mcp --cdp-endpoint=http:\/\/127\.0\.0\.1:\d+/);
  assert.equal(child.state, 'running');
});

test('without its platform package the command says what to do', () => {
  const dir = path.join(work, 'no-platform');
  const cmd = installOffline(dir, [packed.main]);
  const r = spawnSync(cmd, ['--version'], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, new RegExp(`the package @browser-coordinator/${hostTarget()}, which holds browser-coordinator's binary for ${hostTarget()}, is not installed`));
  assert.match(r.stderr, /reinstall browser-coordinator with its optional dependencies/);
  assert.equal(r.stdout, '');
});
