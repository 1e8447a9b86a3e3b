// The release (scripts/release.mjs, .github/workflows/release.yml): what one
// tag vX.Y.Z publishes, built and checked here, uploaded by the workflow.
//
//   preflight   the versions agree (package.json, which is the VS Code
//               extension's manifest and the npm packages' source, and the
//               browser extension's manifest.json), the tag names that
//               version, CHANGELOG.md has its section (the release notes)
//   build       into dist/release/: the six binaries (-trimpath, version and
//               commit stamped), the six VSIXes (vsce package --target), the
//               browser extension's zip (and the store's, without "key"),
//               the seven npm tarballs
//               (npm/), SHA256SUMS of what the GitHub release carries,
//               notes.md; every artifact's own version checked
//   reproduce   the six binaries built again elsewhere are byte-identical
//   publish     one store at a time, each with its own secret; a missing
//               secret skips that store with a line that says so
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, hostTarget } from './paths.mjs';
import { allTargets, buildSidecar, commit, packageVersion } from './build.mjs';
import { compileExtension, packVsix } from './vsix.mjs';
import { buildBrowserExtension, writeStoreZip } from './browserExtension.mjs';
import { packNpm, mainName } from './npmpkg.mjs';
import { zipEntries } from './zip.mjs';

export const REPO = 'browser-coordinator/browser-coordinator';
export const releaseDir = path.join(root, 'dist', 'release');
const npmCmd = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** A release that must not go out; message lists every reason. */
export class ReleaseError extends Error {
  constructor(problems) {
    super(`the release is not ready:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

const readJSON = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

/** The release binary's file name for a target. */
export const binaryName = (target) => `browser-coordinator-${target}${target.startsWith('win32') ? '.exe' : ''}`;

/** The versions the sources declare, by where they are declared. */
export function sourceVersions(dir = root) {
  return {
    'package.json': readJSON(path.join(dir, 'package.json')).version,
    'extension/browser/manifest.json': readJSON(path.join(dir, 'extension', 'browser', 'manifest.json')).version,
  };
}

/** One line per place whose version is not want. */
export function disagreements(versions, want) {
  return Object.entries(versions).filter(([, v]) => v !== want).map(([where, v]) => `${where} says ${v ?? 'nothing'}, not ${want}`);
}

/**
 * The body of CHANGELOG.md's section for version (Keep a Changelog:
 * `## [X.Y.Z] - YYYY-MM-DD`), without the link definitions at the file's
 * end; an Error says what is missing.
 */
export function changelogSection(text, version) {
  const lines = text.split(/\r?\n/);
  const heading = new RegExp(`^## \\[${version.replaceAll('.', '\\.')}\\](?: - (\\d{4}-\\d{2}-\\d{2}))?\\s*$`);
  const start = lines.findIndex((l) => heading.test(l));
  if (start < 0) return new Error(`CHANGELOG.md has no section for ${version}: add "## [${version}] - YYYY-MM-DD" with what changed`);
  if (!heading.exec(lines[start])[1]) return new Error(`CHANGELOG.md's section for ${version} has no date: "## [${version}] - YYYY-MM-DD"`);
  const next = lines.findIndex((l, i) => i > start && /^## /.test(l));
  const body = lines.slice(start + 1, next < 0 ? undefined : next).filter((l) => !/^\[[^\]]+\]:\s*\S+$/.test(l)).join('\n').trim();
  if (!body) return new Error(`CHANGELOG.md's section for ${version} is empty: say what the release brings`);
  return body;
}

/**
 * Checks the sources before anything is built: every version agrees with
 * package.json's, the tag (when given) is v<version>, the changelog has the
 * version's section. Returns { version, notes }; throws ReleaseError.
 */
export function preflight({ dir = root, tag } = {}) {
  const versions = sourceVersions(dir);
  const version = versions['package.json'];
  const problems = [];
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version ?? '')) problems.push(`package.json's version ${version} is not X.Y.Z`);
  problems.push(...disagreements(versions, version).map((p) => `${p}: give it package.json's version, which is the release's (or change the version in both)`));
  if (tag && tag !== `v${version}`) problems.push(`the tag is ${tag}, but the version is ${version}: tag v${version}, or change the version`);
  const changelog = path.join(dir, 'CHANGELOG.md');
  const notes = fs.existsSync(changelog) ? changelogSection(fs.readFileSync(changelog, 'utf8'), version) : new Error('there is no CHANGELOG.md');
  if (notes instanceof Error) problems.push(notes.message);
  if (problems.length) throw new ReleaseError(problems);
  return { version, notes };
}

const sha256 = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** SHA256SUMS text (`sha256sum -c` reads it) of files, named by their base name. */
export function sums(files) {
  return files.map((f) => `${sha256(f)}  ${path.basename(f)}\n`).join('');
}

/** The release.json beside a SHA256SUMS, if there is one: what was built, from which commit. */
function readBuilt(sumsFile) {
  const file = path.join(path.dirname(sumsFile), 'release.json');
  return fs.existsSync(file) ? readJSON(file) : undefined;
}

/** { name: hash } of a SHA256SUMS file. */
export function readSums(file) {
  return Object.fromEntries(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
    const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(l);
    if (!m) throw new Error(`${file}: not a SHA256SUMS line: ${l}`);
    return [m[2], m[1]];
  }));
}

