// End to end: every CDP client family does the same small task its users
// would — connect, open a page, read its title, click its button, take a
// screenshot — straight against a browser on a debugging port, then behind
// the coordinator with the endpoint `browser-coordinator wrap` fills in, and
// again after coordinator_restart_browser. The effects are read where they
// happen: the click on the page server, the screenshot's pixels.
//
// chromedp and go-rod are Go programs in scripts/cdpclients (a module of
// its own, so that the product's go.mod holds none of their code); they
// replace an http endpoint's path with /json/version, and go-rod sends the
// WebSocket key "nil". Playwright and Puppeteer run as libraries
// (scripts/cdpclients/libclient.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { binaryPath, root } from '../lib/paths.mjs';
import { call, startCoordinator } from '../lib/mcp.mjs';
import { listen } from '../lib/pageserver.mjs';
import { startChromium } from '../lib/chromium.mjs';
import { readStates } from '../lib/statefiles.mjs';
import { workspace } from '../lib/workspace.mjs';

const ws = workspace('bcclients-');
const clientsDir = path.join(root, 'scripts', 'cdpclients');
let bin; // the built Go clients' folder
let site; // the task's page server
let straight; // a browser on a debugging port

const color = [30, 144, 255]; // the task page's background, found in every screenshot

// Once per file, inside the first test: workspace()'s own setup has run by then.
let setUp;
const ready = () => (setUp ??= (async () => {
  bin = path.join(ws.work, 'bin');
  for (const name of ['chromedp', 'rod']) {
    const r = spawnSync('go', ['build', '-o', path.join(bin, name), `./${name}`], { cwd: clientsDir, encoding: 'utf8', timeout: 600_000 });
    assert.equal(r.status, 0, `go build ${name} (modules come from the Go module proxy):\n${r.stderr}`);
  }
  site = await startTaskSite();
  straight = await startChromium({ profile: fs.mkdtempSync(path.join(ws.work, 'straight-')) });
})());
ws.atEnd(async () => {
  await straight?.kill();
  await site?.close();
});

/** How each client is run: an argv whose ENDPOINT, PAGE and SHOT are filled in. */
const argv = {
  chromedp: () => [path.join(bin, 'chromedp'), '-endpoint', 'ENDPOINT', '-page', 'PAGE', '-shot', 'SHOT'],
  'go-rod': () => [path.join(bin, 'rod'), '-endpoint', 'ENDPOINT', '-page', 'PAGE', '-shot', 'SHOT'],
  'go-rod, launcher.ResolveURL': () => [path.join(bin, 'rod'), '-resolve', '-endpoint', 'ENDPOINT', '-page', 'PAGE', '-shot', 'SHOT'],
  Playwright: () => [process.execPath, path.join(clientsDir, 'libclient.mjs'), 'playwright', 'ENDPOINT', 'PAGE', 'SHOT'],
  Puppeteer: () => [process.execPath, path.join(clientsDir, 'libclient.mjs'), 'puppeteer', 'ENDPOINT', 'PAGE', 'SHOT'],
};

// The endpoint forms each client is given. `works` are those it must do
// the task with; `refused` those it cannot (it drops what carries the
// secret) and must fail with the hint, not hang or crash. {token} is the
// secret as a query parameter, which clients that replace the path keep.
const cases = {
  chromedp: { straight: ['ws', 'http'], works: ['{ws_endpoint}', 'http://127.0.0.1:{cdp_port}/?token={token}'], refused: { '{cdp_endpoint}': /browser-coordinator-refused:this-client-lost-the-secret:give-it-ws_endpoint/ }, again: '{ws_endpoint}' },
  'go-rod': { straight: ['ws'], works: ['{ws_endpoint}', 'ws://127.0.0.1:{cdp_port}/devtools/browser/x?token={token}'], refused: {}, again: '{ws_endpoint}' },
  'go-rod, launcher.ResolveURL': { straight: ['http'], works: ['http://127.0.0.1:{cdp_port}/?token={token}'], refused: { '{cdp_endpoint}': /needs the coordinator's secret/, '{ws_endpoint}': /needs the coordinator's secret/ }, again: 'http://127.0.0.1:{cdp_port}/?token={token}' },
  Playwright: { straight: ['ws', 'http'], works: ['{cdp_endpoint}', '{ws_endpoint}'], refused: {}, again: '{cdp_endpoint}' },
  Puppeteer: { straight: ['ws', 'http'], works: ['{cdp_endpoint}', '{ws_endpoint}'], refused: {}, again: '{cdp_endpoint}' },
};

