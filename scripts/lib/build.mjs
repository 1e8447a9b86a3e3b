// Builds the sidecar: `go build` with the version and commit stamped, trimmed
// paths, no cgo and no VCS stamp of Go's own (which would differ between a
// checkout with untracked files and a clean one), into bin/<target>/ (the
// layout the VSIX ships). The same source gives the same bytes: the release
// checks it (scripts/lib/release.mjs).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, binaryPath, hostTarget } from './paths.mjs';

const goTargets = {
  'linux-x64': ['linux', 'amd64'],
  'linux-arm64': ['linux', 'arm64'],
  'darwin-x64': ['darwin', 'amd64'],
  'darwin-arm64': ['darwin', 'arm64'],
  'win32-x64': ['windows', 'amd64'],
  'win32-arm64': ['windows', 'arm64'],
};
export const allTargets = Object.keys(goTargets);

export function packageVersion() {
  return JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
}

/** The commit stamped into binaries: HEAD's, 12 hex digits. */
export function commit() {
  const r = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
}

/** Checks Go is there, with a message that says what to do when it is not. */
export function requireGo() {
  const r = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error('Go is not installed or not on PATH: install Go 1.26 or newer (https://go.dev/dl/) to build the sidecar');
  }
  return r.stdout.trim();
}

/** The Go target (GOOS, GOARCH) of a VS Code target name such as linux-x64. */
export function goTarget(target) {
  const t = goTargets[target];
  if (!t) throw new Error(`unknown target ${target}; use one of ${allTargets.join(', ')}`);
  return t;
}

/**
 * Builds the sidecar for one VS Code target (default: this machine); returns
 * the binary's path. out defaults to bin/<target>/; source is what
 * `--version` says about where the binary came from. dir is the source tree
 * (default: this checkout; the release's reproducibility check builds a copy
 * elsewhere, with this checkout's commit).
 */
export function buildSidecar(target = hostTarget(), { log = () => {}, out = binaryPath(target), source = 'built by npm run build', dir = root, stamp = commit() } = {}) {
  const [goos, goarch] = goTarget(target);
  const pkg = 'github.com/browser-coordinator/browser-coordinator/sidecar/internal/version';
  const ldflags = `-s -w -X ${pkg}.Version=${packageVersion()} -X ${pkg}.Commit=${stamp} -X '${pkg}.Source=${source}'`;
  const started = Date.now();
  execFileSync('go', ['build', '-trimpath', '-buildvcs=false', '-ldflags', ldflags, '-o', out, './sidecar/cmd/browser-coordinator'], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, CGO_ENABLED: '0', GOOS: goos, GOARCH: goarch, GOFLAGS: '-mod=readonly' },
  });
  log(`built ${path.relative(root, out)} (${target}) in ${Date.now() - started} ms`);
  return out;
}
