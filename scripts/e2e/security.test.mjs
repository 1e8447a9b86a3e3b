// End to end: another local user gets nothing. The victim is this test's
// user (root under CI); the attacker is a second user created here and
// driven with setpriv. Each test is an attack that worked before the state
// folder became per user and checked, the HTTP transport always asked for a
// token, and browserPath was limited to browsers; each asserts that the
// victim's files stay intact and that nothing the attacker planted is used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { connect, call } from '../lib/mcp.mjs';
import { binaryPath } from '../lib/paths.mjs';
import { workspace } from '../lib/workspace.mjs';
import { alive, waitUntil } from '../lib/procs.mjs';
import { startHTTPCoordinator, rawRequest, initializeBody, connectHTTP } from '../lib/httpmcp.mjs';
import { readStates } from '../lib/statefiles.mjs';
import { canSwitchUsers, needsRoot, ensureUser, homeFor, nodeAs, runAs, spawnAs } from '../lib/otheruser.mjs';

const ws = workspace('bcsec-');
const attacker = canSwitchUsers ? ensureUser('bc-attacker') : null;
const skip = canSwitchUsers ? false : needsRoot;
// The test's own folder is open to look through, as a home or /tmp is: what
// keeps the attacker out must be the coordinator's own folders and files.
const openWork = () => fs.chmodSync(ws.work, 0o755);

/** A folder like /tmp: every user may create files in it. */
function sharedTemp() {
  openWork();
  const dir = fs.mkdtempSync(path.join(ws.work, 'shared-'));
  fs.chmodSync(dir, 0o1777);
  return dir;
}

/** The victim's environment: its own home, the shared temp folder, no state folder named. */
function victimEnv(home, shared, extra = {}) {
  return { HOME: home, TMPDIR: shared, XDG_RUNTIME_DIR: '', XDG_STATE_HOME: '', BROWSER_COORDINATOR_STATE_DIR: '', ...extra };
}

