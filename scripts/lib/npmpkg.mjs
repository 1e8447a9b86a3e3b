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

function writeJSON(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function license(dir) {
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(dir, 'LICENSE'));
}

/** npm pack dir into dist/npm; returns the tarball's path. */
function pack(dir) {
  const out = execFileSync(npm, ['pack', '--json', '--pack-destination', npmDir, dir], {
    cwd: npmDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: process.platform === 'win32',
  });
  return path.join(npmDir, JSON.parse(out)[0].filename);
}

/** Generates one platform package: its binary, stamped as coming from it. */
function platformPackage(target, version, log) {
  const name = platformName(target);
  const dir = path.join(npmDir, target);
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
function mainPackage(version) {
  const dir = path.join(npmDir, mainName);
  fs.cpSync(path.join(templates, 'bin'), path.join(dir, 'bin'), { recursive: true });
  fs.cpSync(path.join(templates, 'lib'), path.join(dir, 'lib'), { recursive: true });
  fs.chmodSync(path.join(dir, 'bin', 'browser-coordinator'), 0o755);
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
 * Generates dist/npm/ afresh and packs it: the main package and the
 * platform packages of targets. Returns { version, main, platforms: {target: tgz} }.
 */
export function packNpm({ targets = allTargets, log = () => {} } = {}) {
  const version = packageVersion();
  fs.rmSync(npmDir, { recursive: true, force: true });
  fs.mkdirSync(npmDir, { recursive: true });
  const platforms = {};
  for (const target of targets) platforms[target] = pack(platformPackage(target, version, log));
  const main = pack(mainPackage(version));
  for (const file of [main, ...Object.values(platforms)]) log(`packed ${path.relative(root, file)} (${(fs.statSync(file).size / 1024 / 1024).toFixed(2)} MiB)`);
  return { version, main, platforms };
}
