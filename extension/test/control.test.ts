import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { ControlClient, ControlError } from '../src/control';
import { scan } from '../src/stateFile';
import { requireChromium, requireSidecar, tempDir, waitFor } from './helpers';

test('ControlClient: bearer token, JSON body, and the API\'s errors as ControlError', async (t) => {
  const seen: { method?: string; url?: string; auth?: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body });
      res.setHeader('Content-Type', 'application/json');
      if (req.headers.authorization !== 'Bearer good') res.writeHead(401).end('{"error":"bad token"}');
      else if (req.url === '/coordinator/launch' && JSON.parse(body).browserType === 'nope') res.writeHead(400).end('{"error":"unknown browserType \\"nope\\""}');
      else if (req.url === '/coordinator/restart') res.writeHead(502).end('{"error":"launch failed: no browser found","remedies":[{"kind":"browser-path"},{"kind":"unknown-kind"}],"status":{"state":"crashed"}}');
      else if (req.url === '/coordinator/stop') res.writeHead(500).end('oops');
      else res.end(JSON.stringify({ state: 'running', backend: 'tier1', proxyPort: 1, cdpEndpoint: 'x' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const client = new ControlClient(port, 'good');

  assert.equal((await client.status()).state, 'running');
  assert.deepEqual(seen[0], { method: 'GET', url: '/coordinator/status', auth: 'Bearer good', body: '' });
  await client.launch({ headless: false, url: 'http://127.0.0.1/' });
  assert.deepEqual(JSON.parse(seen[1].body), { headless: false, url: 'http://127.0.0.1/' });
  await assert.rejects(client.launch({ browserType: 'nope' }), (e: unknown) => e instanceof ControlError && e.status === 400 && /unknown browserType/.test(e.message));
  await assert.rejects(client.restart(), (e: unknown) => e instanceof ControlError && e.status === 502 && (e.body as { status: { state: string } }).status.state === 'crashed' &&
    e.message === 'launch failed: no browser found; or add --browser-path <the browser\'s executable> to the setting browserCoordinator.coordinatorArgs to use a browser installed elsewhere');
  await assert.rejects(client.stop(), /HTTP 500, not JSON: oops/);
  await assert.rejects(new ControlClient(port, 'bad').status(), (e: unknown) => e instanceof ControlError && e.status === 401);
  server.close();
  server.closeAllConnections();
  await assert.rejects(new ControlClient(port, 'good', 1000).status(), (e: unknown) => e instanceof ControlError && e.status === 0 && /ECONNREFUSED/.test(e.message));
});

test('ControlClient against a real coordinator: status, launch headless, stop; a wrong token is refused', async (t) => {
  const sidecar = requireSidecar();
  if (!requireChromium(t)) return;
  const dir = tempDir(t);
  const ws = tempDir(t);
  const proc = spawn(sidecar, ['serve', '--state-dir', dir], { cwd: ws, stdio: ['pipe', 'ignore', 'inherit'] });
  const exited = new Promise((r) => proc.once('exit', r));
  t.after(async () => {
    proc.stdin.end(); // stdin EOF: the coordinator stops its browser and exits
    await exited;
  });
  const entry = await waitFor(() => scan(dir).live[0], 'the state file');
  assert.equal(fs.realpathSync(entry.state.workspace), fs.realpathSync(ws));
  const client = ControlClient.of(entry.state);
  assert.equal((await client.status()).state, 'idle');
  const launched = await client.launch({ headless: true });
  assert.equal(launched.state, 'running');
  assert.equal(launched.browser?.headless, true);
  await waitFor(() => scan(dir).live[0]?.state.state === 'running', 'the state file to say running');
  await assert.rejects(new ControlClient(entry.state.proxyPort, 'wrong').stop(), (e: unknown) => e instanceof ControlError && e.status === 401);
  // The sidecar sends remedies as kinds; the extension says them in its own words, never in the tools' or the command line's.
  await assert.rejects(client.launch({ browserPath: '/nonexistent/chrome' }), (e: unknown) => e instanceof ControlError && e.status === 400 &&
    /does not exist or is not executable; name the browser's executable file \(for example \/usr\/bin\/chromium\)/.test(e.message) && !/browserPath the|--browser-path/.test(e.message));
  assert.equal((await client.stop()).state, 'stopped');
  proc.stdin.end();
  await exited;
  assert.equal(fs.existsSync(path.join(dir, path.basename(entry.file))), false, 'clean exit removes the state file');
});
