import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { childOf, configCommand, installArgs, InstallError, serverDefinitions, splitCommandLine, writeMcpJson, hasCoordinatorEntry } from '../src/registration';
import { requireSidecar, tempDir } from './helpers';

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

test('configCommand: the bare name for a PATH binary, else the absolute path', () => {
  assert.equal(configCommand({ path: '/usr/local/bin/browser-coordinator', source: 'PATH', version: '' }), 'browser-coordinator');
  assert.equal(configCommand({ path: '/ext/bin/linux-x64/browser-coordinator', source: 'bundled', version: '' }), '/ext/bin/linux-x64/browser-coordinator');
});

test('installArgs', () => {
  assert.deepEqual(installArgs({ workspace: '/ws', child: childOf({ kind: 'chrome-devtools' }), sidecarCommand: 'bc', dryRun: true }), [
    'install', '--host', 'claude-code', '--scope', 'project', '--child', 'chrome-devtools', '--workspace', '/ws', '--sidecar', 'bc', '--dry-run',
  ]);
  assert.equal(installArgs({ workspace: '/ws', sidecarCommand: 'bc' }).join(' '), 'install --host claude-code --scope project --child none --workspace /ws --sidecar bc');
});

// .mcp.json through the real sidecar's `install`.

test('writeMcpJson: a new .mcp.json with both entries; a second run changes nothing', async (t) => {
  const sidecar = requireSidecar();
  const ws = tempDir(t);
  const r = await writeMcpJson(sidecar, { workspace: ws, child: childOf({ kind: 'playwright' }), sidecarCommand: '/opt/bc' });
  assert.equal(r.changed, true);
  assert.equal(r.file, path.join(ws, '.mcp.json'));
  const json = JSON.parse(fs.readFileSync(r.file, 'utf8'));
  assert.deepEqual(json.mcpServers['browser-coordinator'].command, '/opt/bc');
  assert.deepEqual(json.mcpServers.playwright.args, ['wrap', '--', 'npx', '-y', '@playwright/mcp@latest', '--cdp-endpoint', '{cdp_endpoint}']);
  assert.ok(hasCoordinatorEntry(ws));
  const mtime = fs.statSync(r.file).mtimeMs;
  const again = await writeMcpJson(sidecar, { workspace: ws, child: childOf({ kind: 'playwright' }), sidecarCommand: '/opt/bc' });
  assert.equal(again.changed, false);
  assert.equal(fs.statSync(r.file).mtimeMs, mtime, 'an unchanged file is not rewritten');
});

test('writeMcpJson: other servers, comments and formatting of an existing .mcp.json survive', async (t) => {
  const sidecar = requireSidecar();
  const ws = tempDir(t);
  const before = '{\n  // my servers\n  "mcpServers": {\n    "github": { "command": "gh-mcp", "args": ["--x"] }\n  }\n}\n';
  fs.writeFileSync(path.join(ws, '.mcp.json'), before);
  const r = await writeMcpJson(sidecar, { workspace: ws, child: childOf({ kind: 'chrome-devtools' }), sidecarCommand: 'browser-coordinator' });
  const text = fs.readFileSync(r.file, 'utf8');
  assert.ok(text.includes('// my servers'), text);
  assert.ok(text.includes('"github": { "command": "gh-mcp", "args": ["--x"] }'), 'the other entry keeps its formatting');
  assert.match(text, /"chrome-devtools": \{/);
  assert.match(text, /"browser-coordinator": \{\s*"command": "browser-coordinator"/);
});

test('writeMcpJson: invalid JSON is never clobbered; the error names file, line and column', async (t) => {
  const sidecar = requireSidecar();
  const ws = tempDir(t);
  const broken = '{\n  "mcpServers": {\n    "a": {"command": "x"}\n    "b": 1\n}\n';
  fs.writeFileSync(path.join(ws, '.mcp.json'), broken);
  await assert.rejects(writeMcpJson(sidecar, { workspace: ws, child: childOf({ kind: 'playwright' }), sidecarCommand: 'bc' }), (err: unknown) => {
    assert.ok(err instanceof InstallError);
    assert.equal(err.exitCode, 1);
    assert.match(err.message, /\.mcp\.json: not valid JSON: line 4, column 5/);
    return true;
  });
  assert.equal(fs.readFileSync(path.join(ws, '.mcp.json'), 'utf8'), broken);
  assert.deepEqual(fs.readdirSync(ws), ['.mcp.json']);
});

test('writeMcpJson: a custom child command becomes the "browser" entry', async (t) => {
  const sidecar = requireSidecar();
  const ws = tempDir(t);
  const child = childOf({ kind: 'custom', command: 'node /opt/my-mcp.js --cdp "{cdp_endpoint}"' });
  const r = await writeMcpJson(sidecar, { workspace: ws, child, sidecarCommand: 'bc' });
  const json = JSON.parse(fs.readFileSync(r.file, 'utf8'));
  assert.deepEqual(json.mcpServers.browser.args, ['wrap', '--', 'node', '/opt/my-mcp.js', '--cdp', '{cdp_endpoint}']);
});
