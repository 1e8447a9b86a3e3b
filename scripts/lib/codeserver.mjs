// code-server (VS Code in a browser, from the npm registry) for the real
// VS Code test, installed once into a cache outside the repository
// (~/.cache/browser-coordinator, or $BROWSER_COORDINATOR_CACHE) and reused.
//
// Pinned: code-server 4.103.2 is VS Code 1.103, new enough for the MCP API
// (vscode.lm.registerMcpServerDefinitionProvider, 1.101+). It needs Node 22,
// which comes from the npm package node-linux-<arch> (the machine's Node may
// be 20). Its install builds native modules (apt: libkrb5-dev libxkbfile-dev
// libsecret-1-dev pkg-config build-essential) against that Node's headers,
// and @vscode/ripgrep's postinstall downloads rg from GitHub, which a closed
// network cannot reach: its download cache is seeded with Debian's rg
// (apt: ripgrep) first, under the file name the postinstall looks for.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alive, waitUntil } from './procs.mjs';

export const CODE_SERVER_VERSION = '4.103.2';
export const NODE_VERSION = '22.23.3';

export const aptPackages = ['libkrb5-dev', 'libxkbfile-dev', 'libsecret-1-dev', 'pkg-config', 'build-essential', 'ripgrep'];

/** What installing code-server needs that this machine lacks (empty when ready or already installed). */
export function missingPrerequisites() {
  if (fs.existsSync(path.join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`, '.installed'))) return [];
  const has = (cmd) => spawnSync('sh', ['-c', cmd], { stdio: 'ignore' }).status === 0;
  const missing = [];
  if (!has('command -v rg')) missing.push('ripgrep');
  if (!has('command -v pkg-config')) missing.push('pkg-config');
  if (!has('command -v make && command -v g++')) missing.push('build-essential');
  for (const [module, pkg] of [['krb5-gssapi', 'libkrb5-dev'], ['libsecret-1', 'libsecret-1-dev'], ['xkbfile', 'libxkbfile-dev']]) {
    if (!has(`pkg-config --exists ${module}`)) missing.push(pkg);
  }
  return missing;
}

export function cacheRoot() {
  return process.env.BROWSER_COORDINATOR_CACHE || path.join(os.homedir(), '.cache', 'browser-coordinator');
}

const npmCmd = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function npmInstall(dir, spec, { env = process.env, log }) {
  fs.mkdirSync(dir, { recursive: true });
  if (!fs.existsSync(path.join(dir, 'package.json'))) fs.writeFileSync(path.join(dir, 'package.json'), '{"private": true}\n');
  log(`npm install ${spec} (in ${dir}) ...`);
  execFileSync(npmCmd, ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', spec], { cwd: dir, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Node 22 from the npm package node-linux-<arch>; returns its folder (bin/node, include/node). */
export function ensureNode({ log = console.log } = {}) {
  if (process.platform !== 'linux') throw new Error('the code-server test runs on Linux only');
  const pkg = `node-linux-${process.arch}`;
  const dir = path.join(cacheRoot(), `node-${NODE_VERSION}`);
  const home = path.join(dir, 'node_modules', pkg);
  const node = path.join(home, 'bin', 'node');
  if (!fs.existsSync(node)) npmInstall(dir, `${pkg}@${NODE_VERSION}`, { log });
  const v = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  if (v !== `v${NODE_VERSION}`) throw new Error(`${node} is ${v}, expected v${NODE_VERSION}`);
  return { home, node };
}

function tarRead(tgz, member) {
  return execFileSync('tar', ['-xzOf', tgz, member], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

function npmPack(spec, dir) {
  const out = execFileSync(npmCmd, ['pack', '--silent', spec], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop();
  return path.join(dir, out);
}

/**
 * Seeds @vscode/ripgrep's download cache (in tmpdir) with Debian's rg for
 * every @vscode/ripgrep version code-server's lock files name.
 */
function seedRipgrep(csTgz, work, tmpdir, log) {
  const rg = spawnSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).stdout.trim();
  if (!rg) throw new Error(`ripgrep is missing: apt-get install -y ${aptPackages.join(' ')}`);
  const versions = new Set();
  for (const lock of ['package/lib/vscode/npm-shrinkwrap.json', 'package/lib/vscode/extensions/npm-shrinkwrap.json']) {
    let json;
    try {
      json = JSON.parse(tarRead(csTgz, lock));
    } catch {
      continue;
    }
    for (const [name, p] of Object.entries(json.packages ?? {})) {
      if (name.endsWith('node_modules/@vscode/ripgrep')) versions.add(p.version);
    }
  }
  const triple = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' }[process.arch];
  const staging = fs.mkdtempSync(path.join(work, 'rg-'));
  fs.copyFileSync(rg, path.join(staging, 'rg'));
  fs.chmodSync(path.join(staging, 'rg'), 0o755);
  for (const version of versions) {
    const tgz = npmPack(`@vscode/ripgrep@${version}`, work);
    const postinstall = tarRead(tgz, 'package/lib/postinstall.js');
    const tag = /const VERSION = '([^']+)'/.exec(postinstall)?.[1];
    if (!tag) throw new Error(`cannot find the ripgrep release in @vscode/ripgrep@${version}'s postinstall`);
    const cache = path.join(tmpdir, `vscode-ripgrep-cache-${version}`);
    fs.mkdirSync(cache, { recursive: true });
    const asset = path.join(cache, `ripgrep-${tag}-${triple}.tar.gz`);
    execFileSync('tar', ['-czf', asset, '-C', staging, 'rg']);
    log(`seeded ${asset} with ${rg} (for @vscode/ripgrep ${version})`);
  }
}

/**
 * code-server, installed when missing. Returns { node, entry, version }:
 * run it as `node entry …`.
 */
export function ensureCodeServer({ log = console.log } = {}) {
  const { home: nodeHome, node } = ensureNode({ log });
  const dir = path.join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
  const pkg = path.join(dir, 'node_modules', 'code-server');
  const entry = path.join(pkg, 'out', 'node', 'entry.js');
  const done = path.join(dir, '.installed');
  if (!fs.existsSync(done)) {
    const started = Date.now();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-code-server-install-'));
    try {
      const tmpdir = path.join(work, 'tmp');
      fs.mkdirSync(tmpdir);
      const tgz = npmPack(`code-server@${CODE_SERVER_VERSION}`, work);
      seedRipgrep(tgz, work, tmpdir, log);
      // Without the outer npm's variables: under `npm test` they carry its
      // user agent (node/v20, which code-server's postinstall rejects) and
      // its node path (node-gyp would build for Node 20).
      const env = {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
        PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}`, // npm and node-gyp run on Node 22
        npm_config_nodedir: nodeHome, // native modules against Node 22's headers
        npm_config_unsafe_perm: 'true', // code-server's postinstall refuses root without it
        npm_config_yes: 'true',
        TMPDIR: tmpdir,
      };
      try {
        npmInstall(dir, tgz, { env, log });
      } catch (err) {
        throw new Error(`installing code-server ${CODE_SERVER_VERSION} failed (${err.message}; npm's output is above). Its native modules need: apt-get install -y ${aptPackages.join(' ')}`);
      }
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
    if (!fs.existsSync(entry)) throw new Error(`code-server installed, but ${entry} is missing`);
    fs.writeFileSync(done, `${new Date().toISOString()}\n`);
    log(`installed code-server ${CODE_SERVER_VERSION} into ${dir} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  return { node, entry, version: CODE_SERVER_VERSION, dir };
}

/**
 * Why the code-server tests cannot run on this machine, or false. Outside CI
 * a machine without Chromium or code-server's build prerequisites skips
 * (saying what to install); under CI both are required and the test fails.
 */
export function codeServerSkip(browserPath) {
  if (process.platform !== 'linux' || process.arch !== 'x64') return 'the code-server tests run on linux-x64';
  if (process.env.CI) return false;
  if (!browserPath) return 'no Chromium installed (CI fails instead)';
  const missing = missingPrerequisites();
  if (missing.length) return `code-server cannot be installed here: apt-get install -y ${missing.join(' ')} (CI fails instead)`;
  return false;
}

/**
 * Starts code-server with args in its own process group (its extension
 * hosts outlive the main process). Resolves to { url, pid, stop() }; stop
 * ends the whole group: SIGTERM, then SIGKILL for what is left after 10 s.
 */
export async function startCodeServer(cs, args, env) {
  const proc = spawn(cs.node, [cs.entry, ...args], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((r) => proc.once('exit', r));
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
      if (m) resolve(m[1]);
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`code-server exited (${code}): ${output}`)));
  });
  const pgid = proc.pid;
  const signal = (sig) => {
    try {
      process.kill(-pgid, sig);
    } catch {
      // gone
    }
  };
  const members = () => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && alive(Number(p))).filter((p) => {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid;
    } catch {
      return false;
    }
  });
  return {
    url,
    pid: proc.pid,
    async stop() {
      signal('SIGTERM'); // the whole group: server, extension hosts, MCP servers they started
      await exited;
      await waitUntil(() => members().length === 0, { timeout: 10_000, what: 'code-server\'s process group to exit' })
        .catch(() => signal('SIGKILL'));
    },
  };
}
