// Port discovery against a real Chromium: its DevToolsActivePort is the file
// VS Code's Electron writes with --remote-debugging-port=0.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { AddressInfo } from 'node:net';
import { discover, fetchVersion, parseActivePort, portFilePath, readPortFile, removePortFile, writePortFile, ACTIVE_PORT_FILE } from '../src/cdpPort';
import { request } from '../src/http';
import { UntrustedError } from '../src/stateFile';
import { requireChromium, startChromium, tempDir } from './helpers';

test('parseActivePort: port and browser path; half-written and foreign files are errors', () => {
  assert.deepEqual(parseActivePort('9222\n/devtools/browser/abc-123\n'), { port: 9222, browserPath: '/devtools/browser/abc-123' });
  assert.deepEqual(parseActivePort('9222\r\n/devtools/browser/abc\r\n'), { port: 9222, browserPath: '/devtools/browser/abc' });
  for (const [text, why] of [
    ['', /line 1 is "", not a port number/],
    ['92', /line 2 is "", not \/devtools\/browser/],
    ['9222\n', /line 2 is ""/],
    ['9222\n/devtools/brow', /half-written/],
    ['port\n/devtools/browser/x', /line 1 is "port"/],
    ['70000\n/devtools/browser/x', /out of range/],
    ['0\n/devtools/browser/x', /out of range/],
  ] as const) {
    const r = parseActivePort(text);
    assert.ok(r instanceof Error, `${JSON.stringify(text)} is not accepted`);
    assert.match(r.message, why);
  }
});

test('discover: no DevToolsActivePort → missing, saying a restart may be due', async (t) => {
  const d = await discover(tempDir(t));
  assert.equal(d.kind, 'missing');
  assert.match(d.kind === 'missing' ? d.reason : '', /not been fully restarted/);
});

test('discover: half-written DevToolsActivePort → malformed', async (t) => {
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, ACTIVE_PORT_FILE), '4123');
  const d = await discover(dir);
  assert.equal(d.kind, 'malformed');
  fs.writeFileSync(path.join(dir, ACTIVE_PORT_FILE), '');
  assert.equal((await discover(dir)).kind, 'malformed');
});

test('discover against a real Chromium: live, then another browser\'s file (mismatch), then stale after it dies', async (t) => {
  const exe = requireChromium(t);
  if (!exe) return;
  const browser = await startChromium(t, exe);
  const text = fs.readFileSync(path.join(browser.userDataDir, ACTIVE_PORT_FILE), 'utf8');
  const parsed = parseActivePort(text);
  assert.ok(!(parsed instanceof Error));

  // The product gives a browser 2 s to answer; a busy test machine may need
  // longer, and a browser that answers nothing fails the test at the guard.
  const guard = 60_000;
  const live = await discover(browser.userDataDir, guard);
  assert.equal(live.kind, 'live', JSON.stringify(live));
  if (live.kind !== 'live') return;
  assert.equal(live.port, parsed.port);
  assert.equal(live.browserPath, parsed.browserPath);
  assert.match(live.version ?? '', /Chrom/);

  // The same port, but line 2 of another browser: a port that answers but is not that VS Code.
  const other = tempDir(t);
  fs.writeFileSync(path.join(other, ACTIVE_PORT_FILE), `${parsed.port}\n/devtools/browser/00000000-0000-0000-0000-000000000000`);
  const mismatch = await discover(other, guard);
  assert.equal(mismatch.kind, 'mismatch');
  assert.match(mismatch.kind === 'mismatch' ? mismatch.reason : '', new RegExp(`answers as ${parsed.browserPath}, not /devtools/browser/0000`));

  await browser.kill();
  assert.ok(fs.existsSync(path.join(browser.userDataDir, ACTIVE_PORT_FILE)), 'the file outlives the browser');
  const stale = await discover(browser.userDataDir);
  assert.equal(stale.kind, 'stale', JSON.stringify(stale));
  assert.match(stale.kind === 'stale' ? stale.reason : '', /left from an earlier run/);
});

test('discover: a port that answers HTTP but is not CDP → mismatch', async (t) => {
  const server = http.createServer((_req, res) => res.writeHead(404).end('not here'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, ACTIVE_PORT_FILE), `${port}\n/devtools/browser/x\n`);
  const d = await discover(dir);
  assert.equal(d.kind, 'mismatch');
  assert.match(d.kind === 'mismatch' ? d.reason : '', /not a CDP endpoint: \/json\/version answered HTTP 404/);
});

test('the port file\'s place: $TMPDIR on macOS (per user there), the per-user state folder elsewhere', () => {
  assert.equal(portFilePath({ platform: 'darwin', home: '/Users/u', tmpdir: '/var/folders/ab/T', env: {} }), '/var/folders/ab/T/vscode-cdp-port');
  assert.equal(portFilePath({ platform: 'linux', home: '/home/u', tmpdir: '/tmp', env: {} }), '/home/u/.local/state/browser-coordinator/vscode-cdp-port');
  assert.equal(portFilePath({ platform: 'linux', home: '/home/u', tmpdir: '/tmp', env: { XDG_RUNTIME_DIR: '/run/user/1000' } }), '/run/user/1000/browser-coordinator/vscode-cdp-port');
  assert.equal(portFilePath({ platform: 'linux', home: '/home/u', tmpdir: '/tmp', env: { BROWSER_COORDINATOR_STATE_DIR: '/s' } }), '/s/vscode-cdp-port');
  assert.equal(portFilePath({ platform: 'linux', home: '/home/u', tmpdir: '/tmp', env: {} }, '/flag'), '/flag/vscode-cdp-port');
});

