// Claude Code's entries, on real files — a folder's .mcp.json and a
// ~/.claude.json in a temporary home, as Claude Code keeps it — written and
// judged by the real sidecar (`install --host claude-code … --json`), which
// owns those files; the extension asks it and keeps its per-folder choice.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyWanted, Asker, ConfigParseError, FolderState, inspect, labelOf, plan, removeServers, Wanted } from '../src/claudeCode';
import { childOf } from '../src/registration';
import { requireSidecar, script, tempDir } from './helpers';

const playwright = childOf({ kind: 'playwright' });

/** A home with an extension folder holding a "bundled" sidecar of version v; the real sidecar answers for it. */
function setup(t: Parameters<typeof tempDir>[0], v = '0.2.0') {
  const home = fs.realpathSync(tempDir(t, 'bc-home-'));
  const ext = path.join(home, '.vscode', 'extensions', `browser-coordinator.browser-coordinator-${v}-linux-x64`);
  const sidecar = script(path.join(ext, 'bin', 'linux-x64', 'browser-coordinator'), 'echo bc');
  const folder = path.join(home, 'src', 'app');
  fs.mkdirSync(folder, { recursive: true });
  const asker: Asker = { bin: requireSidecar(), env: { PATH: process.env.PATH, HOME: home } };
  const w: Wanted = { sidecar, child: playwright };
  return { home, ext, sidecar, folder, asker, w };
}

/** The server map at a place, as the file holds it. */
function servers(file: string, key: string[]): Record<string, unknown> {
  let v = JSON.parse(fs.readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, ''));
  for (const k of key) v = v?.[k];
  return v ?? {};
}

// What Claude Code itself keeps in ~/.claude.json (abridged): much more than MCP servers.
const claudeJson = (folder: string) => `{
  "numStartups": 42,
  "tipsHistory": {
    "new-user-warmup": 1
  },
  "projects": {
    "/somewhere/else": {
      "allowedTools": [],
      "mcpServers": {
        "theirs": {
          "type": "stdio",
          "command": "other-mcp",
          "args": []
        }
      }
    },
    ${JSON.stringify(folder)}: {
      "allowedTools": [
        "Bash(npm test)"
      ],
      "history": [],
      "mcpServers": {},
      "hasTrustDialogAccepted": true
    }
  },
  "userID": "abc"
}
`;

