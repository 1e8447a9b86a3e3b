import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkVersion, resolveSidecar, SidecarNotFound, vsixTarget } from '../src/sidecar';
import { MemoryLog } from '../src/log';
import { requireSidecar, script, tempDir } from './helpers';

const fake = (version = '9.9.9') => `echo "browser-coordinator ${version} (commit test, linux/amd64, go1.26)"`;
const target = vsixTarget()!;

test('vsixTarget: the six VS Code targets, nothing for others', () => {
  assert.equal(vsixTarget('linux', 'x64'), 'linux-x64');
  assert.equal(vsixTarget('darwin', 'arm64'), 'darwin-arm64');
  assert.equal(vsixTarget('win32', 'arm64'), 'win32-arm64');
  assert.equal(vsixTarget('linux', 'ppc64'), undefined);
  assert.equal(vsixTarget('freebsd', 'x64'), undefined);
});

test('the real sidecar answers --version as the chain expects', async () => {
  const line = await checkVersion(requireSidecar());
  assert.match(line, /^browser-coordinator \S+ \(commit \S+, \w+\/\w+, go[\d.]+\)$/);
});

test('chain: the setting wins, and every step is logged', async (t) => {
  const dir = tempDir(t);
  const setting = script(path.join(dir, 'custom', 'bc'), fake('1.0.0-setting'));
  script(path.join(dir, 'ext', 'bin', target, 'browser-coordinator'), fake('1.0.0-bundled'));
  const log = new MemoryLog();
  const s = await resolveSidecar({ setting, extensionDir: path.join(dir, 'ext'), pathEnv: '', log });
  assert.equal(s.source, 'setting');
  assert.equal(s.path, setting);
  assert.match(s.version, /1\.0\.0-setting/);
  assert.deepEqual(log.lines, [`info sidecar: setting: using ${setting} (browser-coordinator 1.0.0-setting (commit test, linux/amd64, go1.26))`]);
});

test('chain: a setting that does not exist or does not run falls through to the bundled binary, with reasons', async (t) => {
  const dir = tempDir(t);
  const bundled = script(path.join(dir, 'ext', 'bin', target, 'browser-coordinator'), fake('2.0.0'));
  const log = new MemoryLog();
  const s = await resolveSidecar({ setting: path.join(dir, 'nope'), extensionDir: path.join(dir, 'ext'), pathEnv: '', log });
  assert.equal(s.source, 'bundled');
  assert.equal(s.path, bundled);
  assert.match(log.lines[0], /setting: browserCoordinator.sidecarPath is .*nope, which does not exist; trying the next step/);

  const broken = script(path.join(dir, 'broken'), 'echo "something else 1.0"');
  const log2 = new MemoryLog();
  const s2 = await resolveSidecar({ setting: broken, extensionDir: path.join(dir, 'ext'), pathEnv: '', log: log2 });
  assert.equal(s2.source, 'bundled');
  assert.match(log2.lines[0], /setting: .*broken does not run: .*printed "something else 1.0", not browser-coordinator <version>/);
});

test('chain: a bundled binary that lost its run bit gets it back', async (t) => {
  const dir = tempDir(t);
  const bundled = script(path.join(dir, 'ext', 'bin', target, 'browser-coordinator'), fake(), 0o644);
  const log = new MemoryLog();
  const s = await resolveSidecar({ extensionDir: path.join(dir, 'ext'), pathEnv: '', log });
  assert.equal(s.source, 'bundled');
  assert.equal(fs.statSync(bundled).mode & 0o777, 0o755);
  assert.ok(log.lines.some((l) => /restored the run bit/.test(l)), log.lines.join('\n'));
});

test('chain: without setting and bundled binary, PATH; a failing PATH entry is skipped', async (t) => {
  const dir = tempDir(t);
  script(path.join(dir, 'bad', 'browser-coordinator'), 'exit 3');
  const good = script(path.join(dir, 'good', 'browser-coordinator'), fake('3.0.0'));
  const log = new MemoryLog();
  const s = await resolveSidecar({ setting: '', extensionDir: path.join(dir, 'ext'), pathEnv: [path.join(dir, 'bad'), path.join(dir, 'good')].join(path.delimiter), log });
  assert.equal(s.source, 'PATH');
  assert.equal(s.path, good);
  const text = log.lines.join('\n');
  assert.match(text, /setting: browserCoordinator.sidecarPath is not set/);
  assert.match(text, /bundled: .* is not in this extension/);
  assert.match(text, /PATH: .*bad\/browser-coordinator does not run/);
  assert.match(text, /PATH: using .*good\/browser-coordinator \(browser-coordinator 3\.0\.0/);
});

test('chain: nothing found → an error that says what to do, with the steps', async (t) => {
  const dir = tempDir(t);
  const log = new MemoryLog();
  await assert.rejects(resolveSidecar({ extensionDir: dir, pathEnv: dir, log }), (err: unknown) => {
    assert.ok(err instanceof SidecarNotFound);
    assert.match(err.message, new RegExp(`No working browser-coordinator binary for ${target}.*set browserCoordinator.sidecarPath.*PATH`));
    assert.equal(err.steps.length, 3);
    return true;
  });
  await assert.rejects(resolveSidecar({ extensionDir: dir, pathEnv: dir, platform: 'linux', arch: 'ppc64', log }), /for linux-ppc64/);
});
