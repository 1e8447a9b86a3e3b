// Claude Code's entries, on real files: a folder's .mcp.json and a
// ~/.claude.json in a temporary home, as Claude Code keeps it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  applyWanted, claudeJsonPath, ConfigParseError, entriesFor, extensionVersionIn, FolderState, inspect, judge, locationOf, plan,
  readServers, removeServers, runsCoordinator,
} from '../src/claudeCode';
import { childOf } from '../src/registration';
import { script, tempDir } from './helpers';

const playwright = childOf({ kind: 'playwright' });

/** A home with an extension folder holding a "bundled" sidecar of version v. */
function setup(t: Parameters<typeof tempDir>[0], v = '0.2.0') {
  const home = fs.realpathSync(tempDir(t, 'bc-home-'));
  const ext = path.join(home, '.vscode', 'extensions', `browser-coordinator.browser-coordinator-${v}-linux-x64`);
  const sidecar = script(path.join(ext, 'bin', 'linux-x64', 'browser-coordinator'), 'echo bc');
  const folder = path.join(home, 'src', 'app');
  fs.mkdirSync(folder, { recursive: true });
  return { home, ext, sidecar, folder, paths: { home, env: {} as NodeJS.ProcessEnv } };
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

test('where the entries go: Claude Code\'s local scope (~/.claude.json, or $CLAUDE_CONFIG_DIR) and the folder\'s .mcp.json', () => {
  assert.equal(claudeJsonPath({ home: '/home/u', env: {} }), '/home/u/.claude.json');
  assert.equal(claudeJsonPath({ home: '/home/u', env: { CLAUDE_CONFIG_DIR: '/cfg' } }), '/cfg/.claude.json');
  const local = locationOf('local', '/home/u/app', { home: '/home/u', env: {} });
  assert.deepEqual(local.jsonPath, ['projects', '/home/u/app', 'mcpServers']);
  assert.match(local.label, /^~\/\.claude\.json \(Claude Code's local scope: only you, in app\)$/);
  const project = locationOf('project', '/home/u/app', { home: '/home/u', env: {} });
  assert.equal(project.file, '/home/u/app/.mcp.json');
  assert.deepEqual(project.jsonPath, ['mcpServers']);
});

test('entries: local runs the bundled sidecar by path; project is portable (npx, no home folder, no version)', () => {
  const local = entriesFor('local', { sidecar: '/home/u/.vscode/extensions/x-0.2.0/bin/bc', child: playwright });
  assert.deepEqual(local['browser-coordinator'], { type: 'stdio', command: '/home/u/.vscode/extensions/x-0.2.0/bin/bc', args: [] });
  assert.deepEqual(local.playwright.args, ['wrap', '--', 'npx', '-y', '@playwright/mcp@latest', '--cdp-endpoint', '{cdp_endpoint}']);
  const project = entriesFor('project', { sidecar: '/home/u/.vscode/extensions/x-0.2.0/bin/bc', child: playwright });
  assert.deepEqual(project, {
    'browser-coordinator': { command: 'npx', args: ['-y', 'browser-coordinator'] },
    playwright: { command: 'npx', args: ['-y', 'browser-coordinator', 'wrap', '--', 'npx', '-y', '@playwright/mcp@latest', '--cdp-endpoint', '{cdp_endpoint}'] },
  });
  assert.doesNotMatch(JSON.stringify(project), /home|0\.2\.0/);
  assert.deepEqual(Object.keys(entriesFor('project', { sidecar: '', child: undefined })), ['browser-coordinator']);
});

test('runsCoordinator: the extension\'s entries in any spelling, and no one else\'s', () => {
  assert.ok(runsCoordinator({ command: '/x/bin/browser-coordinator' }));
  assert.ok(runsCoordinator({ command: 'C:\\ext\\bin\\win32-x64\\browser-coordinator.exe', args: ['wrap', '--', 'npx'] }));
  assert.ok(runsCoordinator({ command: 'browser-coordinator', args: [] }));
  assert.ok(runsCoordinator({ command: 'npx', args: ['-y', 'browser-coordinator', 'wrap', '--', 'npx', '-y', '@playwright/mcp@latest'] }));
  assert.ok(runsCoordinator({ command: 'npx', args: ['-y', 'browser-coordinator@0.1.0'] }));
  assert.ok(runsCoordinator({ command: 'cmd', args: ['/c', 'npx', '-y', 'browser-coordinator'] }));
  assert.ok(!runsCoordinator({ command: 'npx', args: ['-y', '@playwright/mcp@latest'] }), 'Playwright MCP on its own is the user\'s');
  assert.ok(!runsCoordinator({ command: 'npx', args: ['-y', 'some-mcp', 'wrap', '--', 'browser-coordinator'] }));
  assert.ok(!runsCoordinator({ url: 'http://127.0.0.1:8931/mcp' }));
  assert.ok(!runsCoordinator(null));
  assert.equal(extensionVersionIn('/h/.vscode/extensions/browser-coordinator.browser-coordinator-0.1.0-linux-x64/bin/linux-x64/browser-coordinator'), '0.1.0');
  assert.equal(extensionVersionIn('/h/.cursor/extensions/browser-coordinator.browser-coordinator-1.2.3/bin/x'), '1.2.3');
  assert.equal(extensionVersionIn('/usr/local/bin/browser-coordinator'), undefined);
});

test('judge: a missing binary is stale; a home folder or an extension version in .mcp.json is stale; an older bundled sidecar in the local scope is stale; the user\'s own ways are left alone', (t) => {
  const { home, sidecar } = setup(t, '0.2.0');
  const wanted = entriesFor('local', { sidecar, child: playwright });
  const o = { home };
  assert.deepEqual(judge('local', wanted['browser-coordinator'], wanted['browser-coordinator'], o), { kind: 'current' });
  const gone = judge('local', { command: '/gone/browser-coordinator' }, wanted['browser-coordinator'], o);
  assert.match(gone.kind === 'stale' ? gone.why : '', /runs \/gone\/browser-coordinator, which does not exist/);
  const old = setup(t, '0.1.0');
  const older = judge('local', { type: 'stdio', command: old.sidecar, args: [] }, wanted['browser-coordinator'], o);
  assert.match(older.kind === 'stale' ? older.why : '', /extension version 0\.1\.0, not of this one/);
  const committed = judge('project', { command: sidecar }, entriesFor('project', { sidecar })['browser-coordinator'], o);
  assert.match(committed.kind === 'stale' ? committed.why : '', /a path of this machine and extension version 0\.2\.0, in a file teammates share/);
  const mine = script(path.join(home, 'bin', 'browser-coordinator'), 'echo');
  assert.equal(judge('project', { command: mine }, undefined, o).kind, 'stale', 'a home folder in a shared file');
  assert.deepEqual(judge('project', { command: 'browser-coordinator' }, entriesFor('project', { sidecar })['browser-coordinator'], o), { kind: 'custom' }, 'the bare name on PATH is the user\'s choice');
  assert.deepEqual(judge('local', { command: sidecar, args: ['--no-headless'] }, wanted['browser-coordinator'], o), { kind: 'custom' }, 'their own flags');
  assert.deepEqual(judge('project', { command: '/usr/bin/env' }, undefined, { home, exists: () => true }), { kind: 'custom' });
});

test('local scope: written into projects[folder].mcpServers of Claude Code\'s file; everything else in it stays byte for byte; mode kept', (t) => {
  const { home, sidecar, folder, paths } = setup(t);
  const file = path.join(home, '.claude.json');
  fs.writeFileSync(file, claudeJson(folder), { mode: 0o600 });
  const loc = locationOf('local', folder, paths);
  const wanted = entriesFor('local', { sidecar, child: playwright });
  const r = applyWanted(loc, wanted);
  assert.equal(r.changed, true);
  const after = fs.readFileSync(file, 'utf8');
  const json = JSON.parse(after);
  assert.deepEqual(json.projects[folder].mcpServers, wanted);
  assert.deepEqual(json.projects['/somewhere/else'], JSON.parse(claudeJson(folder)).projects['/somewhere/else']);
  assert.equal(json.numStartups, 42);
  assert.equal(json.projects[folder].hasTrustDialogAccepted, true);
  // Only the mcpServers object changed: cut it out of both texts and they are equal.
  const outside = (text: string) => text.replace(/"mcpServers": \{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}(?=,\s*"hasTrustDialogAccepted")/, '');
  assert.equal(outside(after), outside(claudeJson(folder)));
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(home).filter((f) => f.startsWith('.claude')), ['.claude.json'], 'no temp file left');
  assert.equal(applyWanted(loc, wanted).changed, false, 'a second run changes nothing');

  const i = inspect(loc, wanted, { home });
  assert.equal(i.upToDate, true);
  assert.deepEqual(i.ours.map((f) => [f.name, f.verdict.kind]), [['browser-coordinator', 'current'], ['playwright', 'current']]);
});

test('local scope: a missing ~/.claude.json is created with mode 0600; a folder Claude Code has not seen gets its own key', (t) => {
  const { home, sidecar, folder, paths } = setup(t);
  const loc = locationOf('local', folder, paths);
  applyWanted(loc, entriesFor('local', { sidecar }));
  const file = path.join(home, '.claude.json');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { projects: { [folder]: { mcpServers: { 'browser-coordinator': { type: 'stdio', command: sidecar, args: [] } } } } });
});

test('.mcp.json: other servers, comments and indentation survive; a changed child replaces the old child entry; remove takes only the extension\'s', (t) => {
  const { home, sidecar, folder, paths } = setup(t);
  const file = path.join(folder, '.mcp.json');
  const before = '{\n    // the team\'s servers\n    "mcpServers": {\n        "github": { "command": "gh-mcp" },\n        "playwright-alone": { "command": "npx", "args": ["-y", "@playwright/mcp@latest"] }\n    }\n}\n';
  fs.writeFileSync(file, before);
  const loc = locationOf('project', folder, paths);
  applyWanted(loc, entriesFor('project', { sidecar, child: playwright }));
  let text = fs.readFileSync(file, 'utf8');
  assert.ok(text.includes("// the team's servers"), text);
  assert.ok(text.includes('"github": { "command": "gh-mcp" }'), text);
  assert.match(text, /\n {8}"browser-coordinator": \{\n {12}"command": "npx",/, 'four-space indentation kept');
  assert.ok(text.includes('"playwright-alone": { "command": "npx", "args": ["-y", "@playwright/mcp@latest"] },\n'), `the neighbour before the new entries keeps its one line:\n${text}`);
  assert.equal(text.replace(/,\n {8}"browser-coordinator": [\s\S]*?\n {8}\}(?=\n {4}\})/, ''), before, 'removing the new entries gives the file back');
  assert.equal(fs.statSync(file).mode & 0o777, 0o644);

  const r = applyWanted(loc, entriesFor('project', { sidecar, child: childOf({ kind: 'chrome-devtools' }) }));
  assert.deepEqual(r.removed, ['playwright']);
  const servers = readServers(loc);
  assert.deepEqual(Object.keys(servers).sort(), ['browser-coordinator', 'chrome-devtools', 'github', 'playwright-alone']);

  const removed = removeServers(loc);
  assert.deepEqual(removed.removed.sort(), ['browser-coordinator', 'chrome-devtools']);
  text = fs.readFileSync(file, 'utf8');
  assert.deepEqual(Object.keys(readServers(loc)).sort(), ['github', 'playwright-alone']);
  assert.ok(text.includes("// the team's servers"));
  assert.equal(inspect(loc, {}, { home }).ours.length, 0);
});

