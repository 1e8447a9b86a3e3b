// The npm packages (npm run pack): `browser-coordinator`, whose command runs
// the sidecar, and one `@browser-coordinator/<target>` package per target the
// VSIX builds, holding that target's binary and selected by npm through its
// `os` and `cpu` fields (the way esbuild and Biome ship theirs). The root
// package.json is the VS Code extension's manifest, so the packages are
// generated into dist/npm/ and packed there into tarballs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { root } from './paths.mjs';
import { allTargets, buildSidecar, packageVersion } from './build.mjs';

export const npmDir = path.join(root, 'dist', 'npm');
export const mainName = 'browser-coordinator';
export const platformName = (target) => `@browser-coordinator/${target}`;

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// The main package's files: scripts/npm/launcher.js becomes its
// bin/browser-coordinator, platform.js its lib/platform.js.
const templates = path.join(root, 'scripts', 'npm');
const repository = { type: 'git', url: 'git+https://github.com/browser-coordinator/browser-coordinator.git' };
const exe = (target) => (target.startsWith('win32') ? 'browser-coordinator.exe' : 'browser-coordinator');

/** The targets to pack: $NPM_TARGETS (comma separated) or all six. The main package always lists all six. */
export function npmTargets(env = process.env) {
  const wanted = env.NPM_TARGETS?.split(',').map((t) => t.trim()).filter(Boolean);
  if (!wanted?.length) return allTargets;
  const unknown = wanted.filter((t) => !allTargets.includes(t));
  if (unknown.length) throw new Error(`NPM_TARGETS has unknown ${unknown.join(', ')}; use ${allTargets.join(', ')}`);
  return wanted;
}

function size(file) {
  const bytes = fs.statSync(file).size;
  return bytes < 1 << 20 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 2 ** 20).toFixed(2)} MiB`;
}

function writeJSON(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function license(dir) {
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(dir, 'LICENSE'));
}

/** npm pack dir into out; returns the tarball's path. */
function pack(dir, out) {
  const json = execFileSync(npm, ['pack', '--json', '--pack-destination', out, dir], {
    cwd: out, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: process.platform === 'win32',
  });
  return path.join(out, JSON.parse(json)[0].filename);
}

/** Generates one platform package: its binary, stamped as coming from it. */
function platformPackage(out, target, version, log) {
  const name = platformName(target);
  const dir = path.join(out, target);
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  buildSidecar(target, { log, out: path.join(dir, 'bin', exe(target)), source: `installed from the npm package ${mainName} (${name})` });
  const [os, cpu] = target.split('-');
  writeJSON(path.join(dir, 'package.json'), {
    name,
    version,
    description: `The ${target} binary of browser-coordinator; install the package browser-coordinator, which picks this one on ${target}.`,
    license: 'MIT',
    repository,
    os: [os],
    cpu: [cpu],
    files: ['bin/'],
    preferUnplugged: true, // Yarn PnP: a binary must be a file on disk
  });
  fs.writeFileSync(path.join(dir, 'README.md'), `# ${name}\n\nThe \`browser-coordinator\` binary for ${target}. Install [browser-coordinator](https://www.npmjs.com/package/browser-coordinator) instead: it depends on this package (and its siblings for other platforms) and runs the binary.\n`);
  license(dir);
  return dir;
}

/** Generates the main package: the launcher, and every platform package as an optional dependency. */
function mainPackage(out, version) {
  const dir = path.join(out, mainName);
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'lib'), { recursive: true });
  fs.copyFileSync(path.join(templates, 'launcher.js'), path.join(dir, 'bin', 'browser-coordinator'));
  fs.chmodSync(path.join(dir, 'bin', 'browser-coordinator'), 0o755);
  fs.copyFileSync(path.join(templates, 'platform.js'), path.join(dir, 'lib', 'platform.js'));
  fs.copyFileSync(path.join(templates, 'README.md'), path.join(dir, 'README.md'));
  license(dir);
  writeJSON(path.join(dir, 'package.json'), {
    name: mainName,
    version,
    description: 'MCP server that owns the browser for AI agents\' browser tools (Playwright MCP, chrome-devtools-mcp): lazy launch, one stable CDP endpoint, no orphaned browsers.',
    keywords: ['mcp', 'mcp-server', 'browser', 'cdp', 'playwright', 'chrome-devtools', 'agent'],
    license: 'MIT',
    repository,
    bin: { 'browser-coordinator': 'bin/browser-coordinator' },
    files: ['bin/', 'lib/'],
    engines: { node: '>=18' },
    optionalDependencies: Object.fromEntries(allTargets.map((t) => [platformName(t), version])),
  });
  // The launcher's table must name exactly the packages generated here.
  const table = createRequire(import.meta.url)(path.join(dir, 'lib', 'platform.js')).packages;
  const want = Object.fromEntries(allTargets.map((t) => [t, platformName(t)]));
  if (JSON.stringify(table) !== JSON.stringify(want)) {
    throw new Error(`scripts/npm/lib/platform.js names ${JSON.stringify(table)}; the targets are ${JSON.stringify(want)}: update its table`);
  }
  return dir;
}

/**
 * Generates out (default dist/npm/) afresh and packs it: the main package
 * and the platform packages of targets. Returns { version, main, platforms:
 * {target: tgz} }.
 */
export function packNpm({ targets = allTargets, out = npmDir, log = () => {} } = {}) {
  const version = packageVersion();
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const platforms = {};
  for (const target of targets) platforms[target] = pack(platformPackage(out, target, version, log), out);
  const main = pack(mainPackage(out, version), out);
  for (const file of [main, ...Object.values(platforms)]) log(`packed ${path.relative(root, file)} (${size(file)})`);
  return { version, main, platforms };
}

/**
 * Installs tarballs into dir (created with an empty package.json) the way a
 * user without the registry would: --offline, with a cache of its own that
 * starts empty, so nothing can come from anywhere else. Returns the path of
 * the installed command (node_modules/.bin/browser-coordinator).
 */
export function installOffline(dir, tarballs, { cache = path.join(dir, '.npm-cache') } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n');
  execFileSync(npm, ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', '--cache', cache, ...tarballs], {
    cwd: dir, stdio: ['ignore', 2, 'inherit'], shell: process.platform === 'win32', // npm's summary to stderr: stdout may be a report
  });
  return path.join(dir, 'node_modules', '.bin', process.platform === 'win32' ? 'browser-coordinator.cmd' : 'browser-coordinator');
}
