// The coordinator over HTTP (`--transport http`) for tests and benchmarks:
// start it on a free loopback port, connect official SDK clients over
// streamable HTTP or SSE, and send raw requests (a Host header of our own
// choosing included, which fetch does not allow).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { binaryPath } from './paths.mjs';

/**
 * Starts `browser-coordinator --transport http --listen 127.0.0.1:0 ARGS` and
 * resolves once it serves, to { url (of /mcp), base, pid, token, auth (the
 * Authorization header), stderr(), stop(signal) → exit code }. The token is
 * BROWSER_COORDINATOR_TOKEN when env sets it, else the one the coordinator
 * keeps in the state folder's http-token.
 */
export function startHTTPCoordinator({ stateDir, cwd, args = [], env = {} } = {}) {
  const p = spawn(binaryPath(), ['--transport', 'http', '--listen', '127.0.0.1:0', ...args], {
    cwd,
    env: { ...process.env, BROWSER_COORDINATOR_STATE_DIR: stateDir, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise((resolve) => p.once('exit', (code, signal) => resolve(code ?? signal)));
  return new Promise((resolve, reject) => {
    p.stderr.on('data', (d) => {
      stderr += d;
      const m = stderr.match(/msg="serving MCP over HTTP" .*?mcp=(http:\/\/\S+)\/mcp/);
      if (m) {
        const token = env.BROWSER_COORDINATOR_TOKEN ?? readToken(stateDir);
        resolve({
          token,
          auth: token ? { authorization: `Bearer ${token}` } : {},
          base: m[1],
          url: `${m[1]}/mcp`,
          pid: p.pid,
          stderr: () => stderr,
          stop: (signal = 'SIGTERM') => {
            if (p.exitCode === null && p.signalCode === null) p.kill(signal);
            return exited;
          },
        });
      }
    });
    exited.then((code) => reject(new Error(`the coordinator exited (${code}) before serving HTTP:\n${stderr}`)));
  });
}

function readToken(stateDir) {
  try {
    return fs.readFileSync(path.join(stateDir, 'http-token'), 'utf8').trim();
  } catch {
    return undefined; // --insecure-no-token
  }
}

/** Connects an SDK client over streamable HTTP ('streamable') or SSE ('sse'), with the coordinator's token unless headers say otherwise. */
export async function connectHTTP(coordinator, kind = 'streamable', { headers = coordinator.auth ?? {}, name = `${kind}-client` } = {}) {
  const requestInit = { headers };
  const transport = kind === 'sse'
    ? new SSEClientTransport(new URL(`${coordinator.base}/sse`), { requestInit })
    : new StreamableHTTPClientTransport(new URL(coordinator.url), { requestInit });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** One raw HTTP request; resolves to { status, headers, body }. */
export function rawRequest(url, { method = 'POST', headers = {}, body = '' } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    }, (res) => {
      let data = '';
      res.on('data', (d) => { data += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** An initialize request body, for raw requests. */
export const initializeBody = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