test('a file that does not parse is never written; the error names file, line and column', (t) => {
  const { sidecar, folder, paths, home } = setup(t);
  const file = path.join(folder, '.mcp.json');
  const broken = '{\n  "mcpServers": {\n    "a": {"command": "x"}\n    "b": 1\n}\n';
  fs.writeFileSync(file, broken);
  const loc = locationOf('project', folder, paths);
  assert.throws(() => applyWanted(loc, entriesFor('project', { sidecar })), (err: unknown) => {
    assert.ok(err instanceof ConfigParseError);
    assert.match(err.message, /\.mcp\.json:4:5: not valid JSON \(CommaExpected\); fix the file/);
    return true;
  });
  assert.throws(() => removeServers(loc), ConfigParseError);
  assert.equal(fs.readFileSync(file, 'utf8'), broken);
  assert.deepEqual(fs.readdirSync(folder), ['.mcp.json']);
  assert.match(inspect(loc, {}, { home }).error ?? '', /not valid JSON/);
});

test('a symlinked .mcp.json stays a link (dotfile managers)', (t) => {
  const { sidecar, folder, paths } = setup(t);
  const real = path.join(fs.realpathSync(tempDir(t)), 'mcp.json');
  fs.writeFileSync(real, '{"mcpServers": {}}\n');
  fs.symlinkSync(real, path.join(folder, '.mcp.json'));
  applyWanted(locationOf('project', folder, paths), entriesFor('project', { sidecar }));
  assert.ok(fs.lstatSync(path.join(folder, '.mcp.json')).isSymbolicLink());
  assert.ok(JSON.parse(fs.readFileSync(real, 'utf8')).mcpServers['browser-coordinator']);
});