test('the port file: mode 0600 in a folder made 0700, atomic, removed only while it holds our port', (t) => {
  const dir = path.join(tempDir(t), 'state');
  const file = path.join(dir, 'vscode-cdp-port');
  writePortFile(4321, file);
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700, 'the folder is created private');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.readFileSync(file, 'utf8'), '4321\n');
  assert.equal(readPortFile(file), 4321);
  assert.deepEqual(fs.readdirSync(dir), ['vscode-cdp-port'], 'no temp file left');
  writePortFile(4322, file);
  assert.equal(removePortFile(4321, file), false, 'another VS Code\'s port stays');
  assert.equal(readPortFile(file), 4322);
  assert.equal(removePortFile(4322, file), true);
  assert.equal(fs.existsSync(file), false);
  assert.equal(readPortFile(file), undefined);
});

test('the port file is not written into a folder others can write, and one others could have written is not read', (t) => {
  const dir = tempDir(t);
  fs.chmodSync(dir, 0o777);
  const file = path.join(dir, 'vscode-cdp-port');
  assert.throws(() => writePortFile(4321, file), (err: unknown) => err instanceof UntrustedError && err.message.includes(`chmod 700 ${dir}`));
  assert.equal(fs.existsSync(file), false, 'nothing written');
  fs.writeFileSync(file, '4321\n', { mode: 0o600 });
  assert.equal(readPortFile(file), undefined, 'a port file in a shared folder is not trusted');

  const mine = tempDir(t);
  const open = path.join(mine, 'vscode-cdp-port');
  fs.writeFileSync(open, '5555\n');
  fs.chmodSync(open, 0o644);
  assert.equal(readPortFile(open), undefined, 'mode 0644 is refused');
  assert.equal(removePortFile(5555, open), false);
  assert.ok(fs.existsSync(open), 'and not removed either');
  const target = path.join(mine, 'elsewhere');
  fs.writeFileSync(target, '6666\n', { mode: 0o600 });
  const link = path.join(mine, 'linked-port');
  fs.symlinkSync(target, link);
  assert.equal(readPortFile(link), undefined, 'a symlink is refused');
  assert.equal(readPortFile(target, process.getuid!() + 1), undefined, 'another user\'s file is refused');
});

test('the port file as root: a folder or a file chowned to another uid is refused', { skip: process.getuid?.() === 0 ? false : 'needs root to chown (CI runs as root on Linux)' }, (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'vscode-cdp-port');
  fs.writeFileSync(file, '7777\n', { mode: 0o600 });
  fs.chownSync(file, 65534, 65534);
  assert.equal(readPortFile(file), undefined, 'an attacker\'s port file is not read');
  const theirs = path.join(tempDir(t), 'theirs');
  fs.mkdirSync(theirs, { mode: 0o700 });
  fs.chownSync(theirs, 65534, 65534);
  assert.throws(() => writePortFile(1234, path.join(theirs, 'vscode-cdp-port')), /belongs to uid 65534/);
});

/** A server that answers each request with handler's raw socket writes. */
async function rawServer(t: { after: (fn: () => void) => void }, handler: (socket: import('node:net').Socket) => void): Promise<number> {
  const net = await import('node:net');
  const sockets = new Set<import('node:net').Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('data', () => handler(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}

test('HTTP: every way an answer can fail ends the request with an error that says so', async (t) => {
  // Never answers: the whole-request deadline.
  const silent = await rawServer(t, () => {});
  await assert.rejects(fetchVersion(silent, 300), /no complete answer within 300 ms/);
  // Headers, then the connection drops mid-body.
  const cut = await rawServer(t, (s) => s.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"Browser"'));
  await assert.rejects(request({ port: cut, path: '/json/version', timeoutMs: 2000 }), /closed before the answer was complete/);
  // A body that trickles forever: cut off by the deadline, not only an idle timer.
  const trickle = await rawServer(t, (s) => {
    s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
    const timer = setInterval(() => s.write('1\r\n{\r\n'), 50);
    s.on('close', () => clearInterval(timer));
  });
  await assert.rejects(request({ port: trickle, path: '/', timeoutMs: 400 }), /no complete answer within 400 ms/);
  // Too large.
  const big = await rawServer(t, (s) => s.end(`HTTP/1.1 200 OK\r\nContent-Length: 200000\r\n\r\n${'x'.repeat(200000)}`));
  await assert.rejects(request({ port: big, path: '/', timeoutMs: 2000, maxBytes: 1000 }), /larger than 1000 bytes/);
  // Not JSON, not an object.
  const text = await rawServer(t, (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n42'));
  await assert.rejects(fetchVersion(text), /did not answer a JSON object/);
  // discover() turns each into a kind with a reason, never a hang or a throw.
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, ACTIVE_PORT_FILE), `${cut}\n/devtools/browser/x\n`);
  const d = await discover(dir, 1000);
  assert.equal(d.kind, 'mismatch');
  assert.match(d.kind === 'mismatch' ? d.reason : '', /not a CDP endpoint: .*closed before the answer was complete/);
});
