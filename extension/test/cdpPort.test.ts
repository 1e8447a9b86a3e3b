// Port discovery against a real Chromium: its DevToolsActivePort is the file
// VS Code's Electron writes with --remote-debugging-port=0.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { AddressInfo } from 'node:net';
import { discover, parseActivePort, portFilePath, readPortFile, removePortFile, writePortFile, ACTIVE_PORT_FILE } from '../src/cdpPort';
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

  const live = await discover(browser.userDataDir);
  assert.equal(live.kind, 'live', JSON.stringify(live));
  if (live.kind !== 'live') return;
  assert.equal(live.port, parsed.port);
  assert.equal(live.browserPath, parsed.browserPath);
  assert.match(live.version ?? '', /Chrom/);

  // The same port, but line 2 of another browser: a port that answers but is not that VS Code.
  const other = tempDir(t);
  fs.writeFileSync(path.join(other, ACTIVE_PORT_FILE), `${parsed.port}\n/devtools/browser/00000000-0000-0000-0000-000000000000`);
  const mismatch = await discover(other);
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

test('the port file: written atomically as the port, removed only while it holds our port', (t) => {
  const dir = tempDir(t);
  const file = portFilePath(dir);
  assert.equal(file, path.join(dir, 'vscode-cdp-port'));
  writePortFile(4321, file);
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
