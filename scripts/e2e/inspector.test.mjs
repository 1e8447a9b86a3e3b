// End to end: every schema the coordinator writes passes MCP Inspector's
// portability check (`--cli … --method tools/list --strict`) with no error
// and no warning, and the check does flag a schema that is not portable.
// The Inspector (and, on Node older than 22.19, a Node to run it) is
// installed once into ~/.cache/browser-coordinator (scripts/lib/inspector.mjs).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { binaryPath } from '../lib/paths.mjs';
import { ensureInspector, strictToolsList } from '../lib/inspector.mjs';
import { workspace } from '../lib/workspace.mjs';

const ws = workspace('bcinsp-');
let inspector;

before(() => {
  inspector = ensureInspector();
});

// What --strict prints for each problem, and its closing count.
const problems = /^(Warning|Error): |\d+ errors?, \d+ warnings?/m;

test('the coordinator\'s tools pass Inspector --strict with 0 errors and 0 warnings', async () => {
  const r = await strictToolsList(inspector, [binaryPath()], {
    env: { BROWSER_COORDINATOR_STATE_DIR: path.join(ws.work, 'state') },
    catalog: path.join(ws.work, 'catalog.json'),
    cwd: ws.work,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, problems);
  const { tools } = JSON.parse(r.stdout);
  assert.equal(tools.length, 12, 'the check saw every tool');
  assert.ok(tools.every((t) => t.inputSchema && t.outputSchema), 'each with its input and output schema');
});

// A server whose one tool has the output schema the coordinator had before:
// the check must report it, or the test above proves nothing.
const typeArrayServer = `
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const result = m.method === 'initialize'
    ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'nullable', version: '1' } }
    : m.method === 'tools/list'
      ? { tools: [{ name: 'nullable', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { browser: { type: ['object', 'null'] } } } }] }
      : {};
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
});`;

test('Inspector --strict flags a type array (the check works)', async () => {
  const r = await strictToolsList(inspector, [process.execPath, '-e', typeArrayServer], { catalog: path.join(ws.work, 'catalog.json'), cwd: ws.work });
  assert.match(r.stderr, /Warning: tool "nullable"\n\s+Path: outputSchema\.properties\.browser\n\s+Issue: `type` is an array/, r.stderr);
  assert.match(r.stderr, /0 errors, 1 warning/);
});
