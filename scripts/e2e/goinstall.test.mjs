// End to end: `go install MODULE/sidecar/cmd/browser-coordinator@latest`,
// the README's line, as users will run it once the repository is public.
// Nothing is published from here: a module proxy in a folder
// (scripts/lib/goproxy.mjs) serves this checkout as a release, and the
// dependencies come from the local module cache's download folder, which is
// itself a proxy; GOSUMDB is off because the release is not in the checksum
// database. A module cache of its own keeps the stand-in release out of the
// user's. -trimpath and CGO_ENABLED=0 (as npm run build) let the build reuse
// the compiled packages in Go's build cache.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from '../lib/paths.mjs';
import { packageVersion } from '../lib/build.mjs';
import { writeModuleProxy } from '../lib/goproxy.mjs';

let work;
before(() => { work = fs.mkdtempSync(path.join(os.tmpdir(), 'bcgo-')); });
after(() => {
  if (!work) return;
  // The module cache is read-only on purpose; go clean removes it.
  spawnSync('go', ['clean', '-modcache'], { env: { ...process.env, GOMODCACHE: path.join(work, 'mod') }, stdio: 'ignore' });
  fs.rmSync(work, { recursive: true, force: true });
});

const goEnv = (name) => execFileSync('go', ['env', name], { encoding: 'utf8' }).trim();

function goInstall(target, { cwd, env = {} }) {
  const bin = path.join(work, `bin-${Object.keys(env).length}-${path.basename(cwd)}`);
  const r = spawnSync('go', ['install', target], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GOBIN: bin, GOTOOLCHAIN: 'local', GOWORK: 'off', CGO_ENABLED: '0', ...env },
  });
  assert.equal(r.status, 0, `go install ${target}:\n${r.stderr}`);
  return path.join(bin, 'browser-coordinator');
}

test('go install MODULE/sidecar/cmd/browser-coordinator@latest from a module proxy: --version says so', () => {
  const version = `v${packageVersion()}`;
  const proxy = path.join(work, 'proxy');
  const mod = writeModuleProxy(proxy, version);
  assert.equal(mod, 'github.com/browser-coordinator/browser-coordinator', 'the module path the README\'s go install line names');
  const pkg = `${mod}/sidecar/cmd/browser-coordinator`;
  const deps = path.join(goEnv('GOMODCACHE'), 'cache', 'download');
  const exe = goInstall(`${pkg}@latest`, {
    cwd: work,
    env: {
      GOPROXY: `${pathToFileURL(proxy)},${pathToFileURL(deps)}`,
      GOSUMDB: 'off',
      GOMODCACHE: path.join(work, 'mod'),
      GOFLAGS: '-mod=mod -trimpath',
    },
  });
  const r = spawnSync(exe, ['--version'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const [identity, source] = r.stdout.trim().split('\n');
  assert.match(identity, new RegExp(`^browser-coordinator ${packageVersion().replaceAll('.', '\\.')} \\(commit \\S+, \\w+/\\w+, go[\\d.]+\\)$`));
  assert.equal(source, `installed by go install ${pkg}@${version}`);
});

test('go install ./sidecar/cmd/browser-coordinator in the checkout: --version says it was built from source', () => {
  const exe = goInstall('./sidecar/cmd/browser-coordinator', { cwd: root, env: { GOFLAGS: `${goEnv('GOFLAGS')} -trimpath` } });
  const r = spawnSync(exe, ['--version'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  // A git checkout (or, with -buildvcs=false, no version information at all).
  assert.match(r.stdout, /^browser-coordinator \S+ \(commit \S+, \w+\/\w+, go[\d.]+\)\nbuilt from (a git checkout|source) \(go build or go install/);
});