/** Runs `browser-coordinator wrap` with a child that prints its argument: the endpoint wrap filled in. */
function wrapEndpoint({ cwd, env }) {
  const r = spawnSync(binaryPath(), ['wrap', '--timeout', '5s', '--', 'sh', '-c', 'printf %s "$1"', 'sh', '{cdp_endpoint}'],
    { cwd, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

function forgedState(fields) {
  return JSON.stringify({
    pid: 1, proxyPort: 6666, cdpEndpoint: 'http://attacker.example:6666', wsEndpoint: 'ws://attacker.example:6666/devtools/browser',
    backend: 'tier1', browser: null, state: 'running', currentUrl: '', controlToken: 'x',
    startedAt: new Date(Date.now() + 3600_000).toISOString(), version: 'evil', ...fields,
  });
}

test('the default state folder is the user\'s own: a forged state file in the shared temp folder never reaches wrap', { skip }, async (t) => {
  const shared = sharedTemp();
  const home = fs.mkdtempSync(path.join(ws.work, 'victim-home-'));
  const { cwd } = ws.dirs('default');
  // The attacker creates the old default folder first, wide open, with a state file for the victim's folder.
  nodeAs(attacker, `
    const fs = await import('node:fs');
    fs.mkdirSync(${JSON.stringify(path.join(shared, 'browser-coordinator'))}, { mode: 0o777 });
    fs.chmodSync(${JSON.stringify(path.join(shared, 'browser-coordinator'))}, 0o777);
    fs.writeFileSync(${JSON.stringify(path.join(shared, 'browser-coordinator', '1-forged.json'))}, ${JSON.stringify(forgedState({ workspace: cwd }))}, { mode: 0o644 });`);

  const env = victimEnv(home, shared);
  const coord = await connect(binaryPath(), [], { cwd, env });
  t.after(() => coord.close());
  const status = (await call(coord.client, 'coordinator_status')).structuredContent;
  const own = path.join(home, '.local', 'state', 'browser-coordinator');
  assert.equal(path.dirname(status.stateFile), own, 'the state file is in ~/.local/state/browser-coordinator');
  assert.equal(fs.statSync(own).mode & 0o777, 0o700);

  const endpoint = wrapEndpoint({ cwd, env });
  assert.ok(endpoint.startsWith(`http://127.0.0.1:${status.proxyPort}`), `wrap filled in ${endpoint}`);
  assert.doesNotMatch(endpoint, /attacker/);

  // The attacker, in turn, has a state folder of their own and sees none of the victim's coordinators.
  const theirHome = homeFor(attacker, ws.work);
  const r = runAs(attacker, binaryPath(), ['status', '--json'], { env: victimEnv(theirHome, shared) });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [], 'the attacker sees no coordinator');
});

test('a state folder another user owns, or anyone may write, is refused with what to do', { skip }, () => {
  const shared = sharedTemp();
  const theirs = path.join(shared, 'theirs');
  nodeAs(attacker, `(await import('node:fs')).mkdirSync(${JSON.stringify(theirs)}, { mode: 0o755 });`);
  const open = path.join(ws.work, 'open');
  fs.mkdirSync(open);
  fs.chmodSync(open, 0o777);
  for (const [dir, want] of [[theirs, /belongs to uid \d+, not to you/], [open, /others may write it/]]) {
    const r = spawnSync(binaryPath(), ['--state-dir', dir], { input: '', encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 1, `${dir}: ${r.stderr}`);
    assert.match(r.stderr, want);
    assert.match(r.stderr, /chmod 700/);
    assert.deepEqual(fs.readdirSync(dir), [], 'nothing was written there');
  }
});

test('the state file is never written through a link planted in its place', { skip }, async (t) => {
  const { stateDir, cwd } = ws.dirs('link');
  const coord = await connect(binaryPath(), [], { cwd, env: { BROWSER_COORDINATOR_STATE_DIR: stateDir } });
  t.after(() => coord.close());
  const stateFile = (await call(coord.client, 'coordinator_status')).structuredContent.stateFile;
  const secret = path.join(ws.work, 'victims-secret.txt');
  fs.writeFileSync(secret, 'the victim\'s data', { mode: 0o600 });
  fs.rmSync(stateFile);
  fs.symlinkSync(secret, stateFile);
  fs.lchownSync(stateFile, attacker.uid, attacker.gid);

  await call(coord.client, 'coordinator_launch_browser', { url: `${ws.pages.url}/` }); // rewrites the state file
  assert.equal(fs.readFileSync(secret, 'utf8'), 'the victim\'s data', 'the link\'s target is intact');
  const st = fs.lstatSync(stateFile);
  assert.ok(st.isFile() && !st.isSymbolicLink(), 'the link was replaced by the state file');
  assert.equal(st.mode & 0o777, 0o600);
  assert.equal(JSON.parse(fs.readFileSync(stateFile, 'utf8')).state, 'running');
});

test('wrap skips a state file that is not the user\'s, and never takes an endpoint as written', { skip }, async (t) => {
  const { stateDir, cwd } = ws.dirs('forged');
  const coord = await connect(binaryPath(), [], { cwd, env: { BROWSER_COORDINATOR_STATE_DIR: stateDir } });
  t.after(() => coord.close());
  const status = (await call(coord.client, 'coordinator_status')).structuredContent;
  // A live process of the attacker's, named by a state file the attacker owns.
  const sleeper = spawnAs(attacker, 'sleep', ['60']);
  t.after(() => sleeper.kill());
  const theirs = path.join(stateDir, `${sleeper.pid}-theirs.json`);
  fs.writeFileSync(theirs, forgedState({ pid: sleeper.pid, proxyPort: 6667, workspace: cwd }), { mode: 0o600 });
  fs.chownSync(theirs, attacker.uid, attacker.gid);
  // A file of the victim's own (say, copied from elsewhere) naming another endpoint for the real port.
  const copied = path.join(stateDir, `${process.pid}-copied.json`);
  fs.writeFileSync(copied, forgedState({ pid: process.pid, proxyPort: status.proxyPort, proxySecret: status.proxySecret ?? '', workspace: cwd }), { mode: 0o600 });

  const endpoint = wrapEndpoint({ cwd, env: { BROWSER_COORDINATOR_STATE_DIR: stateDir } });
  assert.ok(endpoint.startsWith(`http://127.0.0.1:${status.proxyPort}`), endpoint);
  assert.doesNotMatch(endpoint, /attacker|6667/);
  const listed = JSON.parse(spawnSync(binaryPath(), ['status', '--json'], { env: { ...process.env, BROWSER_COORDINATOR_STATE_DIR: stateDir }, encoding: 'utf8' }).stdout);
  assert.ok(!listed.some((s) => s.proxyPort === 6667), 'status lists no coordinator of another user');
});

test('another user\'s port file, or a port another user listens on, does not switch the coordinator to VS Code\'s tier', { skip }, async (t) => {
  const shared = sharedTemp();
  const { stateDir, cwd } = ws.dirs('portfile');
  fs.mkdirSync(stateDir, { mode: 0o700 });
  // The attacker serves something that answers like a CDP endpoint, and names it in the shared port file.
  const fake = spawnAs(attacker, process.execPath, ['-e', `
    const http = require('node:http');
    const s = http.createServer((q, r) => r.end(JSON.stringify({ Browser: 'Evil/1', webSocketDebuggerUrl: 'ws://127.0.0.1:' + s.address().port + '/devtools/browser/x' })));
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`]);
  t.after(() => fake.kill());
  const port = await new Promise((resolve) => fake.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  nodeAs(attacker, `(await import('node:fs')).writeFileSync(${JSON.stringify(path.join(shared, 'vscode-cdp-port'))}, '${port}\\n', { mode: 0o644 });`);

  const env = { BROWSER_COORDINATOR_STATE_DIR: stateDir, TMPDIR: shared, TERM_PROGRAM: 'vscode' };
  const coord = await connect(binaryPath(), [], { cwd, env });
  t.after(() => coord.close());
  let vscode = (await call(coord.client, 'coordinator_status')).structuredContent.vscode;
  assert.equal(vscode.tier, 1, JSON.stringify(vscode));
  assert.match(vscode.reason, /belongs to uid \d+, not to you/);

  // The victim's own port file (as the extension writes it) naming the attacker's port: the socket is not theirs.
  fs.writeFileSync(path.join(stateDir, 'vscode-cdp-port'), `${port}\n`, { mode: 0o600 });
  await waitUntil(async () => { // the watcher debounces, then probes
    vscode = (await call(coord.client, 'coordinator_status')).structuredContent.vscode;
    return /is listened on by uid/.test(vscode.reason);
  }, { what: 'the coordinator to look at the new port file' });
  assert.equal(vscode.tier, 1, JSON.stringify(vscode));
  assert.match(vscode.reason, new RegExp(`port ${port} is listened on by uid \\d+, not by you`));
  assert.equal((await call(coord.client, 'coordinator_status')).structuredContent.state, 'idle', 'nothing connected to the attacker');
});

test('the everyday browser: a DevToolsActivePort naming a port another user listens on is not used', { skip }, async (t) => {
  const { stateDir, cwd } = ws.dirs('everyday-port');
  fs.mkdirSync(stateDir, { mode: 0o700 });
  // The user's browser quit; the attacker took its port and answers there.
  const fake = spawnAs(attacker, process.execPath, ['-e', `
    const http = require('node:http');
    const s = http.createServer((q, r) => r.end('{}'));
    s.on('upgrade', (q, sock) => sock.end());
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`]);
  t.after(() => fake.kill());
  const port = await new Promise((resolve) => fake.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  const profile = fs.mkdtempSync(path.join(ws.work, 'profile-'));
  fs.writeFileSync(path.join(profile, 'DevToolsActivePort'), `${port}\n/devtools/browser/left-by-the-browser\n`, { mode: 0o600 });

  const coord = await connect(binaryPath(), ['--browser', 'everyday', '--user-data-dir', profile], { cwd, env: { BROWSER_COORDINATOR_STATE_DIR: stateDir } });
  t.after(() => coord.close());
  const r = await call(coord.client, 'coordinator_launch_browser', { browserType: 'everyday' }, { allowError: true });
  assert.equal(r.isError, true);
  assert.match(r.text, new RegExp(`port ${port} named in .*DevToolsActivePort is listened on by uid \\d+, not by you`));
  assert.equal(r.structuredContent.state, 'idle', 'nothing connected to the attacker');
});

test('the secret in a wrapped child\'s command line, read by another user, opens nothing: their connections are closed unread', { skip }, async (t) => {
  const { stateDir, cwd } = ws.dirs('cmdline');
  fs.mkdirSync(stateDir, { mode: 0o700 });
  const env = { BROWSER_COORDINATOR_STATE_DIR: stateDir };
  const coord = await connect(binaryPath(), [], { cwd, env });
  t.after(() => coord.close());
  // A child MCP as wrap starts it: the endpoint, with its secret, on its command line.
  const child = spawn(binaryPath(), ['wrap', '--', 'sh', '-c', 'sleep 60; exit 0', 'sh', '--cdp-endpoint', '{cdp_endpoint}'], { cwd, env: { ...process.env, ...env }, stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  const [{ cdpEndpoint }] = readStates(stateDir);
  await waitUntil(() => fs.readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').includes(cdpEndpoint), { what: 'wrap to start its child' });

  // The attacker reads it from /proc, as any user may here, and tries the proxy, the control API and a WebSocket.
  // (Raw requests: a connection closed before any answer leaves fetch's promise pending for ever.)
  const seen = JSON.parse(nodeAs(attacker, `
    const fs = await import('node:fs');
    const net = await import('node:net');
    const found = fs.readFileSync('/proc/${child.pid}/cmdline', 'utf8').split('\\0').find((a) => a.startsWith('http://127.0.0.1:'));
    const u = new URL(found);
    const send = (head) => new Promise((resolve) => {
      const s = net.connect(Number(u.port), '127.0.0.1', () => s.write(head + 'Host: 127.0.0.1:' + u.port + '\\r\\n\\r\\n'));
      let got = '';
      s.setTimeout(5000, () => { s.destroy(); resolve('timed out after ' + got.length + ' bytes'); });
      s.on('data', (d) => { got += d; });
      s.on('error', (e) => resolve('error ' + e.code));
      s.on('close', () => resolve('closed after ' + got.length + ' bytes'));
    });
    console.log(JSON.stringify({ found,
      version: await send('GET ' + u.pathname + '/json/version HTTP/1.1\\r\\n'),
      open: await send('PUT ' + u.pathname + '/json/new?file:///etc/shadow HTTP/1.1\\r\\n'),
      control: await send('GET /coordinator/status HTTP/1.1\\r\\n'),
      websocket: await send('GET ' + u.pathname + '/devtools/browser HTTP/1.1\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Version: 13\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n') }));`));
  assert.equal(seen.found, cdpEndpoint, 'the attacker did read the endpoint with its secret');
  for (const k of ['version', 'open', 'control', 'websocket']) assert.match(seen[k], /^(closed after 0 bytes|error )/, `${k}: ${seen[k]}`);
  assert.equal((await call(coord.client, 'coordinator_status')).structuredContent.state, 'idle', 'no browser was launched for the attacker');
  assert.match(coord.stderr(), /refused connections from another local user.*uid=\d+/);
  // The victim's own programs are served as before.
  const version = await (await fetch(`${cdpEndpoint}/json/version`)).json();
  assert.match(version.Browser, /Chrome/);
});

test('HTTP: another user gets nothing without the token, which is kept for the next start; only browsers launch', { skip }, async (t) => {
  openWork();
  const { stateDir, cwd } = ws.dirs('http');
  let hc = await startHTTPCoordinator({ stateDir, cwd });
  t.after(() => hc.stop()); // the one running when the test ends
  const tokenFile = path.join(stateDir, 'http-token');
  assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
  assert.match(hc.stderr(), new RegExp(`file=${tokenFile}`), 'the token file is named on stderr');
  assert.doesNotMatch(hc.stderr(), new RegExp(hc.token), 'the token itself is not logged');

  const got = JSON.parse(nodeAs(attacker, `
    const fs = await import('node:fs');
    let read = 'read';
    try { fs.readFileSync(${JSON.stringify(tokenFile)}); } catch (e) { read = e.code; }
    // (A raw request: fetch never settles on a connection closed before any answer.)
    const net = await import('node:net');
    const u = new URL(${JSON.stringify(hc.url)});
    const body = ${JSON.stringify(initializeBody)};
    const answer = await new Promise((resolve) => {
      const s = net.connect(Number(u.port), u.hostname, () => s.write('POST ' + u.pathname + ' HTTP/1.1\\r\\nHost: ' + u.host + '\\r\\nContent-Type: application/json\\r\\nAccept: application/json, text/event-stream\\r\\nContent-Length: ' + body.length + '\\r\\n\\r\\n' + body));
      let got = '';
      s.setTimeout(5000, () => { s.destroy(); resolve('timed out after ' + got.length + ' bytes'); });
      s.on('data', (d) => { got += d; });
      s.on('error', (e) => resolve('error ' + e.code));
      s.on('close', () => resolve('closed after ' + got.length + ' bytes'));
    });
    console.log(JSON.stringify({ read, answer }));`));
  assert.equal(got.read, 'EACCES');
  // Closed unread (Linux: another user's connection), not even a 401 to learn from.
  assert.match(got.answer, /^(closed after 0 bytes|error )/, got.answer);

  const token = hc.token;
  await hc.stop();
  hc = await startHTTPCoordinator({ stateDir, cwd });
  assert.equal(hc.token, token, 'the next start reuses the token');

  // With the token: a script, or any program that is not a browser, is never launched.
  const marker = path.join(ws.work, 'evil-ran');
  const evil = path.join(ws.work, 'evil.sh');
  fs.writeFileSync(evil, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
  const client = await connectHTTP(hc, 'streamable');
  t.after(() => client.close());
  for (const browserPath of [evil, 'sh', '/bin/true']) {
    const res = await call(client.client, 'coordinator_launch_browser', { browserPath }, { allowError: true });
    assert.ok(res.isError, browserPath);
    assert.match(res.text, /is not a browser this coordinator may launch/);
  }
  assert.ok(!fs.existsSync(marker), 'the script did not run');
  assert.equal((await call(client.client, 'coordinator_status')).structuredContent.state, 'idle');
  const [st] = readStates(stateDir);
  const control = await rawRequest(`http://127.0.0.1:${st.proxyPort}/coordinator/launch`, {
    headers: { authorization: `bearer ${st.controlToken}` }, // the scheme in any case, as everywhere
    body: JSON.stringify({ browserPath: evil }),
  });
  assert.equal(control.status, 400, `the control API too: ${control.body}`);
  assert.match(control.body, /not a browser this coordinator may launch/);
  assert.ok(!fs.existsSync(marker));
});

test('a browserPath that is not a browser stops nothing', async (t) => {
  const { stateDir, cwd } = ws.dirs('badlaunch');
  const coord = await connect(binaryPath(), [], { cwd, env: { BROWSER_COORDINATOR_STATE_DIR: stateDir } });
  t.after(() => coord.close());
  const before = (await call(coord.client, 'coordinator_launch_browser', { url: `${ws.pages.url}/` })).structuredContent;
  const res = await call(coord.client, 'coordinator_launch_browser', { browserPath: '/bin/true' }, { allowError: true });
  assert.ok(res.isError);
  const after = (await call(coord.client, 'coordinator_status')).structuredContent;
  assert.equal(after.state, 'running');
  assert.equal(after.browser.pid, before.browser.pid, 'the running browser was not touched');
  assert.ok(alive(before.browser.pid));
});

/** A small seeded generator, so that a failing run can be repeated. */
function prng(seed) {
  let x = seed >>> 0 || 1;
  return () => { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; return (x >>> 0) / 2 ** 32; };
}

test('stdio: thousands of malformed messages and a 50 MB line leave the server up and answering', async (t) => {
  const { stateDir, cwd } = ws.dirs('fuzz');
  const p = spawn(binaryPath(), [], { cwd, env: { ...process.env, BROWSER_COORDINATOR_STATE_DIR: stateDir }, stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => p.kill());
  let out = '';
  p.stdout.on('data', (d) => { out += d; });
  const rand = prng(Number(process.env.FUZZ_SEED ?? 20261122));
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const shapes = [
    () => Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 200) }, () => Math.floor(rand() * 256)).filter((b) => b !== 10)),
    () => JSON.stringify(pick([null, true, 1, 'x', [], {}, [1, 2]])),
    () => JSON.stringify({ jsonrpc: '2.0', id: pick([true, false, null, [], {}, { a: 1 }, 1.5, -1, 'é']), method: pick(['tools/list', 'tools/call', 'nope', 42]) }),
    () => JSON.stringify({ jsonrpc: pick(['1.0', 2, null]), id: 1, method: 'tools/list' }),
    () => JSON.stringify({ jsonrpc: '2.0', id: Math.floor(rand() * 1e6), method: 'tools/call', params: pick([null, 1, 'x', [], { name: 7 }, { name: 'coordinator_status', arguments: 'x' }, { name: 'nope', arguments: {} }]) }),
    () => '['.repeat(1 + Math.floor(rand() * 20000)),
    () => `[${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })}]`,
    () => '{"jsonrpc":"2.0","id":1,"method":"tools/list"'.slice(0, Math.floor(rand() * 40)),
  ];
  const write = (chunk) => new Promise((resolve) => (p.stdin.write(chunk) ? resolve() : p.stdin.once('drain', resolve)));
  await write(`${JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } })}\n`);
  for (let i = 0; i < 3000; i++) {
    await write(Buffer.concat([Buffer.from(shapes[Math.floor(rand() * shapes.length)]()), Buffer.from('\n')]));
  }
  await write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"big","method":"tools/list","params":{"x":"'), Buffer.alloc(50 << 20, 'a'), Buffer.from('"}}\n')]));
  await write(`${JSON.stringify({ jsonrpc: '2.0', id: 'last', method: 'tools/list' })}\n`);
  await waitUntil(() => out.includes('"id":"last"'), { timeout: 60_000, what: 'the answer to the last tools/list' });
  const last = out.split('\n').map((l) => { try { return JSON.parse(l); } catch { return null; } }).find((m) => m?.id === 'last');
  assert.ok(last.result.tools.some((x) => x.name === 'coordinator_status'), 'tools/list answers after the fuzz');
  assert.match(out, /the message is larger than 16 MiB/);
  assert.match(out, /batches are not supported/);
  assert.match(out, /the id must be a string or a number/);
  const rss = Number(fs.readFileSync(`/proc/${p.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024;
  assert.ok(rss < 120, `RSS after the fuzz: ${rss.toFixed(1)} MB (a 50 MB line must not be kept whole)`);
  assert.ok(alive(p.pid));
});

test('HTTP limits: big bodies are refused unread, sessions are capped, memory stays bounded', async (t) => {
  const { stateDir, cwd } = ws.dirs('limits');
  const hc = await startHTTPCoordinator({ stateDir, cwd });
  t.after(() => hc.stop());
  const rss = () => Number(fs.readFileSync(`/proc/${hc.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024;
  const http = await import('node:http');
  const post = (size, { chunked = false } = {}) => new Promise((resolve) => {
    const req = http.request(hc.url, { method: 'POST', headers: { ...hc.auth, 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': size }) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve('reset'));
    const chunk = Buffer.alloc(1 << 20, ' ');
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
  const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => post(60 << 20, { chunked: i % 2 === 1 })));
  for (const s of statuses) assert.ok(s === 413 || s === 'reset', `a 60 MB body: ${s}`);
  assert.ok(rss() < 150, `RSS after 12 concurrent 60 MB bodies: ${rss().toFixed(1)} MB`);

  let opened = 0;
  let refused;
  for (let i = 0; i < 300 && !refused; i++) {
    const r = await rawRequest(hc.url, { headers: hc.auth, body: initializeBody });
    if (r.status === 200) opened++;
    else refused = r;
  }
  assert.equal(opened, 256, 'sessions are capped at 256');
  assert.equal(refused.status, 503);
  assert.match(refused.body, /Too many open sessions/);
  assert.ok(rss() < 150, `RSS with 256 sessions: ${rss().toFixed(1)} MB`);
});