test('where the entries go: Claude Code\'s local scope (~/.claude.json, or $CLAUDE_CONFIG_DIR) and the folder\'s .mcp.json', async (t) => {
  const { home, folder, asker, w } = setup(t);
  const local = await inspect(asker, 'local', folder, w);
  assert.equal(local.location.file, path.join(home, '.claude.json'), local.error);
  assert.match(local.location.label, /^~\/\.claude\.json \(Claude Code's local scope: only you, in app\)$/);
  const config = path.join(home, 'cfg');
  const elsewhere = await inspect({ ...asker, env: { ...asker.env, CLAUDE_CONFIG_DIR: config } }, 'local', folder, w);
  assert.equal(elsewhere.location.file, path.join(config, '.claude.json'), 'the sidecar honours CLAUDE_CONFIG_DIR');
  const project = await inspect(asker, 'project', folder, w);
  assert.equal(project.location.file, path.join(folder, '.mcp.json'));
  assert.equal(project.location.label, path.join('app', '.mcp.json'));
  assert.equal(labelOf('local', folder, '/elsewhere/.claude.json', home), "/elsewhere/.claude.json (Claude Code's local scope: only you, in app)");
});

test('entries: local runs the bundled sidecar by path; project is portable (npx, no home folder, no version)', async (t) => {
  const { folder, sidecar, asker, w } = setup(t);
  const local = (await inspect(asker, 'local', folder, w)).wanted;
  assert.deepEqual(local['browser-coordinator'], { type: 'stdio', command: sidecar, args: [] });
  assert.deepEqual(local.playwright.args, ['wrap', '--', 'npx', '-y', '@playwright/mcp@latest', '--cdp-endpoint', '{cdp_endpoint}']);
  const project = (await inspect(asker, 'project', folder, w)).wanted;
  assert.deepEqual(project, {
    'browser-coordinator': { command: 'npx', args: ['-y', 'browser-coordinator'] },
    playwright: { command: 'npx', args: ['-y', 'browser-coordinator', 'wrap', '--', 'npx', '-y', '@playwright/mcp@latest', '--cdp-endpoint', '{cdp_endpoint}'] },
  });
  assert.doesNotMatch(JSON.stringify(project), /home|0\.2\.0/);
  assert.deepEqual(Object.keys((await inspect(asker, 'project', folder, { sidecar: '' })).wanted), ['browser-coordinator']);
});

test('judged by the sidecar: a missing binary is stale; an extension version in .mcp.json is stale; an older bundled sidecar in the local scope is stale; the user\'s own ways are left alone', async (t) => {
  const { home, folder, asker, w } = setup(t, '0.2.0');
  const old = setup(t, '0.1.0');
  const file = path.join(home, '.claude.json');
  const write = (entries: Record<string, unknown>) => fs.writeFileSync(file, JSON.stringify({ projects: { [folder]: { mcpServers: entries } } }));
  const verdicts = async () => Object.fromEntries((await inspect(asker, 'local', folder, w)).ours.map((f) => [f.name, f.verdict]));
  write({ 'browser-coordinator': { command: '/gone/browser-coordinator' }, playwright: { type: 'stdio', command: old.sidecar, args: ['wrap', '--'] }, mine: { command: w.sidecar, args: ['--no-headless'] } });
  const v = await verdicts();
  assert.match(v['browser-coordinator'].kind === 'stale' ? v['browser-coordinator'].why : '', /runs \/gone\/browser-coordinator, which does not exist/);
  assert.deepEqual(v.mine, { kind: 'custom' }, 'their own flags');
  fs.writeFileSync(path.join(folder, '.mcp.json'), JSON.stringify({ mcpServers: { 'browser-coordinator': { command: w.sidecar }, 'on-path': { command: 'browser-coordinator' } } }));
  const project = Object.fromEntries((await inspect(asker, 'project', folder, w)).ours.map((f) => [f.name, f.verdict]));
  assert.match(project['browser-coordinator'].kind === 'stale' ? project['browser-coordinator'].why : '', /a path of this machine and extension version 0\.2\.0, in a file teammates share/);
  assert.deepEqual(project['on-path'], { kind: 'custom' }, 'the bare name on PATH is the user\'s choice');
  write({ 'browser-coordinator': { type: 'stdio', command: old.sidecar, args: [] } });
  const older = (await verdicts())['browser-coordinator'];
  assert.match(older.kind === 'stale' ? older.why : '', /extension version 0\.1\.0, not of this one/);
});

test('local scope: written into projects[folder].mcpServers of Claude Code\'s file; everything else in it stays byte for byte; mode kept', async (t) => {
  const { home, folder, asker, w } = setup(t);
  const file = path.join(home, '.claude.json');
  fs.writeFileSync(file, claudeJson(folder), { mode: 0o600 });
  const r = await applyWanted(asker, 'local', folder, w);
  assert.equal(r.changed, true);
  assert.equal(r.file, file);
  const after = fs.readFileSync(file, 'utf8');
  const json = JSON.parse(after);
  const wanted = (await inspect(asker, 'local', folder, w)).wanted;
  assert.deepEqual(json.projects[folder].mcpServers, wanted);
  assert.deepEqual(json.projects['/somewhere/else'], JSON.parse(claudeJson(folder)).projects['/somewhere/else']);
  assert.equal(json.numStartups, 42);
  assert.equal(json.projects[folder].hasTrustDialogAccepted, true);
  // Only the mcpServers object changed: cut it out of both texts and they are equal.
  const outside = (text: string) => text.replace(/"mcpServers": \{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}(?=,\s*"hasTrustDialogAccepted")/, '');
  assert.equal(outside(after), outside(claudeJson(folder)));
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(home).filter((f) => f.startsWith('.claude')), ['.claude.json'], 'no temp file left');
  assert.equal((await applyWanted(asker, 'local', folder, w)).changed, false, 'a second run changes nothing');

  const i = await inspect(asker, 'local', folder, w);
  assert.equal(i.upToDate, true);
  assert.deepEqual(i.ours.map((f) => [f.name, f.verdict.kind]), [['browser-coordinator', 'current'], ['playwright', 'current']]);
});

test('local scope: a missing ~/.claude.json is created with mode 0600; a folder Claude Code has not seen gets its own key', async (t) => {
  const { home, sidecar, folder, asker } = setup(t);
  await applyWanted(asker, 'local', folder, { sidecar });
  const file = path.join(home, '.claude.json');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { projects: { [folder]: { mcpServers: { 'browser-coordinator': { type: 'stdio', command: sidecar, args: [] } } } } });
});

test('.mcp.json: other servers, comments and indentation survive; a changed child replaces the old child entry; remove takes only the extension\'s', async (t) => {
  const { folder, asker, w } = setup(t);
  const file = path.join(folder, '.mcp.json');
  const before = '{\n    // the team\'s servers\n    "mcpServers": {\n        "github": { "command": "gh-mcp" },\n        "playwright-alone": { "command": "npx", "args": ["-y", "@playwright/mcp@latest"] }\n    }\n}\n';
  fs.writeFileSync(file, before);
  await applyWanted(asker, 'project', folder, w);
  let text = fs.readFileSync(file, 'utf8');
  assert.ok(text.includes("// the team's servers"), text);
  assert.ok(text.includes('"github": { "command": "gh-mcp" }'), text);
  assert.match(text, /\n {8}"browser-coordinator": \{\n {12}"command": "npx",/, 'four-space indentation kept');
  assert.ok(text.includes('"playwright-alone": { "command": "npx", "args": ["-y", "@playwright/mcp@latest"] },\n'), `the neighbour before the new entries keeps its one line:\n${text}`);
  assert.equal(text.replace(/,\n {8}"browser-coordinator": [\s\S]*?\n {8}\}(?=\n {4}\})/, ''), before, 'removing the new entries gives the file back');
  assert.equal(fs.statSync(file).mode & 0o777, 0o644);

  const r = await applyWanted(asker, 'project', folder, { ...w, child: childOf({ kind: 'chrome-devtools' }) });
  assert.deepEqual(r.removed, ['playwright']);
  assert.deepEqual(Object.keys(servers(file, ['mcpServers'])).sort(), ['browser-coordinator', 'chrome-devtools', 'github', 'playwright-alone']);

  const removed = await removeServers(asker, 'project', folder);
  assert.deepEqual(removed.removed.sort(), ['browser-coordinator', 'chrome-devtools']);
  text = fs.readFileSync(file, 'utf8');
  assert.deepEqual(Object.keys(servers(file, ['mcpServers'])).sort(), ['github', 'playwright-alone']);
  assert.ok(text.includes("// the team's servers"));
  assert.equal((await inspect(asker, 'project', folder, w)).ours.length, 0);
});