test('plan: the choice is per folder; the folder\'s own local entries are kept current; stale ones elsewhere are offered a repair; a Claude project without entries is offered them once', (t) => {
  const { home, sidecar, folder, paths } = setup(t, '0.2.0');
  const old = setup(t, '0.1.0');
  const o = { home };
  const state = (over: Partial<FolderState>): FolderState => {
    const wantedLocal = entriesFor('local', { sidecar, child: playwright });
    return {
      folder,
      offer: true,
      claudeProject: true,
      local: inspect(locationOf('local', folder, paths), wantedLocal, o),
      project: inspect(locationOf('project', folder, paths), entriesFor('project', { sidecar, child: playwright }), o),
      ...over,
    };
  };
  assert.deepEqual(plan(state({})), { kind: 'offerAdd' });
  assert.equal(plan(state({ claudeProject: false })).kind, 'nothing', 'not a Claude Code project: nothing offered');
  assert.equal(plan(state({ offer: false })).kind, 'nothing');
  assert.equal(plan(state({ choice: 'declined' })).kind, 'nothing', '"Not for this folder" is remembered');

  // After an update the local entries name the old version's sidecar: the folder chose local, so they are rewritten.
  applyWanted(locationOf('local', folder, paths), entriesFor('local', { sidecar: old.sidecar, child: playwright }));
  const updated = plan(state({ choice: 'local' }));
  assert.equal(updated.kind, 'update');
  assert.match(updated.kind === 'update' ? updated.why : '', /extension version 0\.1\.0/);
  // Without that choice (another folder, or entries written by hand), the same is only offered.
  assert.equal(plan(state({})).kind, 'offerRepair');

  // A .mcp.json of the old extension, with its absolute path: offered a repair to the portable form.
  removeServers(locationOf('local', folder, paths));
  fs.writeFileSync(path.join(folder, '.mcp.json'), JSON.stringify({ mcpServers: { 'browser-coordinator': { command: old.sidecar } } }));
  const repair = plan(state({ choice: 'project' }));
  assert.equal(repair.kind, 'offerRepair');
  assert.match(repair.kind === 'offerRepair' ? repair.why : '', /"browser-coordinator" in app\/\.mcp\.json: it runs .*in a file teammates share/);
  applyWanted(locationOf('project', folder, paths), entriesFor('project', { sidecar, child: playwright }));
  assert.deepEqual(plan(state({ choice: 'project' })), { kind: 'nothing', why: 'the choice for this folder is project' });
  assert.equal(plan(state({})).kind, 'nothing', 'entries there: nothing offered');
  // Local entries the user removed (claude mcp remove) are not put back.
  assert.equal(plan(state({ choice: 'local' })).kind, 'nothing');
});
