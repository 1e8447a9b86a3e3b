// Benchmark of the npm package, for scripts/bench.mjs: MCP start →
// tools/list answered through the installed command, through the JavaScript
// launcher it starts as, and through npx, each next to the bare binary in
// the same run, with Playwright MCP through npx as the anchor (what an
// `npx -y <package>` MCP server usually costs).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { hostTarget, root } from './paths.mjs';
import { installOffline, packNpm } from './npmpkg.mjs';

/**
 * Spawns an MCP server; resolves to the ms from spawn to tools/list answered
 * (raw JSON-RPC, no SDK), or with idleRSS to { took, rss }: its resident
 * memory in MB once it has been idle for 300 ms.
 */
export async function startToToolsList(cmd, args, { cwd, env = {}, idleRSS = false } = {}) {
  const t = performance.now();
  const p = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'ignore'], cwd, env: { ...process.env, ...env } });
  const exited = new Promise((resolve) => p.once('exit', resolve));
  let buf = '';
  const answered = (id) => new Promise((resolve, reject) => {
    const check = () => {
      for (const line of buf.split('\n')) {
        if (line.startsWith('{') && JSON.parse(line).id === id) return resolve();
      }
    };
    p.stdout.on('data', (d) => { buf += d; check(); });
    exited.then(() => reject(new Error(`${cmd} ${args.join(' ')} exited before answering`)));
  });
  const send = (m) => p.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  await answered(1);
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list' });
  await answered(2);
  const took = performance.now() - t;
  let rss;
  if (idleRSS) {
    await new Promise((r) => setTimeout(r, 300));
    rss = Number(fs.readFileSync(`/proc/${p.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024;
  }
  p.stdin.end();
  p.kill();
  await exited;
  return idleRSS ? { took, rss } : took;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Packs and installs the npm package into work (offline, from the
 * tarballs), then times start → tools/list n times each, interleaved.
 * Returns the medians in ms: { bare, installed, launcher, npx, playwright, native }.
 */
export async function npmStart({ work, n }) {
  const dir = path.join(work, 'npm');
  const { main, platforms } = packNpm({ targets: [hostTarget()], out: path.join(dir, 'dist') });
  const proj = path.join(dir, 'proj');
  const installed = installOffline(proj, [platforms[hostTarget()], main]);
  const bare = path.join(proj, 'node_modules', '@browser-coordinator', hostTarget(), 'bin', 'browser-coordinator');
  // A copy of the launcher as installed, started as `node FILE`: it stays JavaScript.
  const launcherJS = path.join(proj, 'node_modules', 'browser-coordinator', 'bin', 'launcher-copy');
  fs.copyFileSync(fs.realpathSync(installed), launcherJS);
  const env = { BROWSER_COORDINATOR_STATE_DIR: path.join(dir, 'state'), npm_config_offline: 'true' };

  // The first run replaces the installed launcher with the binary.
  await startToToolsList(installed, [], { cwd: proj, env });
  const native = fs.readFileSync(fs.realpathSync(installed)).subarray(0, 4).toString('latin1') === '\x7fELF';

  const runs = {
    bare: () => startToToolsList(bare, [], { cwd: proj, env }),
    installed: () => startToToolsList(installed, [], { cwd: proj, env }),
    launcher: () => startToToolsList(process.execPath, [launcherJS], { cwd: proj, env }),
    npx: () => startToToolsList('npx', ['browser-coordinator'], { cwd: proj, env }),
    // The repository's devDependency: npx finds it without the registry.
    playwright: () => startToToolsList('npx', ['@playwright/mcp', '--cdp-endpoint', 'http://127.0.0.1:9'], { cwd: root, env }),
  };
  const times = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
  for (const fn of Object.values(runs)) await fn(); // warm caches
  for (let i = 0; i < n; i++) {
    const order = Object.keys(runs);
    if (i % 2) order.reverse();
    for (const k of order) times[k].push(await runs[k]());
  }
  return { ...Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])), native };
}
