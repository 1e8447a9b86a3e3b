// code-server (VS Code in a browser, from the npm registry) for the real
// VS Code tests, installed once per version into a cache outside the
// repository (~/.cache/browser-coordinator, or $BROWSER_COORDINATOR_CACHE)
// and reused.
//
// Two versions, both pinned so a run is reproducible:
//   oldest  4.103.2 = VS Code 1.103.2. The extension needs VS Code 1.101 (the
//           MCP API, package.json engines); npm has no code-server built on
//           VS Code 1.101 or 1.102 (its versions go 4.100.3 → 4.103.2), so
//           this is the oldest code-server the extension installs into.
//   newest  4.139.1 = the newest code-server on npm when this was written
//           (`npm view code-server version` says whether a newer one came).
// Each needs its own Node (22 and 24), which comes from the npm package
// node-linux-<arch> (the machine's Node may be 20). The install builds
// native modules (apt: libkrb5-dev libxkbfile-dev libsecret-1-dev pkg-config
// build-essential) against that Node's headers, and @vscode/ripgrep's
// postinstall downloads rg from GitHub, which a closed network cannot reach:
// its download cache is seeded with Debian's rg (apt: ripgrep) first, under
// the file name the postinstall looks for.
//
// Several checkouts on one machine share the cache: an install runs under a
// lock in a temporary folder and is renamed into place when complete, so a
// half-installed code-server is never seen.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alive, waitUntil } from './procs.mjs';
import { ensureAptPackages } from './setup.mjs';

/** The code-server versions the tests run on, by name. */
export const CODE_SERVERS = {
  oldest: { name: 'oldest', version: '4.103.2', node: '22.23.3' },
  newest: { name: 'newest', version: '4.139.1', node: '24.21.0' },
};

/** The code-server the tests use: $BC_CODE_SERVER (oldest or newest), default oldest. */
export function codeServerSpec(env = process.env) {
  const name = env.BC_CODE_SERVER || 'oldest';
  const spec = CODE_SERVERS[name];
  if (!spec) throw new Error(`BC_CODE_SERVER=${name} is not one of ${Object.keys(CODE_SERVERS).join(', ')}`);
  return spec;
}

/** Debian packages installing code-server needs. */
export const aptPackages = ['libkrb5-dev', 'libxkbfile-dev', 'libsecret-1-dev', 'pkg-config', 'build-essential', 'ripgrep'];

export function cacheRoot() {
  return process.env.BROWSER_COORDINATOR_CACHE || path.join(os.homedir(), '.cache', 'browser-coordinator');
}

function installedDir(spec) {
  return path.join(cacheRoot(), `code-server-${spec.version}`);
}

/** Whether this code-server is installed (then nothing else is needed). */
export function isInstalled(spec) {
  return fs.existsSync(path.join(installedDir(spec), '.installed'));
}

