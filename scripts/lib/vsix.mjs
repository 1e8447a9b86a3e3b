// Compiling the extension and packing per-platform VSIXes (npm run vsix, npm test).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, binaryPath } from './paths.mjs';
import { allTargets, packageVersion } from './build.mjs';
import { zipEntries } from './zip.mjs';

export const distDir = path.join(root, 'dist');

/** The targets to pack: $VSIX_TARGETS (comma separated) or all six. */
export function vsixTargets(env = process.env) {
  const wanted = env.VSIX_TARGETS?.split(',').map((t) => t.trim()).filter(Boolean);
  if (!wanted?.length) return allTargets;
  const unknown = wanted.filter((t) => !allTargets.includes(t));
  if (unknown.length) throw new Error(`VSIX_TARGETS has unknown ${unknown.join(', ')}; use ${allTargets.join(', ')}`);
  return wanted;
}

/** tsc -p . : extension/src and extension/test into a fresh out/ (no leftovers of deleted sources). */
export function compileExtension({ log = () => {} } = {}) {
  const started = Date.now();
  fs.rmSync(path.join(root, 'out'), { recursive: true, force: true });
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root], { cwd: root, stdio: 'inherit' });
  log(`compiled the extension into out/ in ${Date.now() - started} ms`);
}

export function vsixPath(target) {
  return path.join(distDir, `browser-coordinator-${target}.vsix`);
}

/**
 * Packs dist/browser-coordinator-<target>.vsix with vsce. The allowlist
 * .vscodeignore is extended with this target's binary only, in a temporary
 * ignore file, so no VSIX carries another platform's sidecar. Checks the
 * result holds the extension, jsonc-parser and exactly its own binary.
 */
export function packVsix(target, { log = () => {} } = {}) {
  const binary = binaryPath(target);
  if (!fs.existsSync(binary)) throw new Error(`${binary} is missing: build it first (TARGETS=${target} npm run build)`);
  if (!fs.existsSync(path.join(root, 'out', 'src', 'extension.js'))) throw new Error('out/src/extension.js is missing: npm run compile first');
  fs.mkdirSync(distDir, { recursive: true });
  const ignoreFile = path.join(distDir, `.vscodeignore-${target}`);
  const rel = path.relative(root, binary).split(path.sep).join('/');
  fs.writeFileSync(ignoreFile, `${fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8')}\n!${rel}\n`);
  const out = vsixPath(target);
  fs.rmSync(out, { force: true });
  const args = [
    path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce'),
    'package',
    '--target', target,
    '--out', out,
    '--ignoreFile', ignoreFile,
    '--allow-missing-repository',
  ];
  if (!['LICENSE', 'LICENSE.md', 'LICENSE.txt'].some((f) => fs.existsSync(path.join(root, f)))) args.push('--skip-license');
  const started = Date.now();
  try {
    execFileSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  } finally {
    fs.rmSync(ignoreFile, { force: true });
  }
  const entries = zipEntries(out);
  const names = entries.map((e) => e.name);
  const want = ['extension/package.json', 'extension/out/src/extension.js', 'extension/out/src/commands/control.js', 'extension/node_modules/jsonc-parser/lib/umd/main.js', `extension/${rel}`];
  const missing = want.filter((n) => !names.includes(n));
  const otherBins = names.filter((n) => n.startsWith('extension/bin/') && n !== `extension/${rel}`);
  if (missing.length || otherBins.length) {
    throw new Error(`${out} is wrong: ${missing.length ? `missing ${missing.join(', ')}` : ''}${otherBins.length ? ` has other targets' files ${otherBins.join(', ')}` : ''}`);
  }
  const manifest = entries.find((e) => e.name === 'extension.vsixmanifest')?.read().toString('utf8') ?? '';
  if (!manifest.includes(`TargetPlatform="${target}"`)) throw new Error(`${out} does not declare TargetPlatform="${target}"`);
  const size = fs.statSync(out).size;
  log(`packed ${path.relative(root, out)} (${target}, version ${packageVersion()}) in ${Date.now() - started} ms`);
  return { file: out, size, entries };
}