/** What the release binaries' --version says of where they came from. */
const releaseSource = (version) => `the release v${version} (github.com/${REPO})`;

/** The six release binaries of the source in dir, into out; returns their paths. */
export function buildBinaries(out, { dir = root, stamp = commit(), log = () => {} } = {}) {
  fs.mkdirSync(out, { recursive: true });
  return allTargets.map((t) => buildSidecar(t, { out: path.join(out, binaryName(t)), dir, stamp, log, source: releaseSource(packageVersion()) }));
}

/** Checks each artifact's own idea of its version; returns the problems. */
function artifactProblems({ version, stamp, binaries, vsixes, zip, storeZip, npm }) {
  const problems = [];
  // A cross-built binary cannot run here: its stamps are looked for in its
  // bytes (-trimpath leaves the -ldflags out of the build information).
  for (const b of binaries) {
    const bytes = fs.readFileSync(b);
    const missing = [releaseSource(version), stamp].filter((s) => !bytes.includes(s));
    if (missing.length) problems.push(`${path.basename(b)} is not stamped with ${missing.map((m) => `"${m}"`).join(' and ')}`);
  }
  const own = binaries.find((b) => path.basename(b) === binaryName(hostTarget()));
  const said = execFileSync(own, ['--version'], { encoding: 'utf8' }).split('\n')[0];
  if (!said.startsWith(`browser-coordinator ${version} (commit ${stamp}`)) problems.push(`${path.basename(own)} --version says "${said}"`);
  for (const v of vsixes) {
    const pkg = JSON.parse(zipEntries(v).find((e) => e.name === 'extension/package.json').read().toString('utf8'));
    problems.push(...disagreements({ [path.basename(v)]: pkg.version }, version));
  }
  for (const z of [zip, storeZip]) {
    const manifest = JSON.parse(zipEntries(z).find((e) => e.name === 'manifest.json').read().toString('utf8'));
    problems.push(...disagreements({ [`${path.basename(z)}'s manifest.json`]: manifest.version }, version));
    if (z === storeZip && 'key' in manifest) problems.push(`${path.basename(z)}'s manifest has "key", which the Chrome Web Store refuses`);
    if (z === zip && !('key' in manifest)) problems.push(`${path.basename(z)}'s manifest has no "key": unpacked, it would get an id the native host does not allow`);
  }
  for (const dir of fs.readdirSync(npm.dir, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    const pkg = readJSON(path.join(npm.dir, dir.name, 'package.json'));
    problems.push(...disagreements({ [`npm package ${pkg.name}`]: pkg.version }, version));
    for (const [dep, v] of Object.entries(pkg.optionalDependencies ?? {})) problems.push(...disagreements({ [`${pkg.name}'s dependency ${dep}`]: v }, version));
  }
  return problems;
}

/**
 * Builds everything a release publishes into out (default dist/release/),
 * from scratch, and checks every artifact's version. Returns the manifest
 * of what was built.
 */
export function buildRelease({ out = releaseDir, tag, log = console.log } = {}) {
  const { version, notes } = preflight({ tag });
  const stamp = commit(); // once: every artifact names the same commit
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const binaries = buildBinaries(out, { stamp, log });

  compileExtension({ log });
  const vsixes = allTargets.map((t) => {
    buildSidecar(t, { log, stamp, source: `bundled with the VS Code extension v${version}` });
    const { file } = packVsix(t, { log });
    const dest = path.join(out, path.basename(file));
    fs.copyFileSync(file, dest);
    return dest;
  });

  const { zip: builtZip } = buildBrowserExtension({ log });
  const zip = path.join(out, path.basename(builtZip)); // for Load unpacked: its key fixes the id the native host allows
  fs.copyFileSync(builtZip, zip);
  const storeZip = writeStoreZip(path.join(out, path.basename(builtZip).replace(/\.zip$/, '-chrome-web-store.zip')));

  const npmOut = path.join(out, 'npm');
  const { main, platforms } = packNpm({ out: npmOut, log });
  // The command last: it depends on the others.
  const npm = { dir: npmOut, packages: [...allTargets.map((t) => [t, platforms[t]]), [mainName, main]].map(([d, tarball]) => {
    const { name, version: v } = readJSON(path.join(npmOut, d, 'package.json'));
    return { name, version: v, tarball: path.relative(out, tarball) };
  }) };

  const problems = artifactProblems({ version, stamp, binaries, vsixes, zip, storeZip, npm });
  if (problems.length) throw new ReleaseError(problems);
  const assets = [...binaries, ...vsixes, zip];
  fs.writeFileSync(path.join(out, 'SHA256SUMS'), sums(assets));
  fs.writeFileSync(path.join(out, 'notes.md'), `${notes}\n`);
  const built = { version, tag: `v${version}`, commit: stamp, assets: assets.map((a) => path.basename(a)), vsixes: vsixes.map((v) => path.basename(v)), zip: path.basename(zip), storeZip: path.basename(storeZip), npm: npm.packages };
  fs.writeFileSync(path.join(out, 'release.json'), `${JSON.stringify(built, null, 2)}\n`);
  return built;
}

/** The files tracked by git (and new ones not ignored) of this checkout, copied into dir. */
function copySource(dir) {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    const from = path.join(root, f);
    if (!fs.existsSync(from) || !fs.statSync(from).isFile()) continue; // deleted in the work tree
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(from, path.join(dir, f));
  }
}

