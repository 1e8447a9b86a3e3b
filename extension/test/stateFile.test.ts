import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inspect } from 'node:util';
import { checkOwnedDir, CoordinatorState, Entry, ensureOwnedDir, isStateFileName, pick, readState, redactEndpoint, scan, stateDir, stateDirFlag, StateWatcher, UntrustedError } from '../src/stateFile';
import { MemoryLog } from '../src/log';
import { coordinatorState, osCases, platformOf, tempDir, waitFor } from './helpers';

const state = (over: Partial<CoordinatorState> = {}) => coordinatorState({ workspace: '/nowhere', ...over });

/** Writes like the sidecar: a hidden temp file beside it, then rename. */
function writeAtomic(file: string, s: CoordinatorState): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-123`);
  fs.writeFileSync(tmp, JSON.stringify(s, null, 2), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** Writes a file as the sidecar does: mode 0600. */
function write(file: string, text: string): void {
  fs.writeFileSync(file, text, { mode: 0o600 });
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid;
}

const linux = { platform: 'linux' as const, home: '/home/u', tmpdir: '/tmp' };

test('stateDir: the override, else a per-user folder on each OS (the sidecar\'s rule)', () => {
  assert.equal(stateDir({ ...linux, env: { BROWSER_COORDINATOR_STATE_DIR: '/s' } }), '/s');
  assert.equal(stateDir({ ...linux, env: { BROWSER_COORDINATOR_STATE_DIR: '/s' } }, '/flag'), '/flag', '--state-dir wins over the variable');
  assert.equal(stateDir({ ...linux, env: { XDG_RUNTIME_DIR: '/run/user/1000', XDG_STATE_HOME: '/xdg' } }), '/run/user/1000/browser-coordinator');
  assert.equal(stateDir({ ...linux, env: { XDG_STATE_HOME: '/xdg' } }), '/xdg/browser-coordinator');
  assert.equal(stateDir({ ...linux, env: {} }), '/home/u/.local/state/browser-coordinator', 'never a predictable name in a shared /tmp');
  assert.equal(stateDir({ platform: 'darwin', home: '/Users/u', tmpdir: '/var/folders/ab/T', env: { TMPDIR: '/var/folders/ab/T/', XDG_RUNTIME_DIR: '/x' } }), '/var/folders/ab/T/browser-coordinator');
  assert.equal(stateDir({ platform: 'win32', home: 'C:\\Users\\u', tmpdir: 'C:\\t', env: { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' } }),
    'C:\\Users\\u\\AppData\\Local\\browser-coordinator');
  assert.equal(stateDirFlag(['--browser', 'chrome', '--state-dir', '/a']), '/a');
  assert.equal(stateDirFlag(['--state-dir=/b', '--no-headless']), '/b');
  assert.equal(stateDirFlag(['--mcp', 'x', '--', '--state-dir', '/c']), undefined, 'a child\'s flag after -- is not ours');
  assert.equal(stateDirFlag([]), undefined);
  assert.equal(isStateFileName('123-ab.json'), true);
  assert.equal(isStateFileName('.123-ab.json.tmp-99'), false);
  assert.equal(isStateFileName('.probe-1'), false);
  assert.equal(isStateFileName('vscode-cdp-port'), false);
});

test('stateDir agrees with the sidecar on every OS, a relative XDG path ignored on both sides', () => {
  assert.ok(osCases.some((c) => c.env.XDG_RUNTIME_DIR === 'run'), 'the cases hold a relative XDG_RUNTIME_DIR');
  for (const c of osCases) {
    if (c.stateBase === null) continue; // no home folder: VS Code always has one
    const platform = platformOf(c.os);
    const sep = platform === 'win32' ? '\\' : '/';
    assert.equal(stateDir({ platform, home: c.home, tmpdir: '/unused', env: c.env }), `${c.stateBase}${sep}browser-coordinator`, c.name);
  }
});

const uid = process.getuid?.() ?? -1; // -1 on Windows, which has no uids
const asRoot = uid === 0;

test('the state folder: created 0700; refused when others can write it, when it is another user\'s, or a foreign symlink', (t) => {
  const base = tempDir(t);
  const dir = path.join(base, 'a', 'state');
  ensureOwnedDir(dir);
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
  checkOwnedDir(dir);

  for (const mode of [0o777, 0o775, 0o1777, 0o757]) {
    fs.chmodSync(dir, mode);
    assert.throws(() => checkOwnedDir(dir), (err: unknown) => err instanceof UntrustedError && err.message.includes(`chmod 700 ${dir}`), `mode ${mode.toString(8)}`);
  }
  fs.chmodSync(dir, 0o755);
  checkOwnedDir(dir); // readable by others is fine for the folder: the files in it are 0600
  assert.throws(() => checkOwnedDir(dir, uid + 1), /belongs to (root|uid \d+), not to you/, 'another user\'s folder');
  const file = path.join(base, 'plain');
  fs.writeFileSync(file, '');
  assert.throws(() => checkOwnedDir(file), /is not a folder/);
});

test('the state folder as root: a folder chowned to another uid is refused, and so is a symlink that uid planted', { skip: asRoot ? false : 'needs root to chown (CI runs as root)' }, (t) => {
  const base = tempDir(t);
  const dir = path.join(base, 'theirs');
  fs.mkdirSync(dir, { mode: 0o700 });
  fs.chownSync(dir, 65534, 65534);
  assert.throws(() => checkOwnedDir(dir), /belongs to uid 65534, not to you/);
  assert.throws(() => ensureOwnedDir(dir), /belongs to uid 65534/);
  const mine = path.join(base, 'mine');
  fs.mkdirSync(mine, { mode: 0o700 });
  const link = path.join(base, 'link');
  fs.symlinkSync(mine, link);
  fs.lchownSync(link, 65534, 65534);
  assert.throws(() => checkOwnedDir(link), /is a symlink of uid 65534, not yours/);
});

test('state files: read only when a regular file of this user, mode 0600 — a symlink, 0644 and another uid are refused', (t) => {
  const dir = tempDir(t);
  const good = path.join(dir, 'good.json');
  fs.writeFileSync(good, JSON.stringify(state()), { mode: 0o600 });
  assert.equal((readState(good) as CoordinatorState).pid, process.pid);

  const open = path.join(dir, 'open.json');
  fs.writeFileSync(open, JSON.stringify(state()), { mode: 0o600 });
  fs.chmodSync(open, 0o644);
  const r1 = readState(open);
  assert.ok(r1 instanceof UntrustedError && /mode 644, must be 600/.test(r1.message), inspect(r1));

  const victim = path.join(dir, 'victim-secret');
  fs.writeFileSync(victim, JSON.stringify(state({ proxyPort: 6666 })), { mode: 0o600 });
  const link = path.join(dir, 'link.json');
  fs.symlinkSync(victim, link);
  const r2 = readState(link);
  assert.ok(r2 instanceof UntrustedError && /is a symlink/.test(r2.message), inspect(r2));

  const r3 = readState(good, uid + 1);
  assert.ok(r3 instanceof UntrustedError && /not to you/.test(r3.message), inspect(r3));

  const s = scan(dir);
  assert.deepEqual(s.live.map((e) => path.basename(e.file)), ['good.json'], 'only the trusted file counts');
  assert.equal(s.broken.filter((e) => e instanceof UntrustedError).length, 2);
});

test('state files as root: a forged file chowned to another uid is refused', { skip: asRoot ? false : 'needs root to chown (CI runs as root)' }, (t) => {
  const dir = tempDir(t);
  const forged = path.join(dir, '1-forged.json');
  fs.writeFileSync(forged, JSON.stringify(state({ pid: 1, cdpEndpoint: 'http://attacker.example:6666', startedAt: '2099-01-01T00:00:00Z' })), { mode: 0o600 });
  fs.chownSync(forged, 65534, 65534);
  const r = readState(forged);
  assert.ok(r instanceof UntrustedError && /belongs to uid 65534/.test(r.message), inspect(r));
  assert.deepEqual(scan(dir, { alive: () => true }).live, []);
});

test('redactEndpoint: the proxy secret is not shown', () => {
  assert.equal(redactEndpoint('http://127.0.0.1:41000/s3cr3t', 's3cr3t'), 'http://127.0.0.1:41000/…');
  assert.equal(redactEndpoint('http://127.0.0.1:41000', undefined), 'http://127.0.0.1:41000');
});

test('scan: live, stale (dead pid), half-written and temp files', (t) => {
  const dir = tempDir(t);
  write(path.join(dir, 'live.json'), JSON.stringify(state()));
  write(path.join(dir, 'dead.json'), JSON.stringify(state({ pid: deadPid() })));
  write(path.join(dir, 'half.json'), '{"pid": 12, "proxyPo');
  write(path.join(dir, 'nopid.json'), '{"state": "idle"}');
  write(path.join(dir, '.x.json.tmp-1'), '{');
  const s = scan(dir);
  assert.deepEqual(s.live.map((e) => path.basename(e.file)), ['live.json']);
  assert.deepEqual(s.stale.map((e) => path.basename(e.file)), ['dead.json']);
  assert.equal(s.broken.length, 2);
  assert.match(s.broken.map((e) => e.message).join('\n'), /half\.json is not valid JSON/);
  assert.match(s.broken.map((e) => e.message).join('\n'), /nopid\.json has no pid or proxyPort/);
  assert.equal(readState(path.join(dir, 'gone.json')), undefined);
  assert.deepEqual(scan(path.join(dir, 'missing')), { live: [], stale: [], broken: [] });
});

test('pick: this workspace (through symlinks), then a coordinator started in a subfolder; newest first; never a stale one', (t) => {
  const dir = tempDir(t);
  const ws = fs.mkdirSync(path.join(tempDir(t), 'ws', 'sub'), { recursive: true })!;
  const wsRoot = path.dirname(ws);
  const link = path.join(tempDir(t), 'link');
  fs.symlinkSync(wsRoot, link);
  write(path.join(dir, 'other.json'), JSON.stringify(state({ workspace: '/elsewhere', proxyPort: 1 })));
  write(path.join(dir, 'dead.json'), JSON.stringify(state({ workspace: wsRoot, pid: deadPid(), proxyPort: 2 })));
  assert.equal(pick(scan(dir), [wsRoot]), undefined, 'a dead coordinator of this workspace is not picked');
  write(path.join(dir, 'sub.json'), JSON.stringify(state({ workspace: ws, proxyPort: 3 })));
  assert.equal(pick(scan(dir), [link])?.state.proxyPort, 3, 'a subfolder coordinator when none serves the folder itself');
  write(path.join(dir, 'old.json'), JSON.stringify(state({ workspace: link, proxyPort: 4, startedAt: '2020-01-01T00:00:00Z' })));
  write(path.join(dir, 'new.json'), JSON.stringify(state({ workspace: wsRoot, proxyPort: 5, startedAt: '2030-01-01T00:00:00Z' })));
  assert.equal(pick(scan(dir), [link])?.state.proxyPort, 5);
  assert.equal(pick(scan(dir), ['/unrelated']), undefined);
});

test('StateWatcher: follows the file live — appears, changes, half-written neighbours, removed, coordinator killed', async (t) => {
  const dir = path.join(tempDir(t), 'state'); // does not exist yet: the watcher creates it
  const ws = tempDir(t);
  const seen: (Entry | undefined)[] = [];
  const log = new MemoryLog();
  const w = new StateWatcher({ dir, workspaces: [ws], log, onChange: (e) => seen.push(e), livenessMs: 50 });
  t.after(() => w.dispose());
  w.start();
  assert.equal((fs.statSync(dir).mode & 0o777), 0o700);
  assert.equal(seen.length, 1);
  assert.equal(seen[0], undefined, 'the first report: nothing runs');

  const file = path.join(dir, '100-aa.json');
  writeAtomic(file, state({ workspace: ws }));
  await waitFor(() => seen.length === 2, 'the new file');
  assert.equal(seen[1]?.state.state, 'idle');

  writeAtomic(file, state({ workspace: ws, state: 'running', browser: { type: 'chromium', headless: true } }));
  await waitFor(() => seen.length === 3, 'the change');
  assert.equal(seen[2]?.state.state, 'running');

  // Another coordinator's half-written file and a temp file change nothing.
  write(path.join(dir, '200-bb.json'), '{"pid": 1, "prox');
  write(path.join(dir, '.300-cc.json.tmp-5'), '{}');
  writeAtomic(path.join(dir, '400-dd.json'), state({ workspace: '/another/project' }));
  // Then a change that is seen: had those three changed anything, it would
  // have been seen before this one (one watcher, in order).
  writeAtomic(file, state({ workspace: ws, state: 'stopped' }));
  await waitFor(() => seen.length === 4, 'the change after them');
  assert.equal(seen[3]?.state.state, 'stopped', 'the half-written file, the temp file and another project\'s changed nothing');

  fs.rmSync(file);
  await waitFor(() => seen.length === 5, 'the removal');
  assert.equal(seen[4], undefined);

  // A coordinator killed with SIGKILL leaves its file: the pid check notices.
  const proc = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  t.after(() => proc.kill('SIGKILL'));
  writeAtomic(path.join(dir, '500-ee.json'), state({ workspace: ws, pid: proc.pid! }));
  await waitFor(() => seen.length === 6, 'the killable coordinator');
  assert.equal(seen[5]?.state.pid, proc.pid);
  proc.kill('SIGKILL');
  await waitFor(() => seen.length === 7, 'the dead coordinator to be dropped');
  assert.equal(seen[6], undefined);
  assert.ok(fs.existsSync(path.join(dir, '500-ee.json')), 'its file is still there, ignored');
  assert.ok(log.lines.some((l) => /skipped .*200-bb\.json is not valid JSON/.test(l)), log.lines.join('\n'));
});

test('StateWatcher: re-arms itself — the folder removed and made again, a refused folder fixed with chmod', async (t) => {
  const dir = path.join(tempDir(t), 'state');
  const ws = tempDir(t);
  const seen: (Entry | undefined)[] = [];
  const problems: (string | undefined)[] = [];
  const w = new StateWatcher({ dir, workspaces: [ws], log: new MemoryLog(), onChange: (e) => seen.push(e), onProblem: (p) => problems.push(p), livenessMs: 0, retryMs: 50 });
  t.after(() => w.dispose());
  w.start();
  assert.equal(w.watching, true);

  fs.rmSync(dir, { recursive: true });
  await waitFor(() => problems.some((p) => p && /was removed/.test(p)), 'the removal to be noticed');
  await waitFor(() => w.watching && problems.at(-1) === undefined, 'the watcher to be armed again (it makes the folder again)');
  writeAtomic(path.join(dir, '100-aa.json'), state({ workspace: ws }));
  await waitFor(() => seen.at(-1)?.state.workspace === ws, 'a file written after the re-arm to be seen');

  fs.chmodSync(dir, 0o777);
  w.refresh(); // any rescan checks the folder again
  assert.equal(w.watching, false, 'a folder others can write is not watched');
  assert.match(problems.at(-1) ?? '', /chmod 700/);
  assert.equal(seen.at(-1), undefined, 'and no coordinator is shown from it');
  writeAtomic(path.join(dir, '200-bb.json'), state({ workspace: ws }));
  w.refresh(); // a scan now, of the refused folder
  assert.equal(seen.at(-1), undefined, 'nothing is read from a refused folder');
  fs.chmodSync(dir, 0o700);
  await waitFor(() => w.watching && problems.at(-1) === undefined, 'the watcher to recover once the folder is fixed', 15_000);
  await waitFor(() => seen.at(-1)?.state.workspace === ws, 'the file to be read once trusted');
});
