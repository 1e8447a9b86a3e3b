// Benchmarks of single-entry mode (--mcp) and the HTTP transport, for
// scripts/bench.mjs: each measured next to the same work done directly.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { connect, startCoordinator, call } from './mcp.mjs';
import { binaryPath, childMCPs } from './paths.mjs';
import { startHTTPCoordinator, initializeBody } from './httpmcp.mjs';
import { readStates } from './statefiles.mjs';

const rss = (pid) => Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) * 1024;

/**
 * Single-entry mode's cost per child tool call: a Playwright MCP tool call
 * through `browser-coordinator --mcp` vs the same Playwright MCP called
 * directly, both on the same browser through the same CDP proxy, so that the
 * difference is the MCP hop alone. The tool is browser_network_requests: it
 * reads the page (a few ms) and does not wait for the page to settle, as
 * browser_evaluate does (half a second, which would bury the difference).
 * Returns the two medians (ms).
 */
export async function singleEntryCall({ work, pages, n, alternate }) {
  const se = await startCoordinator({ stateDir: path.join(work, 'se'), cwd: work, args: ['--mcp', ...childMCPs.playwright] });
  try {
    await call(se.client, 'browser_navigate', { url: `${pages.url}/` }); // launches the browser
    const [{ cdpEndpoint: endpoint }] = readStates(path.join(work, 'se')); // with its secret
    const direct = await connect(childMCPs.playwright[0], [...childMCPs.playwright.slice(1), '--cdp-endpoint', endpoint], { cwd: work });
    try {
      await call(direct.client, 'browser_navigate', { url: `${pages.url}/` });
      const read = (c) => () => call(c.client, 'browser_network_requests', {});
      await alternate(20, read(direct), read(se));
      return await alternate(n, read(direct), read(se));
    } finally {
      await direct.close();
    }
  } finally {
    await se.close();
  }
}

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const toolsList = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';

// A keep-alive connection per client: what a long-lived MCP client holds.
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** POSTs body with node:http (lighter than fetch, so that the server is what is measured); resolves to the body. */
function post(url, extra, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...headers, ...extra } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { data += d; });
      res.on('end', () => resolve(data));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens a streamable HTTP session with raw requests; returns its id. */
async function openSession(url, auth) {
  const r = await fetch(url, { method: 'POST', headers: { ...headers, ...auth }, body: initializeBody });
  await r.text();
  const id = r.headers.get('mcp-session-id');
  if (!id) throw new Error(`initialize failed: ${r.status}`);
  const h = { ...headers, ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
  await (await fetch(url, { method: 'POST', headers: h, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).text();
  return id;
}

/** Runs n calls of one(worker) spread over workers, all at once; returns calls per second. */
async function rate(n, workers, one) {
  let started = 0;
  const t = performance.now();
  await Promise.all(workers.map(async (w) => {
    while (started < n) {
      started++;
      await one(w);
    }
  }));
  return n / ((performance.now() - t) / 1000);
}

/**
 * tools/list per second from 8 concurrent clients over streamable HTTP
 * (a session each), next to the same coordinator over stdio with 8
 * requests in flight at once. Raw JSON-RPC on both, so that the client's own
 * cost stays small. Returns { http, stdio } in requests per second.
 */
export async function httpToolsListRate({ work, n, clients = 8 }) {
  const hc = await startHTTPCoordinator({ stateDir: path.join(work, 'http-rate'), cwd: work });
  let http;
  try {
    const sessions = await Promise.all(Array.from({ length: clients }, () => openSession(hc.url, hc.auth)));
    const list = async (id) => {
      const body = await post(hc.url, { ...hc.auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, toolsList);
      if (!body.includes('coordinator_status')) throw new Error(`tools/list failed: ${body}`);
    };
    await rate(clients * 20, sessions, list);
    http = await rate(n, sessions, list);
  } finally {
    await hc.stop();
  }

  const stdio = await stdioClient({ stateDir: path.join(work, 'stdio-rate'), cwd: work });
  try {
    const slots = Array.from({ length: clients }, (_, i) => i);
    await rate(clients * 20, slots, () => stdio.request('tools/list'));
    return { http, stdio: await rate(n, slots, () => stdio.request('tools/list')) };
  } finally {
    await stdio.close();
  }
}

/** The coordinator on stdio with a minimal JSON-RPC client that keeps any number of requests in flight. */
async function stdioClient({ stateDir, cwd }) {
  const p = spawn(binaryPath(), [], { cwd, env: { ...process.env, BROWSER_COORDINATOR_STATE_DIR: stateDir }, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  let buf = '';
  let id = 0;
  p.stdout.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const m = JSON.parse(line);
      waiting.get(m.id)?.(m);
      waiting.delete(m.id);
    }
  });
  const request = (method, params = {}) => new Promise((resolve) => {
    waiting.set(++id, resolve);
    p.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  return {
    request,
    close: () => new Promise((resolve) => { p.once('exit', resolve); p.stdin.end(); }),
  };
}

/**
 * Memory per HTTP session: the coordinator's RSS growth over n streamable
 * HTTP sessions (each initialized and used once), divided by n. Returns
 * bytes per session and the RSS before.
 */
export async function httpSessionMemory({ work, n }) {
  const hc = await startHTTPCoordinator({ stateDir: path.join(work, 'http-mem'), cwd: work });
  try {
    for (let i = 0; i < 20; i++) await openSession(hc.url, hc.auth); // the first sessions warm up pools and caches
    await new Promise((r) => setTimeout(r, 200));
    const before = rss(hc.pid);
    for (let i = 0; i < n; i += 50) {
      const ids = await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => openSession(hc.url, hc.auth)));
      await Promise.all(ids.map((id) => post(hc.url, { ...hc.auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, toolsList)));
    }
    await new Promise((r) => setTimeout(r, 200));
    return { perSession: (rss(hc.pid) - before) / n, before };
  } finally {
    await hc.stop();
  }
}
