import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CoordinatorState, Entry, pick, readState, scan, stateDir, StateWatcher, isStateFileName } from '../src/stateFile';
import { MemoryLog } from '../src/log';
import { coordinatorState, tempDir, waitFor } from './helpers';

const state = (over: Partial<CoordinatorState> = {}) => coordinatorState({ workspace: '/nowhere', ...over });

/** Writes like the sidecar: a hidden temp file beside it, then rename. */
function writeAtomic(file: string, s: CoordinatorState): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-123`);
  fs.writeFileSync(tmp, JSON.stringify(s, null, 2));
  fs.renameSync(tmp, file);
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid!;
}

test('stateDir: $BROWSER_COORDINATOR_STATE_DIR, else $TMPDIR/browser-coordinator', () => {
  assert.equal(stateDir({ BROWSER_COORDINATOR_STATE_DIR: '/s' }, '/tmp'), '/s');
  assert.equal(stateDir({}, '/tmp'), path.join('/tmp', 'browser-coordinator'));
  assert.equal(isStateFileName('123-ab.json'), true);
  assert.equal(isStateFileName('.123-ab.json.tmp-99'), false);
  assert.equal(isStateFileName('.probe-1'), false);
});

test('scan: live, stale (dead pid), half-written and temp files', (t) => {
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'live.json'), JSON.stringify(state()));
  fs.writeFileSync(path.join(dir, 'dead.json'), JSON.stringify(state({ pid: deadPid() })));
  fs.writeFileSync(path.join(dir, 'half.json'), '{"pid": 12, "proxyPo');
  fs.writeFileSync(path.join(dir, 'nopid.json'), '{"state": "idle"}');
  fs.writeFileSync(path.join(dir, '.x.json.tmp-1'), '{');
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
  fs.writeFileSync(path.join(dir, 'other.json'), JSON.stringify(state({ workspace: '/elsewhere', proxyPort: 1 })));
  fs.writeFileSync(path.join(dir, 'dead.json'), JSON.stringify(state({ workspace: wsRoot, pid: deadPid(), proxyPort: 2 })));
  assert.equal(pick(scan(dir), [wsRoot]), undefined, 'a dead coordinator of this workspace is not picked');
  fs.writeFileSync(path.join(dir, 'sub.json'), JSON.stringify(state({ workspace: ws, proxyPort: 3 })));
  assert.equal(pick(scan(dir), [link])?.state.proxyPort, 3, 'a subfolder coordinator when none serves the folder itself');
  fs.writeFileSync(path.join(dir, 'old.json'), JSON.stringify(state({ workspace: link, proxyPort: 4, startedAt: '2020-01-01T00:00:00Z' })));
  fs.writeFileSync(path.join(dir, 'new.json'), JSON.stringify(state({ workspace: wsRoot, proxyPort: 5, startedAt: '2030-01-01T00:00:00Z' })));
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
  fs.writeFileSync(path.join(dir, '200-bb.json'), '{"pid": 1, "prox');
  fs.writeFileSync(path.join(dir, '.300-cc.json.tmp-5'), '{}');
  writeAtomic(path.join(dir, '400-dd.json'), state({ workspace: '/another/project' }));
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(seen.length, 3);
  assert.equal(w.current?.state.state, 'running');

  fs.rmSync(file);
  await waitFor(() => seen.length === 4, 'the removal');
  assert.equal(seen[3], undefined);

  // A coordinator killed with SIGKILL leaves its file: the pid check notices.
  const proc = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  t.after(() => proc.kill('SIGKILL'));
  writeAtomic(path.join(dir, '500-ee.json'), state({ workspace: ws, pid: proc.pid! }));
  await waitFor(() => seen.length === 5, 'the killable coordinator');
  assert.equal(seen[4]?.state.pid, proc.pid);
  proc.kill('SIGKILL');
  await waitFor(() => seen.length === 6, 'the dead coordinator to be dropped');
  assert.equal(seen[5], undefined);
  assert.ok(fs.existsSync(path.join(dir, '500-ee.json')), 'its file is still there, ignored');
  assert.ok(log.lines.some((l) => /skipped .*200-bb\.json is not valid JSON/.test(l)), log.lines.join('\n'));
});
