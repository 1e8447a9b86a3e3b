// npm test: every test, on a fresh machine too. Installs what is missing —
// npm packages, Go modules (go build fetches them), a browser and
// code-server's build tools (as root on Debian, the way `npm run demo` does;
// elsewhere it fails and prints the command to run) — runs the linters first
// (gofmt, go vet and staticcheck for three OSes, ESLint, actionlint:
// scripts/lib/lint.mjs), builds the sidecar, then runs the cross-builds of
// all six targets, the Go tests (-race,
// against a real Chromium) and the end-to-end tests (real child MCPs, the
// official MCP SDK as client), then the VS Code extension: compile, unit
// tests in plain Node, the linux-x64 VSIX, and that VSIX in a real VS Code:
// code-server, on the oldest VS Code the extension supports and on the
// newest code-server on npm (scripts/lib/codeserver.mjs); and last the
// release's dry run (scripts/release.mjs: everything but the uploads).
//
// The summary counts tests: how many ran, passed, failed and were skipped. A
// skipped test did not run and is never counted as passed; each skip is
// listed with its reason.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib/paths.mjs';
import { ensureNpmDeps, ensureBrowser, detectedBrowser, installAdvice } from './lib/setup.mjs';
import { buildSidecar, allTargets, requireGo } from './lib/build.mjs';
import { compileExtension, packVsix } from './lib/vsix.mjs';
import { buildBrowserExtension, browserExtensionTests } from './lib/browserExtension.mjs';
import { Tally, nodeTests, goTests } from './lib/tally.mjs';
import { LINTERS } from './lib/lint.mjs';
import { e2eFiles, raceDetector, testNames } from './lib/platforms.mjs';

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

await step('npm packages', () => ensureNpmDeps());
console.log(requireGo());
// The linters first: they are fast, and what they find is cheap to fix.
for (const [name, lint] of LINTERS) await step(`lint: ${name}`, () => lint({ log: console.log }));
const built = await step('build the sidecar', () => { buildSidecar(undefined, { log: console.log }); });
await step(`cross-build ${allTargets.length} targets`, () => {
  for (const target of allTargets) buildSidecar(target, { log: console.log });
});

// The Go tests take theirs from BROWSER_COORDINATOR_TEST_BROWSER: on macOS
// and Windows no browser is on PATH, so the sidecar's own detection finds it.
let browserPath = process.env.BROWSER_COORDINATOR_TEST_BROWSER;
const browser = await step('a browser for the integration tests', async () => {
  browserPath ||= ensureBrowser({ install: true, log: console.log }) ?? (built ? await detectedBrowser() : undefined);
  if (!browserPath) throw new Error(installAdvice);
  console.log(`browser: ${browserPath}`);
});

// The browser extension (extension/browser): built before the Go tests, which load it into Chromium.
if (await step('browser extension: build (dist/browser-extension, the store zip)', () => { buildBrowserExtension({ log: console.log }); })) {
  await step('browser extension: unit tests (plain node)', () =>
    nodeTests(tally, 'browser extension', browserExtensionTests()));
}
// -timeout is a failure guard per package: under -race on a busy machine a
// package of real-browser tests (cdpproxy, coordinator, everyday) takes
// longer than go test's default 10 minutes, and a hang still ends.
const race = raceDetector();
if (!race.ok) console.log(`go test runs without -race here: ${race.why}`);
await step(`go test ${race.ok ? '-race ' : ''}./...`, () =>
  goTests(tally, 'go', [...(race.ok ? ['-race'] : []), '-count=1', '-timeout=45m', './...'], { env: browserPath ? { BROWSER_COORDINATOR_TEST_BROWSER: browserPath } : {} }));
if (built && browser) {
  const { run, skipped } = e2eFiles();
  for (const { file, reason } of skipped) {
    for (const name of testNames(file)) tally.add('end-to-end', `${file}: ${name}`, 'skip', reason);
  }
  await step('end-to-end (MCP SDK client, real child MCPs, real browser)', () =>
    nodeTests(tally, 'end-to-end', run, { args: ['--test-concurrency=1'] }));
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

// The release, all but the uploads: last, as it builds bin/, out/ and dist/
// again, with the release's stamps.
if (process.platform === 'linux') {
  await step('npm run release -- --dry-run', () => spawnSync(process.execPath, [path.join('scripts', 'release.mjs'), '--dry-run'], { cwd: root, stdio: 'inherit' }).status === 0);
} else {
  console.log('\nthe release dry run runs on Linux, where release.yml builds the release (and macOS rebuilds its binaries)');
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