/**
 * Builds the six binaries again and compares them with the sums of a
 * release build. copy: from a copy of the source at another path without
 * .git (what -trimpath and -buildvcs=false promise), else from this
 * checkout (release.yml runs it on another OS, with empty caches). Returns
 * the names checked; throws ReleaseError when one differs.
 */
export function reproduce(sumsFile, { copy = false, log = console.log } = {}) {
  const want = readSums(sumsFile);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-reproduce-'));
  try {
    const dir = copy ? path.join(work, 'source') : root;
    if (copy) copySource(dir);
    const rebuilt = buildBinaries(path.join(work, 'bin'), { dir, stamp: readBuilt(sumsFile)?.commit ?? commit(), log });
    const problems = rebuilt.map((b) => path.basename(b)).filter((name) => want[name] !== sha256(path.join(work, 'bin', name)))
      .map((name) => `${name} built again is not byte-identical (sha256 ${sha256(path.join(work, 'bin', name))}, the release's ${want[name] ?? 'missing'})`);
    if (problems.length) throw new ReleaseError(problems);
    return rebuilt.map((b) => path.basename(b));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** `npm publish --dry-run` of each tarball (npm packs it, checks it, uploads nothing). */
export function npmDryRun(built, { out = releaseDir, log = console.log } = {}) {
  for (const { name, version, tarball } of built.npm) {
    const r = spawnSync(npmCmd, ['publish', '--dry-run', '--access', 'public', '--ignore-scripts', path.join(out, tarball)], { encoding: 'utf8', shell: process.platform === 'win32' });
    if (r.status !== 0) throw new Error(`npm publish --dry-run ${tarball} failed:\n${r.stdout}${r.stderr}`);
    const said = /\+ (\S+)/.exec(`${r.stdout}${r.stderr}`)?.[1];
    if (said !== `${name}@${version}`) throw new Error(`npm publish --dry-run ${tarball} would publish ${said ?? 'nothing it named'}, not ${name}@${version}`);
    log(`npm publish --dry-run ${tarball}: ${said}`);
  }
}

/** The lines that say what a real run would publish where, and with which secret. */
export function plan(built) {
  const npmNames = built.npm.map((p) => `${p.name}@${p.version}`);
  return [
    `A real release of ${built.tag} (commit ${built.commit}), from .github/workflows/release.yml, would publish:`,
    `  GitHub release ${built.tag} at https://github.com/${REPO}/releases/tag/${built.tag} (GITHUB_TOKEN): ${built.assets.length} files and SHA256SUMS, notes from CHANGELOG.md's section; build attestations for each of them`,
    `  npm, with provenance (NPM_TOKEN): ${npmNames.join(', ')}`,
    `  the VS Code Marketplace (VSCE_PAT): browser-coordinator.browser-coordinator ${built.version} for ${allTargets.join(', ')}`,
    `  Open VSX (OVSX_PAT): the same six VSIXes`,
    `  the Chrome Web Store (CWS_CLIENT_ID, CWS_CLIENT_SECRET, CWS_REFRESH_TOKEN, CWS_PUBLISHER_ID, CWS_ITEM_ID): ${built.storeZip}, submitted for review`,
    'A store whose secret is not set is skipped with a line that says so; the others still publish.',
  ];
}