for (const [client, c] of Object.entries(cases)) {
  test(`clients: ${client} does the task straight, behind the coordinator, and after a restart`, async (t) => {
    await ready();
    for (const form of c.straight) {
      const endpoint = form === 'ws' ? straight.ws : `http://127.0.0.1:${straight.port}`;
      await doesTheTask(t, client, `straight, ${form}`, (args) => args.map((a) => a.replace('ENDPOINT', endpoint)));
    }

    const { stateDir, cwd } = ws.dirs(client.replace(/\W+/g, '-'));
    const coord = await startCoordinator({ stateDir, cwd });
    t.after(() => coord.close());
    const [st] = readStates(stateDir);
    // Launched first: chromedp gives its dial 10 s (remote.WithDialTimeout),
    // which a lazy launch on a loaded machine can take. The launch on a
    // first connection is the lifecycle tests' business.
    await call(coord.client, 'coordinator_launch_browser');
    const viaWrap = (template) => (args) => [binaryPath(), 'wrap', '--timeout', '30s', '--',
      ...args.map((a) => a.replace('ENDPOINT', template.replace('{token}', st.proxySecret)))];
    for (const template of c.works) {
      await doesTheTask(t, client, `behind, ${template}`, viaWrap(template), { cwd, stateDir });
    }
    for (const [template, hint] of Object.entries(c.refused)) {
      const r = await run(client, viaWrap(template), { cwd, stateDir });
      assert.notEqual(r.code, 0, `${client} with ${template} cannot reach the browser: it drops the path that carries the secret`);
      assert.match(r.stderr, hint, `${client} with ${template} fails with the hint`);
    }

    const before = (await call(coord.client, 'coordinator_status')).structuredContent.browser.pid;
    await call(coord.client, 'coordinator_restart_browser');
    const now = (await call(coord.client, 'coordinator_status')).structuredContent.browser.pid;
    assert.notEqual(now, before, 'a new browser runs');
    await doesTheTask(t, client, `after a restart, ${c.again}`, viaWrap(c.again), { cwd, stateDir });
  });
}

/** Runs the task and checks its effects: the page loaded and its button clicked (on the server), the screenshot shows the page. */
async function doesTheTask(t, client, how, fill, env) {
  const r = await run(client, fill, env);
  const what = `${client} (${how})`;
  assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
  assert.equal(out.title, `Task ${r.id}`, `${what} read the title`);
  assert.equal(site.clicks(r.id), 1, `${what}: the page's button was clicked once (the page server saw it)`);
  const png = fs.readFileSync(r.shot);
  const { width, height, at } = readPNG(png);
  assert.deepEqual(at(Math.floor(width / 2), Math.floor(height * 3 / 4)), color, `${what}: the screenshot (${width}×${height}) shows the task page`);
  t.diagnostic(`${what}: done`);
}

let runs = 0;

/** Runs one client; resolves to { id, shot, code, stdout, stderr }. */
function run(client, fill, { cwd = ws.work, stateDir } = {}) {
  const id = `${client.replace(/\W+/g, '-')}-${++runs}`;
  const shot = path.join(ws.work, `${id}.png`);
  const [cmd, ...args] = fill(argv[client]()).map((a) => a.replace('PAGE', `${site.url}/task?run=${id}`).replace('SHOT', shot));
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd, env: { ...process.env, ...(stateDir ? { BROWSER_COORDINATOR_STATE_DIR: stateDir } : {}) } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.once('close', (code) => resolve({ id, shot, code, stdout, stderr }));
  });
}

/** The task's page: a title that names the run, a button whose click the server sees before the page says so. */
async function startTaskSite() {
  const clicked = new Map();
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const id = u.searchParams.get('run') ?? '';
    if (u.pathname === '/clicked') {
      clicked.set(id, (clicked.get(id) ?? 0) + 1);
      res.writeHead(204).end();
      return;
    }
    if (u.pathname !== '/task') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html><head><meta charset="utf-8"><title>Task ${id.replace(/[^\w-]/g, '')}</title>
<style>html,body{margin:0;height:100%;background:rgb(${color})}</style></head>
<body><button id="b">Press</button><p id="out">Not clicked</p><script>
document.getElementById('b').onclick = () => fetch('/clicked' + location.search)
  .then(() => { document.getElementById('out').textContent = 'Clicked'; });
</script></body></html>`);
  });
  const s = await listen(server, '127.0.0.1');
  return { ...s, clicks: (id) => clicked.get(id) ?? 0 };
}

/** A PNG's size and a reader of its pixels (8-bit RGB or RGBA, as browsers write them). */
function readPNG(buf) {
  assert.equal(buf.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'a PNG');
  let width;
  let height;
  let channels;
  const idat = [];
  for (let i = 8; i < buf.length;) {
    const len = buf.readUInt32BE(i);
    const type = buf.toString('latin1', i + 4, i + 8);
    const data = buf.subarray(i + 8, i + 8 + len);
    if (type === 'IHDR') {
      [width, height] = [data.readUInt32BE(0), data.readUInt32BE(4)];
      assert.equal(data[8], 8, '8 bits a channel');
      channels = { 2: 3, 6: 4 }[data[9]];
      assert.ok(channels, `color type ${data[9]}`);
    }
    if (type === 'IDAT') idat.push(data);
    i += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rows = [];
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const row = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? row[x - channels] : 0;
      const b = prev[x];
      const c = x >= channels ? prev[x - channels] : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      row[x] = (row[x] + [0, a, b, (a + b) >> 1, paeth][filter]) & 0xff;
    }
    rows.push(row);
    prev = row;
  }
  return { width, height, at: (x, y) => [...rows[y].subarray(x * channels, x * channels + 3)] };
}