/** What installing code-server needs that this machine lacks (empty when ready or already installed). */
export function missingPrerequisites(spec = codeServerSpec()) {
  if (isInstalled(spec)) return [];
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

/**
 * Makes sure code-server can be installed: the missing Debian packages are
 * installed when running as root on Debian; otherwise throws an Error whose
 * message is the command to run.
 */
export function ensurePrerequisites(spec = codeServerSpec(), { log = console.log } = {}) {
  if (process.platform !== 'linux') throw new Error('the code-server tests run on Linux only');
  const missing = missingPrerequisites(spec);
  if (missing.length === 0) return;
  ensureAptPackages(missing, { log, why: `installing code-server ${spec.version} builds native modules` });
  const still = missingPrerequisites(spec);
  if (still.length) throw new Error(`code-server ${spec.version} cannot be installed: run \`sudo apt-get install -y ${still.join(' ')}\``);
}

const npmCmd = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function npmInstall(dir, spec, { env = process.env, log }) {
  fs.mkdirSync(dir, { recursive: true });
  if (!fs.existsSync(path.join(dir, 'package.json'))) fs.writeFileSync(path.join(dir, 'package.json'), '{"private": true}\n');
  log(`npm install ${spec} (in ${dir}) ...`);
  execFileSync(npmCmd, ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', spec], { cwd: dir, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms) {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * Runs fn holding the lock lockDir (mkdir is atomic). A lock whose owner
 * process is gone is taken over; otherwise this waits up to timeoutMs.
 */
function withLock(lockDir, fn, { timeoutMs = 40 * 60_000, log }) {
  fs.mkdirSync(path.dirname(lockDir), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let said = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let owner = 0;
      try {
        owner = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
      } catch {
        // being created or removed right now
      }
      if (owner && !alive(owner)) {
        fs.rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${lockDir} is held by pid ${owner || '?'} for too long; remove it if no install runs`, { cause: err });
      if (!said) log(`waiting for another install (${lockDir}, pid ${owner || '?'}) ...`);
      said = true;
      sleepSync(1000);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

/** Node from the npm package node-linux-<arch>; returns its folder (bin/node, include/node). */
export function ensureNode(version, { log = console.log } = {}) {
  if (process.platform !== 'linux') throw new Error('the code-server tests run on Linux only');
  const pkg = `node-linux-${process.arch}`;
  const dir = path.join(cacheRoot(), `node-${version}`);
  const home = path.join(dir, 'node_modules', pkg);
  const node = path.join(home, 'bin', 'node');
  const ok = () => {
    try {
      return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim() === `v${version}`;
    } catch {
      return false;
    }
  };
  if (!ok()) {
    withLock(`${dir}.lock`, () => {
      if (ok()) return;
      const tmp = `${dir}.tmp-${process.pid}`;
      fs.rmSync(tmp, { recursive: true, force: true });
      npmInstall(tmp, `${pkg}@${version}`, { log });
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(tmp, dir);
    }, { log });
  }
  if (!ok()) throw new Error(`${node} does not run as Node v${version}`);
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
  if (!rg) throw new Error(`ripgrep is missing: run \`sudo apt-get install -y ${aptPackages.join(' ')}\``);
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

/** The VS Code version inside an installed code-server. */
function vscodeVersion(pkg) {
  for (const f of [path.join(pkg, 'lib', 'vscode', 'package.json'), path.join(pkg, 'lib', 'vscode', 'product.json')]) {
    try {
      const v = JSON.parse(fs.readFileSync(f, 'utf8')).version;
      if (v) return v;
    } catch {
      // try the next
    }
  }
  return 'unknown';
}

/**
 * code-server of spec (default: $BC_CODE_SERVER), installed when missing.
 * Returns { node, entry, version, vscode, dir }: run it as `node entry …`.
 */
export function ensureCodeServer({ spec = codeServerSpec(), log = console.log } = {}) {
  const { home: nodeHome, node } = ensureNode(spec.node, { log });
  const dir = installedDir(spec);
  const entryOf = (d) => path.join(d, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!isInstalled(spec)) {
    ensurePrerequisites(spec, { log });
    withLock(`${dir}.lock`, () => {
      if (isInstalled(spec)) return;
      const started = Date.now();
      const tmp = `${dir}.tmp-${process.pid}`;
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.mkdirSync(tmp, { recursive: true });
      const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-code-server-install-'));
      try {
        const tmpdir = path.join(work, 'tmp');
        fs.mkdirSync(tmpdir);
        const tgz = npmPack(`code-server@${spec.version}`, work);
        seedRipgrep(tgz, work, tmpdir, log);
        // Without the outer npm's variables: under `npm test` they carry its
        // user agent (the outer Node's version, which code-server's
        // postinstall rejects) and its node path (node-gyp would build for it).
        const env = {
          ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
          PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}`, // npm and node-gyp run on this Node
          npm_config_nodedir: nodeHome, // native modules against this Node's headers
          npm_config_unsafe_perm: 'true', // code-server's postinstall refuses root without it
          npm_config_yes: 'true',
          TMPDIR: tmpdir,
        };
        try {
          npmInstall(tmp, tgz, { env, log });
        } catch (err) {
          throw new Error(`installing code-server ${spec.version} failed (${err.message}; npm's output is above). Its native modules need: sudo apt-get install -y ${aptPackages.join(' ')}`, { cause: err });
        }
        if (!fs.existsSync(entryOf(tmp))) throw new Error(`code-server ${spec.version} installed, but ${entryOf(tmp)} is missing`);
        fs.writeFileSync(path.join(tmp, '.installed'), `${new Date().toISOString()}\n`);
        fs.rmSync(dir, { recursive: true, force: true }); // an unfinished install of an older checkout
        fs.renameSync(tmp, dir);
      } catch (err) {
        fs.rmSync(tmp, { recursive: true, force: true });
        throw err;
      } finally {
        fs.rmSync(work, { recursive: true, force: true });
      }
      log(`installed code-server ${spec.version} into ${dir} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }, { log });
  }
  const pkg = path.join(dir, 'node_modules', 'code-server');
  return { node, entry: entryOf(dir), version: spec.version, vscode: vscodeVersion(pkg), dir, name: spec.name };
}

/**
 * Why the code-server tests cannot run on this machine, or false. They run
 * on linux-x64 only (code-server's native modules are built here, and the
 * VSIX under test is the linux-x64 one); everything else they need is
 * installed by the tests or makes them fail with the command to run.
 */
export function codeServerSkip() {
  if (process.platform !== 'linux' || process.arch !== 'x64') return `the code-server tests run on linux-x64, not ${process.platform}-${process.arch}`;
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
    output: () => output,
    async stop() {
      signal('SIGTERM'); // the whole group: server, extension hosts, MCP servers they started
      await exited;
      await waitUntil(() => members().length === 0, { timeout: 10_000, what: 'code-server\'s process group to exit' })
        .catch(() => signal('SIGKILL'));
    },
  };
}
