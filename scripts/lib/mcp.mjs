// MCP clients for tests, the demo and benchmarks: the official TypeScript SDK
// over stdio, talking to the coordinator and to wrapped child MCPs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { binaryPath, childMCPs } from './paths.mjs';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Starts an MCP server process and connects a client to it.
 * Returns { client, transport, pid, stderr(), close(), exit() }.
 */
export async function connect(command, args, { env = {}, cwd, name = 'test' } = {}) {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    env: { ...process.env, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  const client = new Client({ name, version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`${command} ${args.join(' ')}: ${err.message}\n--- stderr ---\n${stderr}`, { cause: err });
  }
  return {
    client,
    transport,
    pid: transport.pid,
    stderr: () => stderr,
    close: () => client.close(),
    exit: () => exitOnEOF(transport, client),
  };
}

/**
 * Ends the server's stdin, as a host that lets go does, and waits for the
 * process to exit by itself. The SDK's close() sends SIGTERM after 2 s and
 * SIGKILL after 4, which a clean shutdown on a busy machine may need; a
 * test of that shutdown must not cut it short. Fails after two minutes.
 */
async function exitOnEOF(transport, client) {
  const proc = transport._process; // the SDK keeps the child private; its stdin is the host's side
  if (proc && proc.exitCode === null && proc.signalCode === null) {
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.stdin.end();
    let timer;
    const guard = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`pid ${proc.pid} did not exit within 2 minutes of stdin EOF`)), 120_000); });
    try {
      await Promise.race([exited, guard]);
    } finally {
      clearTimeout(timer);
    }
  }
  await client.close();
}

/** Starts the coordinator (`browser-coordinator serve` on stdio) with a private state dir. */
export function startCoordinator({ stateDir, args = [], cwd, env = {} } = {}) {
  return connect(binaryPath(), args, {
    cwd,
    name: 'coordinator-test',
    env: { BROWSER_COORDINATOR_STATE_DIR: stateDir, ...env },
  });
}

/** Child MCP command lines, the way a user writes them after `wrap --`. */
export const wrapped = {
  playwright: [...childMCPs.playwright, '--cdp-endpoint', '{cdp_endpoint}'],
  'chrome-devtools': [...childMCPs['chrome-devtools'], '--browserUrl', '{cdp_endpoint}', '--no-usage-statistics'],
};

/** Starts `browser-coordinator wrap -- <child>` as an MCP server and connects to it. */
export function startWrapped(child, { stateDir, cwd, timeout = '30s', env = {} } = {}) {
  return connect(binaryPath(), ['wrap', '--timeout', timeout, '--', ...wrapped[child]], {
    cwd,
    name: `${child}-test`,
    env: { BROWSER_COORDINATOR_STATE_DIR: stateDir, CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1', ...env },
  });
}

/** Calls a tool and returns the text of its content; throws on isError. */
export async function call(client, name, args = {}, { allowError = false } = {}) {
  const res = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  if (res.isError && !allowError) throw new Error(`${name} failed: ${text}`);
  return { ...res, text };
}

/**
 * Environment for a wrapped Playwright MCP that logs when it notices a lost
 * browser (its debug namespace pw:mcp:backend), for noticedDisconnects.
 */
export const playwrightDisconnectLog = { DEBUG: 'pw:mcp:backend' };

/**
 * How many times a wrapped Playwright MCP started with playwrightDisconnectLog
 * has noticed that its browser went away. Playwright notices a few event-loop
 * turns after the connection closes; a call sent within that window runs on
 * the dead context. An agent's next call comes seconds later; a test that
 * switches the browser and calls at once waits for this count to grow.
 */
export function noticedDisconnects(conn) {
  return (conn.stderr().match(/browser disconnected/g) ?? []).length;
}

/**
 * A state folder and a workspace folder (both created, new each time) for
 * name, under work, with short names: the everyday browser's native host
 * has its socket below the state folder, and a socket path is short.
 */
export function everydayDirs(work, name) {
  return { stateDir: fs.mkdtempSync(path.join(work, `${name}-s`)), cwd: fs.mkdtempSync(path.join(work, `${name}-w`)) };
}

/** A coordinator's state folder and a workspace folder (created) named name, under work. */
export function coordinatorDirs(work, name) {
  const stateDir = path.join(work, `${name}-state`);
  const cwd = path.join(work, `${name}-ws`);
  fs.mkdirSync(cwd, { recursive: true });
  return { stateDir, cwd };
}
