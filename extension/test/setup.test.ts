// Setup steps are independent: one that fails (here, publishing the port
// file into a folder other users can write, as in a shared /tmp) is
// reported, and the steps beside and after it still run — for real: the
// state watcher is armed and sees a coordinator, argv.json is read.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { argvStatus } from '../src/argv';
import { writePortFile } from '../src/cdpPort';
import { MemoryLog } from '../src/log';
import { notificationText, Problems, runSteps, shouldNotify } from '../src/setup';
import { Entry, StateWatcher } from '../src/stateFile';
import { coordinatorState, tempDir, waitFor } from './helpers';

test('one failing step: logged and reported; the steps beside and after it run', async (t) => {
  const shared = tempDir(t);
  fs.chmodSync(shared, 0o1777); // like /tmp
  const stateDir = path.join(tempDir(t), 'state');
  const ws = tempDir(t);
  const argv = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(argv, '{ "remote-debugging-port": "0" }');
  const log = new MemoryLog();
  let seen: Entry | undefined;
  let argvKind = '';
  const watcher = new StateWatcher({ dir: stateDir, workspaces: [ws], log, onChange: (e) => { seen = e; }, livenessMs: 0 });
  t.after(() => watcher.dispose());

  const report = await runSteps([
    [
      { name: "VS Code's CDP port", run: () => writePortFile(9333, path.join(shared, 'vscode-cdp-port')) },
      { name: 'argv.json', run: () => { argvKind = argvStatus(argv).kind; } },
    ],
    [{ name: 'state folder', run: () => watcher.start() }],
  ], log);

  assert.deepEqual(report.failed.map((f) => f.step), ["VS Code's CDP port"]);
  assert.match(report.failed[0].message, /can be written by other users .*chmod 700/);
  assert.deepEqual(report.ran.sort(), ["VS Code's CDP port", 'argv.json', 'state folder']);
  assert.equal(argvKind, 'enabled', 'the step after the failed one in its group ran');
  assert.equal(fs.existsSync(path.join(shared, 'vscode-cdp-port')), false, 'nothing was written into the shared folder');
  assert.ok(log.lines.some((l) => /^error setup: VS Code's CDP port failed: .*the other steps still run/.test(l)), log.lines.join('\n'));

  // The watcher beside it works: a coordinator's state file is seen.
  fs.writeFileSync(path.join(stateDir, '1-a.json'), JSON.stringify(coordinatorState({ workspace: ws })), { mode: 0o600 });
  await waitFor(() => seen, 'the state file through the watcher set up next to the failed step');

  // The problem stands until its step succeeds.
  const problems = new Problems();
  problems.update(report);
  assert.deepEqual(problems.list().map((p) => p.step), ["VS Code's CDP port"]);
  fs.chmodSync(shared, 0o700);
  problems.update(await runSteps([[{ name: "VS Code's CDP port", run: () => writePortFile(9333, path.join(shared, 'vscode-cdp-port')) }]], log));
  assert.deepEqual(problems.list(), [], 'fixed and retried: gone');
});

test('the one notification: shown unless every problem was muted; one line for all of them', () => {
  const problems = [{ step: 'sidecar', message: 'No working browser-coordinator binary' }, { step: 'state folder', message: 'chmod 700 /x' }];
  assert.equal(shouldNotify(problems, []), true);
  assert.equal(shouldNotify(problems, ['sidecar']), true, 'a new kind of problem is still shown');
  assert.equal(shouldNotify(problems, ['sidecar', 'state folder']), false);
  assert.equal(shouldNotify([], []), false);
  assert.equal(notificationText(problems), 'Browser Coordinator: sidecar: No working browser-coordinator binary (and 1 more problem: state folder)');
});
