// The linters `npm test` runs first (and `npm run lint` alone): gofmt, go
// vet and staticcheck for linux, darwin and windows (GO_MODULES), no
// production Go function over 80 lines (scripts/funclen), ESLint on
// extension/ and scripts/ (eslint.config.mjs), actionlint on
// .github/workflows/. The Go tools
// are installed from the Go module proxy at the versions pinned here, once,
// into the cache outside the repository that the code-server and Inspector
// tests use (~/.cache/browser-coordinator, or $BROWSER_COORDINATOR_CACHE).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './paths.mjs';
import { cacheRoot } from './codeserver.mjs';
import { layers } from './layers.mjs';

/** Go tools, pinned; `go install` checks each module against the Go checksum database. */
export const GO_TOOLS = {
  staticcheck: { module: 'honnef.co/go/tools/cmd/staticcheck', version: 'v0.8.2' },
  actionlint: { module: 'github.com/rhysd/actionlint/cmd/actionlint', version: 'v1.7.12' },
};

/** The operating systems go vet and staticcheck look at: each has files of its own. */
export const LINT_GOOS = ['linux', 'darwin', 'windows'];

/**
 * The repository's Go modules: the folder gofmt reads, the module's root
 * (where go vet and staticcheck run) and the operating systems it is built for.
 */
export const GO_MODULES = [
  { name: 'the sidecar', fmt: 'sidecar', dir: '.', goos: LINT_GOOS },
  // chromedp and go-rod programs that scripts/e2e/clients.test.mjs builds;
  // that test runs on Linux only (scripts/lib/platforms.mjs).
  { name: 'scripts/cdpclients', fmt: 'scripts/cdpclients', dir: 'scripts/cdpclients', goos: ['linux'] },
];

const exe = (name) => (process.platform === 'win32' ? `${name}.exe` : name);

/**
 * The path of a pinned Go tool, installed with `go install MODULE@VERSION`
 * when missing. The folder names the Go release too: a tool built by an
 * older Go cannot read the packages of a newer one.
 */
export function ensureGoTool(name, { log = console.log } = {}) {
  const { module, version } = GO_TOOLS[name];
  const goVersion = execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim();
  const dir = path.join(cacheRoot(), 'go-tools', `${name}-${version}-${goVersion}`);
  const bin = path.join(dir, exe(name));
  if (fs.existsSync(bin)) return bin;
  // Into a folder of its own, renamed into place when complete: a run that
  // stops half-way leaves nothing that looks installed.
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  log(`go install ${module}@${version} (into ${dir}) ...`);
  const env = { ...process.env, GOBIN: tmp, CGO_ENABLED: '0' };
  delete env.GOFLAGS; // the repository's -mod=readonly does not apply to another module
  const r = spawnSync('go', ['install', `${module}@${version}`], { cwd: os.tmpdir(), stdio: 'inherit', env });
  if (r.status !== 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(`go install ${module}@${version} failed (its output is above): the Go module proxy must be reachable (GOPROXY)`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  return bin;
}

/** Runs cmd in dir (the repository's root); returns { ok, out } with stdout and stderr together. */
function capture(cmd, args, { env = {}, dir = '.' } = {}) {
  const r = spawnSync(cmd, args, { cwd: path.join(root, dir), encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}`.trim() };
}

/** Prints what a linter said; true when it found nothing. */
function report(name, { ok, out }, log) {
  if (out) log(out);
  if (!ok) log(`${name} found problems (above)`);
  return ok;
}

/** gofmt -l: no Go file that gofmt would change. */
export function gofmt({ log = console.log } = {}) {
  const dirs = GO_MODULES.map((m) => m.fmt);
  const { ok, out } = capture('gofmt', ['-l', ...dirs]);
  if (!ok) return report('gofmt', { ok, out }, log);
  if (out) log(`gofmt would change these files (run \`gofmt -w ${dirs.join(' ')}\`):\n${out}`);
  return out === '';
}

/** go vet ./... in each of GO_MODULES for each of its operating systems. */
export function goVet({ log = console.log } = {}) {
  return GO_MODULES.flatMap(({ name, dir, goos: list }) => list.map((goos) =>
    report(`go vet (${name}, GOOS=${goos})`, capture('go', ['vet', './...'], { env: { GOOS: goos }, dir }), log))).every(Boolean);
}

/** The most lines a production Go function of the sidecar may have (issue 18). */
export const MAX_FUNC_LINES = 80;

/**
 * No production Go function of the sidecar over MAX_FUNC_LINES lines, from
 * `func` to its closing brace (scripts/funclen, with go/ast; tests are not
 * counted): each reads top-down on one screen.
 */
export function funcLength({ log = console.log } = {}) {
  return report('funclen', capture('go', ['run', './scripts/funclen', '-max', String(MAX_FUNC_LINES), 'sidecar']), log);
}

/**
 * staticcheck in each of GO_MODULES for each of its operating systems,
 * merged (-merge): a finding counts when every run has it, so a function that
 * only windows code calls is not "unused" because the linux run does not see
 * its caller.
 */
export function staticcheck({ log = console.log } = {}) {
  const bin = ensureGoTool('staticcheck', { log });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-staticcheck-'));
  try {
    return GO_MODULES.map(({ name, dir, goos: list }) => {
      const runs = list.map((goos) => staticcheckRun(bin, { dir, goos, out: path.join(tmp, `${path.basename(dir)}-${goos}.bin`) }));
      return report(`staticcheck (${name})`, capture(bin, ['-merge', ...runs], { dir }), log);
    }).every(Boolean);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** One staticcheck run in binary form (for -merge) into the file out; returns out. */
function staticcheckRun(bin, { dir, goos, out }) {
  const fd = fs.openSync(out, 'w');
  let r;
  try {
    r = spawnSync(bin, ['-f', 'binary', './...'], { cwd: path.join(root, dir), env: { ...process.env, GOOS: goos }, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
  } finally {
    fs.closeSync(fd);
  }
  if (r.status !== 0 || r.stderr.trim()) throw new Error(`staticcheck (${dir}, GOOS=${goos}) could not run: ${r.stderr.trim() || `exit ${r.status}`}`);
  return out;
}

/** ESLint with eslint.config.mjs (typescript-eslint, type-checked, on extension/; scripts/). */
export function eslint({ log = console.log } = {}) {
  const cli = path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js');
  return report('ESLint', capture(process.execPath, [cli, '--max-warnings=0', '.']), log);
}

/**
 * actionlint on .github/workflows/, with shellcheck on the run: scripts when
 * it is installed (CI's .ci/run installs it; without it, said so).
 */
export function actionlint({ log = console.log } = {}) {
  const bin = ensureGoTool('actionlint', { log });
  const hasShellcheck = spawnSync('shellcheck', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!hasShellcheck) log('shellcheck is not installed: actionlint checks the workflows without it (Debian: apt-get install shellcheck)');
  const args = hasShellcheck ? [] : ['-shellcheck='];
  return report('actionlint', capture(bin, [...args, '-no-color']), log);
}

/** The linters in the order npm test runs them: the cheapest first. */
export const LINTERS = [
  ['gofmt -l', gofmt],
  [`go vet (${LINT_GOOS.join(', ')})`, goVet],
  ['the sidecar\'s layers (scripts/lib/layers.mjs)', layers],
  [`no production Go function over ${MAX_FUNC_LINES} lines`, funcLength],
  ['ESLint (extension/, scripts/)', eslint],
  ['actionlint (.github/workflows/)', actionlint],
  [`staticcheck (${LINT_GOOS.join(', ')}, merged)`, staticcheck],
];
