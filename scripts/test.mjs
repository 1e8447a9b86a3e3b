// npm test: every test, on a fresh machine too. Installs what is missing —
// npm packages, Go modules (go build fetches them), a browser and
// code-server's build tools (as root on Debian, the way `npm run demo` does;
// elsewhere it fails and prints the command to run) — builds the sidecar,
// then runs vet, the cross-builds of all six targets, the Go tests (-race,
// against a real Chromium) and the end-to-end tests (real child MCPs, the
// official MCP SDK as client), then the VS Code extension: compile, unit
// tests in plain Node, the linux-x64 VSIX, and that VSIX in a real VS Code:
// code-server, on the oldest VS Code the extension supports and on the
// newest code-server on npm (scripts/lib/codeserver.mjs).
//
// The summary counts tests: how many ran, passed, failed and were skipped. A
// skipped test did not run and is never counted as passed; each skip is
// listed with its reason.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib/paths.mjs';
import { ensureNpmDeps, ensureBrowser, installAdvice } from './lib/setup.mjs';
import { buildSidecar, allTargets, requireGo } from './lib/build.mjs';
import { compileExtension, packVsix } from './lib/vsix.mjs';
import { buildBrowserExtension, browserExtensionTests } from './lib/browserExtension.mjs';
import { Tally, nodeTests, goTests } from './lib/tally.mjs';

const started = Date.now();
const failures = [];
const tally = new Tally();

async function step(name, fn) {
  const t0 = Date.now();
  console.log(`\n=== ${name}`);
  let ok;
  try {
    ok = (await fn()) !== false;
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

await step('npm packages', () => ensureNpmDeps());
console.log(requireGo());
const built = await step('build the sidecar', () => { buildSidecar(undefined, { log: console.log }); });
await step('go vet (linux, darwin, windows)', () =>
  ['linux', 'darwin', 'windows'].every((goos) => run('go', ['vet', './...'], { GOOS: goos })));
await step(`cross-build ${allTargets.length} targets`, () => {
  for (const target of allTargets) buildSidecar(target, { log: console.log });
});

const browser = await step('a browser for the integration tests', () => {
  const found = ensureBrowser({ install: true, log: console.log });
  if (!found) throw new Error(installAdvice);
  console.log(`browser: ${found}`);
});

// The browser extension (extension/browser): built before the Go tests, which load it into Chromium.
if (await step('browser extension: build (dist/browser-extension, the store zip)', () => { buildBrowserExtension({ log: console.log }); })) {
  await step('browser extension: unit tests (plain node)', () =>
    nodeTests(tally, 'browser extension', browserExtensionTests()));
}
// -timeout is a failure guard per package: under -race on a busy machine a
// package of real-browser tests (cdpproxy, coordinator, everyday) takes
// longer than go test's default 10 minutes, and a hang still ends.
await step('go test -race ./...', () => goTests(tally, 'go', ['-race', '-count=1', '-timeout=45m', './...']));
if (built && browser) {
  const e2e = fs.readdirSync(path.join(root, 'scripts', 'e2e')).filter((f) => f.endsWith('.test.mjs')).map((f) => path.join('scripts', 'e2e', f));
  await step('end-to-end (MCP SDK client, real child MCPs, real browser)', () =>
    nodeTests(tally, 'end-to-end', e2e, { args: ['--test-concurrency=1'] }));
}

// ---- the VS Code extension ----
const compiled = await step('compile the extension (tsc)', () => { compileExtension({ log: console.log }); });
if (compiled && built) {
  const unit = fs.readdirSync(path.join(root, 'out', 'test')).filter((f) => f.endsWith('.test.js')).map((f) => path.join('out', 'test', f));
  await step('extension unit tests (plain node: real files, real Chromium, the built sidecar)', () =>
    nodeTests(tally, 'extension', unit));
}
const packed = compiled && built && await step('package the linux-x64 VSIX (vsce)', () => {
  const { file, size } = packVsix('linux-x64', { log: console.log });
  console.log(`${path.relative(root, file)}: ${(size / 1024 / 1024).toFixed(2)} MiB`);
});
if (built && browser) {
  const { CODE_SERVERS, ensureCodeServer, codeServerSkip } = await import('./lib/codeserver.mjs');
  const skip = codeServerSkip();
  for (const spec of Object.values(CODE_SERVERS)) {
    const group = `VS Code (code-server ${spec.version}, ${spec.name})`;
    if (skip) {
      tally.add(group, 'the code-server tests', 'skip', skip);
      continue;
    }
    const ready = await step(`${group}: install (once, cached)`, () => {
      const cs = ensureCodeServer({ spec, log: console.log });
      console.log(`code-server ${cs.version} is VS Code ${cs.vscode}, in ${cs.dir}`);
    });
    if (!ready) continue;
    const env = { BC_CODE_SERVER: spec.name };
    if (packed) {
      await step(`${group}: the VSIX, driven from Chromium`, () =>
        nodeTests(tally, group, [path.join('scripts', 'e2e-vscode', 'codeserver.test.mjs')], { env }));
    }
    await step(`${group}: Tier 2, the Simple Browser as the only page`, () =>
      nodeTests(tally, group, [path.join('scripts', 'e2e-vscode', 'tier2.test.mjs')], { env }));
  }
}

const total = ((Date.now() - started) / 1000).toFixed(0);
console.log('');
for (const line of tally.summary()) console.log(line);
const { ran, skipped } = tally.count();
if (failures.length) {
  console.error(`\nFAILED: ${failures.join('; ')} (${total} s)`);
  process.exit(1);
}
if (skipped) console.log(`\nno failures, but ${skipped} of ${ran + skipped} tests were skipped (listed above): they did not run (${total} s)`);
else console.log(`\nall ${ran} tests passed (${total} s)`);
