// What `npm test` runs on each OS. Linux runs everything. macOS and Windows
// (CI's other two runners, and a contributor's machine) run the linters, the
// Go tests, the extensions' unit tests and the end-to-end tests that need
// only a browser; every other end-to-end file is skipped there, each of its
// tests counted in the summary with the file's reason.
import fs from 'node:fs';
import path from 'node:path';
import { root } from './paths.mjs';

/** The end-to-end files that run on every OS: they need only a browser. */
export const everywhereE2E = [
  'lifecycle.test.mjs', // launch, the stable endpoint, restart, no orphan after a hard kill, wrap
  'platform.test.mjs', // install --host paths, the native-messaging manifest (and registry key), the per-user state folder
  'fixturesite.test.mjs', // plain Node: the fixture site's server
  'release.test.mjs', // the release script's refusals and skips
  'corpus-agents.test.mjs', // plain Node: the corpus agents' reading of tool lists and snapshots
];

/** Why an end-to-end file runs on Linux only. A file not named here says so as its reason. */
const sameGo = 'not in the browser-only set that runs on macOS and Windows: the same Go serves it on every OS, and the Linux job runs it';
const linuxOnlyE2E = {
  'attach.test.mjs': 'puts a "remote" browser in a Linux network namespace (ip netns)',
  'browser-service.test.mjs': 'runs the Browserless platform from npm on the system Chromium (a link where its playwright-core looks for Chrome for Testing); not yet tried on macOS and Windows',
  'everyday.test.mjs': 'loads the unpacked extension with --load-extension, which only Chromium honours; the macOS and Windows runners have Chrome and Edge',
  'everyday-pagetools.test.mjs': 'loads the unpacked extension with --load-extension, which only Chromium honours; the macOS and Windows runners have Chrome and Edge',
  'reach.test.mjs': 'loads the unpacked extension with --load-extension, which only Chromium honours; the macOS and Windows runners have Chrome and Edge',
  'page-reach.test.mjs': 'serves a second origin on 127.0.0.2, which macOS answers only with a loopback alias (ifconfig lo0 alias 127.0.0.2); not yet tried on Windows',
  'corpus.test.mjs': 'serves its apps on a second origin, 127.0.0.2 (one per agent), which macOS answers only with a loopback alias; the same Go serves page tools on every OS, and the Linux job runs it',
  'security.test.mjs': 'attacks as a second local user (useradd, setpriv), and the kernel socket tables it checks are Linux\'s',
  'inspector.test.mjs': 'runs MCP Inspector on the Node 22 of the node-linux-* npm package',
  'npm-package.test.mjs': 'not yet tried on macOS and Windows: it installs this platform\'s package from tarballs and drives it through npx',
  'goinstall.test.mjs': 'not yet tried on macOS and Windows: go install from a file:// module proxy',
  'pagetools.test.mjs': sameGo,
  'clients.test.mjs': sameGo,
  'isolated.test.mjs': sameGo,
  'http.test.mjs': sameGo,
  'single-entry.test.mjs': sameGo,
  'tiers.test.mjs': sameGo,
};

/**
 * Splits scripts/e2e/*.test.mjs into the files to run on platform and the
 * ones skipped there: { run: [relative path], skipped: [{ file, reason }] }.
 */
export function e2eFiles(platform = process.platform) {
  const dir = path.join(root, 'scripts', 'e2e');
  const all = fs.readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).sort();
  const rel = (f) => path.join('scripts', 'e2e', f);
  if (platform === 'linux') return { run: all.map(rel), skipped: [] };
  return {
    run: all.filter((f) => everywhereE2E.includes(f)).map(rel),
    skipped: all.filter((f) => !everywhereE2E.includes(f)).map((f) => ({
      file: rel(f),
      reason: `Linux only: ${linuxOnlyE2E[f] ?? 'not yet made to run on macOS and Windows (add it to everywhereE2E in scripts/lib/platforms.mjs when it does)'}`,
    })),
  };
}

/**
 * The names of the top-level tests in a node:test file, read from its
 * source (test('name', ...) at the start of a line), so that a file skipped
 * as a whole still counts each of its tests.
 */
export function testNames(file) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(/^test\(\s*(['"`])((?:\\.|(?!\1).)*)\1/gm)].map((m) => m[2].replace(/\\(.)/g, '$1'));
}

/** Whether `go test -race` can run here: it needs cgo, so a C compiler on Windows. */
export function raceDetector() {
  if (process.platform !== 'win32') return { ok: true };
  const found = (process.env.PATH ?? '').split(path.delimiter).some((d) => d && fs.existsSync(path.join(d, 'gcc.exe')));
  return found ? { ok: true } : { ok: false, why: 'the race detector needs cgo, and no gcc is on PATH' };
}
