// npm test: every test, on a fresh machine too. Installs npm packages when
// missing (Go fetches its modules itself), builds the sidecar, then runs
// vet, the cross-builds of all six targets, the Go tests (-race, against a
// real Chromium) and the end-to-end tests (real child MCPs, the official
// MCP SDK as client), then the VS Code extension: compile, unit tests in
// plain Node, the linux-x64 VSIX, and that VSIX in a real VS Code
// (code-server, installed once into ~/.cache/browser-coordinator).
// Under CI a missing browser fails instead of skipping.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib/paths.mjs';
import { ensureNpmDeps, findBrowser, installAdvice } from './lib/setup.mjs';
import { buildSidecar, allTargets, requireGo } from './lib/build.mjs';
import { compileExtension, packVsix } from './lib/vsix.mjs';
import { buildBrowserExtension, browserExtensionTests } from './lib/browserExtension.mjs';

const started = Date.now();
const failures = [];

function step(name, fn) {
  const t0 = Date.now();
  console.log(`\n=== ${name}`);
  let ok;
  try {
    ok = fn() !== false;
  } catch (err) {
    console.error(err.message);
    ok = false;
  }
  console.log(`=== ${name}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  if (!ok) failures.push(name);
  return ok;
}

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.error) throw r.error;
  return r.status === 0;
}

step('npm packages', () => ensureNpmDeps());
console.log(requireGo());
const built = step('build the sidecar', () => { buildSidecar(undefined, { log: console.log }); });
step('go vet (linux, darwin, windows)', () =>
  ['linux', 'darwin', 'windows'].every((goos) => run('go', ['vet', './...'], { GOOS: goos })));
step(`cross-build ${allTargets.length} targets`, () => {
  for (const target of allTargets) buildSidecar(target, { log: console.log });
});

const browser = findBrowser();
if (!browser) {
  console.log(`\n${installAdvice}`);
  if (process.env.CI) failures.push('a browser (CI must run the integration tests)');
  else console.log('integration tests that need a browser are skipped (they fail under CI)');
} else {
  console.log(`\nbrowser for integration tests: ${browser}`);
}

// The browser extension (extension/browser): built before the Go tests, which load it into Chromium.
if (step('browser extension: build (dist/browser-extension, the store zip)', () => { buildBrowserExtension({ log: console.log }); })) {
  step('browser extension: unit tests (plain node)', () =>
    run(process.execPath, ['--test', '--test-reporter=spec', ...browserExtensionTests()]));
}
step('go test -race ./...', () => run('go', ['test', '-race', '-count=1', './...']));
if (built && (browser || process.env.CI)) {
  const e2e = fs.readdirSync(path.join(root, 'scripts', 'e2e')).filter((f) => f.endsWith('.test.mjs')).map((f) => path.join('scripts', 'e2e', f));
  step('end-to-end (MCP SDK client, real child MCPs, real browser)', () =>
    run(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...e2e]));
}

// ---- the VS Code extension ----
const compiled = step('compile the extension (tsc)', () => { compileExtension({ log: console.log }); });
if (compiled && built) {
  const unit = fs.readdirSync(path.join(root, 'out', 'test')).filter((f) => f.endsWith('.test.js')).map((f) => path.join('out', 'test', f));
  step('extension unit tests (plain node: real files, real Chromium, the built sidecar)', () =>
    run(process.execPath, ['--test', '--test-reporter=spec', ...unit]));
}
const packed = compiled && built && step('package the linux-x64 VSIX (vsce)', () => {
  const { file, size } = packVsix('linux-x64', { log: console.log });
  console.log(`${path.relative(root, file)}: ${(size / 1024 / 1024).toFixed(2)} MiB`);
});
if (packed) {
  step('VS Code: the VSIX in code-server, driven from Chromium', () =>
    run(process.execPath, ['--test', '--test-reporter=spec', path.join('scripts', 'e2e-vscode', 'codeserver.test.mjs')]));
}
if (built) {
  step('VS Code: Tier 2 in code-server, the Simple Browser as the only page', () =>
    run(process.execPath, ['--test', '--test-reporter=spec', path.join('scripts', 'e2e-vscode', 'tier2.test.mjs')]));
}

const total = ((Date.now() - started) / 1000).toFixed(0);
if (failures.length) {
  console.error(`\nFAILED: ${failures.join('; ')} (${total} s)`);
  process.exit(1);
}
console.log(`\nall tests passed (${total} s)`);
