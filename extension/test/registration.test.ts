import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { childOf, definitionsWhenReady, definitionVersion, serverDefinitions, splitCommandLine } from '../src/registration';

test('splitCommandLine: words, quotes, escapes', () => {
  assert.deepEqual(splitCommandLine('npx -y @playwright/mcp --cdp-endpoint {cdp_endpoint}'), ['npx', '-y', '@playwright/mcp', '--cdp-endpoint', '{cdp_endpoint}']);
  assert.deepEqual(splitCommandLine(`  node "/path with space/cli.js"  --x='a b' ""  `), ['node', '/path with space/cli.js', '--x=a b', '']);
  assert.deepEqual(splitCommandLine('a\\ b "c\\"d"'), ['a b', 'c"d']);
  assert.throws(() => splitCommandLine('node "unterminated'), /unterminated " quote/);
});

test('childOf: the known children, none, and custom commands', () => {
  assert.deepEqual(childOf({ kind: 'playwright' })?.argv, ['npx', '-y', '@playwright/mcp@latest', '--cdp-endpoint', '{cdp_endpoint}']);
  assert.equal(childOf({ kind: 'playwright' })?.name, 'playwright');
  assert.equal(childOf({ kind: 'chrome-devtools' })?.installSpec, 'chrome-devtools');
  assert.equal(childOf({ kind: 'none' }), undefined);
  const custom = childOf({ kind: 'custom', command: 'node my-mcp.js --cdp "{cdp_endpoint}"' })!;
  assert.equal(custom.name, 'browser');
  assert.deepEqual(custom.argv, ['node', 'my-mcp.js', '--cdp', '{cdp_endpoint}']);
  assert.equal(custom.installSpec, 'node my-mcp.js --cdp "{cdp_endpoint}"');
  assert.throws(() => childOf({ kind: 'custom', command: '' }), /childMcpCommand is empty/);
  assert.throws(() => childOf({ kind: 'custom', command: 'node my-mcp.js' }), /none of \{cdp_endpoint\}/);
});

test('serverDefinitions: coordinator and wrapped child, cwd the workspace, VSCODE_CDP_PORT when known', () => {
  const defs = serverDefinitions({ sidecar: '/ext/bin/bc', workspace: '/ws', child: childOf({ kind: 'playwright' }), cdpPort: 9333, coordinatorArgs: ['--no-headless'] });
  assert.deepEqual(defs.map((d) => [d.name, d.command, d.args, d.env, d.cwd]), [
    ['browser-coordinator', '/ext/bin/bc', ['--no-headless'], { VSCODE_CDP_PORT: '9333' }, '/ws'],
    ['playwright', '/ext/bin/bc', ['wrap', '--', 'npx', '-y', '@playwright/mcp@latest', '--cdp-endpoint', '{cdp_endpoint}'], { VSCODE_CDP_PORT: '9333' }, '/ws'],
  ]);
  const alone = serverDefinitions({ sidecar: 'bc', workspace: undefined });
  assert.equal(alone.length, 1);
  assert.deepEqual(alone[0].env, {}, 'no port, no variable');
});

test('definitionVersion: stable when only VS Code\'s CDP port changes; new when what starts the server changes', () => {
  const at = (cdpPort: number | undefined, over: { sidecar?: string; child?: 'playwright' | 'chrome-devtools'; args?: string[] } = {}) =>
    serverDefinitions({ sidecar: over.sidecar ?? '/ext-0.1.0/bin/bc', workspace: '/ws', child: childOf({ kind: over.child ?? 'playwright' }), cdpPort, coordinatorArgs: over.args })
      .map((d) => definitionVersion('0.1.0', d));
  const first = at(9333);
  assert.deepEqual(at(41877), first, 'another port at the next VS Code start is not a tool change');
  assert.deepEqual(at(undefined), first, 'nor is Tier 2 going away');
  assert.match(first[0], /^0\.1\.0\+[0-9a-f]{12}$/);
  assert.notEqual(at(9333, { sidecar: '/ext-0.2.0/bin/bc' })[0], first[0], 'an updated sidecar is');
  assert.notEqual(at(9333, { child: 'chrome-devtools' })[1], first[1], 'another child is');
  assert.notEqual(at(9333, { args: ['--no-headless'] })[0], first[0], 'other flags are');
});

test('definitionsWhenReady: the first ask waits for setup, then gets both servers', async () => {
  let setUp!: () => void;
  const ready = new Promise<void>((r) => { setUp = r; });
  let sidecar: string | undefined; // found by the setup
  const answer = definitionsWhenReady(ready, () => (sidecar ? serverDefinitions({ sidecar, workspace: '/ws', child: childOf({ kind: 'playwright' }) }) : []));
  let answered = false;
  void answer.then(() => { answered = true; });
  await new Promise((r) => setImmediate(r)); // every pending callback has run: the answer can only wait for ready
  assert.equal(answered, false, 'answered before the setup was done');
  sidecar = '/ext/bin/bc';
  setUp();
  assert.deepEqual((await answer).map((d) => d.name), ['browser-coordinator', 'playwright']);
});