test('a file that does not parse is never written; the error names file, line and column', async (t) => {
  const { folder, asker, w } = setup(t);
  const file = path.join(folder, '.mcp.json');
  const broken = '{\n  "mcpServers": {\n    "a": {"command": "x"}\n    "b": 1\n}\n';
  fs.writeFileSync(file, broken);
  await assert.rejects(applyWanted(asker, 'project', folder, w), (err: unknown) => {
    assert.ok(err instanceof ConfigParseError);
    assert.equal(err.file, file);
    assert.deepEqual([err.line, err.column], [4, 5]);
    assert.match(err.message, /\.mcp\.json: not valid JSON: line 4, column 5: .*; fix the file/);
    return true;
  });
  await assert.rejects(removeServers(asker, 'project', folder), ConfigParseError);
  assert.equal(fs.readFileSync(file, 'utf8'), broken);
  assert.deepEqual(fs.readdirSync(folder), ['.mcp.json']);
  assert.match((await inspect(asker, 'project', folder, w)).error ?? '', /not valid JSON/);
});

test('a symlinked .mcp.json stays a link (dotfile managers)', async (t) => {
  const { folder, asker, w } = setup(t);
  const real = path.join(fs.realpathSync(tempDir(t)), 'mcp.json');
  fs.writeFileSync(real, '{"mcpServers": {}}\n');
  fs.symlinkSync(real, path.join(folder, '.mcp.json'));
  await applyWanted(asker, 'project', folder, w);
  assert.ok(fs.lstatSync(path.join(folder, '.mcp.json')).isSymbolicLink());
  assert.ok(JSON.parse(fs.readFileSync(real, 'utf8')).mcpServers['browser-coordinator']);
});

test('plan: the choice is per folder; the folder\'s own local entries are kept current; stale ones elsewhere are offered a repair; a Claude project without entries is offered them once', async (t) => {
  const { folder, asker, w } = setup(t, '0.2.0');
  const old = setup(t, '0.1.0');
  const state = async (over: Partial<FolderState>): Promise<FolderState> => ({
    folder,
    offer: true,
    claudeProject: true,
    local: await inspect(asker, 'local', folder, w),
    project: await inspect(asker, 'project', folder, w),
    ...over,
  });
  assert.deepEqual(plan(await state({})), { kind: 'offerAdd' });
  assert.equal(plan(await state({ claudeProject: false })).kind, 'nothing', 'not a Claude Code project: nothing offered');
  assert.equal(plan(await state({ offer: false })).kind, 'nothing');
  assert.equal(plan(await state({ choice: 'declined' })).kind, 'nothing', '"Not for this folder" is remembered');

  // After an update the local entries name the old version's sidecar: the folder chose local, so they are rewritten.
  await applyWanted(asker, 'local', folder, { ...w, sidecar: old.sidecar });
  const updated = plan(await state({ choice: 'local' }));
  assert.equal(updated.kind, 'update');
  assert.match(updated.kind === 'update' ? updated.why : '', /extension version 0\.1\.0/);
  // Without that choice (another folder, or entries written by hand), the same is only offered.
  assert.equal(plan(await state({})).kind, 'offerRepair');

  // A .mcp.json of the old extension, with its absolute path: offered a repair to the portable form.
  await removeServers(asker, 'local', folder);
  fs.writeFileSync(path.join(folder, '.mcp.json'), JSON.stringify({ mcpServers: { 'browser-coordinator': { command: old.sidecar } } }));
  const repair = plan(await state({ choice: 'project' }));
  assert.equal(repair.kind, 'offerRepair');
  assert.match(repair.kind === 'offerRepair' ? repair.why : '', /"browser-coordinator" in app\/\.mcp\.json: it runs .*in a file teammates share/);
  await applyWanted(asker, 'project', folder, w);
  assert.deepEqual(plan(await state({ choice: 'project' })), { kind: 'nothing', why: 'the choice for this folder is project' });
  assert.equal(plan(await state({})).kind, 'nothing', 'entries there: nothing offered');
  // Local entries the user removed (claude mcp remove) are not put back.
  assert.equal(plan(await state({ choice: 'local' })).kind, 'nothing');
});
