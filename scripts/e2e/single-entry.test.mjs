// End to end: single-entry mode (`browser-coordinator --mcp CMD ARGS…`) with
// real child MCPs (@playwright/mcp, chrome-devtools-mcp), driven by the
// official MCP TypeScript SDK, compared with the same child called directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, startCoordinator, call } from '../lib/mcp.mjs';
import { childMCPs } from '../lib/paths.mjs';
import { workspace } from '../lib/workspace.mjs';
import { readStates } from '../lib/statefiles.mjs';
import { alive, waitUntil } from '../lib/procs.mjs';

const cdtEnv = { CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' };
const cdtArgs = ['--browserUrl', '{cdp_endpoint}', '--no-usage-statistics'];

const ws = workspace('bcse-');

/** Records every JSON-RPC message a client receives, as parsed from the wire (before the SDK validates it). */
function tap(conn) {
  const messages = [];
  const deliver = conn.transport.onmessage;
  conn.transport.onmessage = (message, extra) => {
    messages.push(structuredClone(message));
    deliver?.(message, extra);
  };
  return messages;
}

/** The wire form of the last result of a request with this method. */
async function rawResult(conn, wire, method, params) {
  const before = wire.length;
  if (method === 'tools/list') await conn.client.listTools(params);
  else await conn.client.callTool(params, undefined, { timeout: 120_000 });
  const res = wire.slice(before).findLast((m) => m.result !== undefined || m.error !== undefined);
  assert.ok(res?.result, `${method}: ${JSON.stringify(res)}`);
  return res.result;
}

async function status(conn) {
  return (await call(conn.client, 'coordinator_status')).structuredContent;
}

/** The single-entry coordinator and the same child connected directly, each with a browser of its own. */
async function pair(t, name, childArgv, { env = {} } = {}) {
  const se = ws.dirs(`${name}-se`);
  const coord = await startCoordinator({ ...se, args: ['--mcp', ...childArgv], env });
  t.after(() => coord.close());
  // "Directly": the child on its own, its CDP endpoint that of a plain
  // coordinator of its own (the same CDP path as the single-entry child's).
  const plain = ws.dirs(`${name}-plain`);
  const backend = await startCoordinator(plain);
  t.after(() => backend.close());
  await status(backend);
  const [{ cdpEndpoint: endpoint }] = readStates(plain.stateDir); // the real one, with its secret (status shows it redacted)
  const argv = childArgv.map((a) => a.replaceAll('{cdp_endpoint}', endpoint));
  if (!argv.some((a) => a.includes(endpoint))) argv.push(`--cdp-endpoint=${endpoint}`);
  const direct = await connect(argv[0], argv.slice(1), { cwd: plain.cwd, env });
  t.after(() => direct.close());
  return { coord, direct, coordWire: tap(coord), directWire: tap(direct) };
}

// The tool annotations of the MCP spec. mcp-go models only these: another
// key (chrome-devtools-mcp's "category") does not survive its tools/list.
const specAnnotations = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

/** Asserts the merged list serves every tool of the child exactly as the child lists it. */
async function assertSameTools(coord, coordWire, direct, directWire) {
  const merged = (await rawResult(coord, coordWire, 'tools/list')).tools;
  const own = (await rawResult(direct, directWire, 'tools/list')).tools;
  const byName = new Map(merged.map((tool) => [tool.name, tool]));
  assert.ok(own.length > 5, 'the child lists its tools');
  assert.equal(merged.length, own.length + 12, 'the merged list is the coordinator tools (9, the page-tools pair and coordinator_handle_dialog) plus every child tool');
  for (const tool of own) {
    const served = byName.get(tool.name);
    assert.ok(served, `${tool.name} is served`);
    assert.deepEqual(served.inputSchema, tool.inputSchema, `${tool.name}: inputSchema as the child lists it`);
    assert.deepEqual(served.outputSchema, tool.outputSchema, `${tool.name}: outputSchema as the child lists it`);
    // mcp-go writes "annotations" always (a tool without them gets {}), and
    // only the spec's annotations.
    const annotations = Object.fromEntries(Object.entries(tool.annotations ?? {}).filter(([k]) => specAnnotations.includes(k)));
    assert.deepEqual(served, { ...tool, annotations }, `${tool.name}: the whole tool as the child lists it`);
  }
  return own;
}

/** What differs between two runs of a page for reasons of its own: timestamps in file names and times. */
function normalize(result) {
  return JSON.parse(JSON.stringify(result)
    .replace(/\d{4}-\d\d-\d\dT\d\d[-:]\d\d[-:]\d\d[-.]\d+Z/g, '<time>'));
}

test('Playwright MCP in single-entry mode: the same tools and results as called directly; lazy launch; a killed child comes back', async (t) => {
  const { coord, direct, coordWire, directWire } = await pair(t, 'pw', childMCPs.playwright);
  await assertSameTools(coord, coordWire, direct, directWire);
  let s = await status(coord);
  assert.equal(s.state, 'idle', 'listing tools launches no browser');
  assert.equal(s.child.state, 'running');
  assert.match(s.child.command, new RegExp(`--cdp-endpoint=${s.cdpEndpoint}$`), 'the child got the stable endpoint');

  // navigate + snapshot: the results are the child's own, unchanged (both
  // children see the same page server; only snapshot file times differ).
  for (const [name, args] of [['browser_navigate', { url: `${ws.pages.url}/` }], ['browser_snapshot', {}]]) {
    const viaCoordinator = await rawResult(coord, coordWire, 'tools/call', { name, arguments: args });
    const straight = await rawResult(direct, directWire, 'tools/call', { name, arguments: args });
    assert.match(JSON.stringify(viaCoordinator), /Coordinator test page/);
    assert.deepEqual(normalize(viaCoordinator), normalize(straight), `${name}: the same result as from the child directly`);
  }
  s = await status(coord);
  assert.equal(s.state, 'running', 'the first child tool call launched the browser');

  // Kill the child's whole process group mid-session: the next call starts
  // it again and goes through.
  const { pid } = s.child;
  process.kill(-pid, 'SIGKILL');
  const again = await call(coord.client, 'browser_navigate', { url: `${ws.pages.url}/second` });
  assert.match(again.text, /Second page/);
  s = await status(coord);
  assert.equal(s.child.state, 'running');
  assert.equal(s.child.restarts, 1);
  assert.notEqual(s.child.pid, pid);
  assert.ok(!alive(pid), 'the killed child is gone');
  assert.match((await call(coord.client, 'browser_snapshot')).text, /Second page/, 'the restarted child drives the same browser');

  // Closing the coordinator (stdin EOF) ends the child.
  const child = s.child.pid;
  await coord.close();
  await waitUntil(() => !alive(child), { what: 'the child to exit with its coordinator' });
});

test('chrome-devtools-mcp in single-entry mode: the same tools and results as called directly', async (t) => {
  const argv = [...childMCPs['chrome-devtools'], ...cdtArgs];
  const { coord, direct, coordWire, directWire } = await pair(t, 'cdt', argv, { env: cdtEnv });
  await assertSameTools(coord, coordWire, direct, directWire);
  const s = await status(coord);
  assert.ok(!s.child.command.includes('--cdp-endpoint'), 'with {cdp_endpoint} in its args nothing is appended');
  assert.match(s.child.command, new RegExp(`--browserUrl ${s.cdpEndpoint}`));

  const pageId = (text) => Number(text.match(/^(\d+): .*\[selected\]/m)?.[1]);
  const results = [];
  for (const conn of [[coord, coordWire], [direct, directWire]]) {
    const list = await rawResult(...conn, 'tools/call', { name: 'list_pages', arguments: {} });
    const id = pageId(list.content[0].text);
    assert.ok(id, `list_pages names the selected page: ${JSON.stringify(list)}`);
    const nav = await rawResult(...conn, 'tools/call', { name: 'navigate_page', arguments: { pageId: id, type: 'url', url: `${ws.pages.url}/` } });
    const snap = await rawResult(...conn, 'tools/call', { name: 'take_snapshot', arguments: { pageId: id } });
    results.push({ list, nav, snap });
  }
  assert.match(results[0].snap.content[0].text, /button "Click me"/);
  assert.deepEqual(normalize(results[0]), normalize(results[1]), 'list_pages, navigate_page and take_snapshot give what the child gives directly');
  assert.equal((await status(coord)).state, 'running');
});

test('a child MCP that cannot start: a clear error in tools/list and coordinator_status; the coordinator tools still work', async (t) => {
  const exitAtOnce = path.join(ws.work, 'exit-at-once.js');
  fs.writeFileSync(exitAtOnce, 'console.error("bad config"); process.exit(3);\n');
  for (const [name, child, want] of [
    // Capitals: not an npm package name either, so it is not fetched through npx.
    ['missing', ['No-Such-Browser-MCP', '--flag'], /executable file not found/],
    ['exits', ['node', exitAtOnce], /exited at once \(exit status 3\)/],
  ]) {
    const coord = await startCoordinator({ ...ws.dirs(`bad-${name}`), args: ['--mcp', ...child] });
    t.after(() => coord.close());
    const { tools } = await coord.client.listTools();
    assert.deepEqual(tools.map((x) => x.name).filter((n) => !n.startsWith('coordinator_')), [], `${name}: no child tools`);
    const desc = tools.find((x) => x.name === 'coordinator_status').description;
    assert.match(desc, /the browser automation tools of the child MCP .* are missing/, `${name}: tools/list says so`);
    assert.match(desc, want);
    const s = await status(coord);
    assert.equal(s.child.state, 'failed');
    assert.match(s.child.lastError, want);
    const browsers = await call(coord.client, 'coordinator_list_browsers');
    assert.ok(browsers.structuredContent.browsers.length > 0, `${name}: coordinator tools work`);
    const launched = await call(coord.client, 'coordinator_launch_browser');
    assert.equal(launched.structuredContent.state, 'running');
  }
});

test('a child MCP that writes garbage to stdout: the garbage is skipped and reported, the tools work', async (t) => {
  // A banner on stdout before the real server starts, as some wrappers print.
  const noisy = ['sh', '-c', 'echo "Welcome to my MCP wrapper!"; echo; exec "$0" "$@"', ...childMCPs.playwright];
  const coord = await startCoordinator({ ...ws.dirs('noisy'), args: ['--mcp', ...noisy] });
  t.after(() => coord.close());
  const { tools } = await coord.client.listTools();
  assert.ok(tools.some((x) => x.name === 'browser_navigate'));
  const nav = await call(coord.client, 'browser_navigate', { url: `${ws.pages.url}/` });
  assert.match(nav.text, /Coordinator test page/);
  assert.match(coord.stderr(), /not JSON-RPC; ignored .*line="Welcome to my MCP wrapper!"/);
});
