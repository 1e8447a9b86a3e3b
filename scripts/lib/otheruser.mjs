// A second local user for the security tests: created when the tests run as
// root (CI does), and commands run as that user with setpriv. Without root a
// test that needs one skips and says why, loudly.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const canSwitchUsers = process.platform === 'linux' && process.getuid?.() === 0 &&
  spawnSync('sh', ['-c', 'command -v setpriv && command -v useradd'], { encoding: 'utf8' }).status === 0;

export const needsRoot = 'SKIPPED LOUDLY: this security test needs a second local user: run it as root (CI does) so that it can create one with useradd and act as it with setpriv';

/** The uid and gid of a system user called name, created if missing. */
export function ensureUser(name) {
  const id = () => spawnSync('id', ['-u', name], { encoding: 'utf8' });
  if (id().status !== 0) {
    const r = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name], { encoding: 'utf8' });
    if (r.status !== 0 && id().status !== 0) throw new Error(`useradd ${name}: ${r.stderr}`);
  }
  const uid = Number(id().stdout.trim());
  const gid = Number(spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout.trim());
  return { name, uid, gid };
}

/** A home folder owned by user, for a process that runs as them. */
export function homeFor(user, parent = os.tmpdir()) {
  const home = fs.mkdtempSync(path.join(parent, `home-${user.name}-`));
  fs.chownSync(home, user.uid, user.gid);
  fs.chmodSync(home, 0o700);
  return home;
}

function setprivArgs(user, cmd, args) {
  return ['--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups', '--', cmd, ...args];
}

/** Runs cmd as user and waits: { status, stdout, stderr }. */
export function runAs(user, cmd, args, { env = {}, cwd = '/', input } = {}) {
  const r = spawnSync('setpriv', setprivArgs(user, cmd, args), { cwd, env: { PATH: process.env.PATH, ...env }, input, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Starts cmd as user in the background; returns the ChildProcess. */
export function spawnAs(user, cmd, args, { env = {}, cwd = '/' } = {}) {
  return spawn('setpriv', setprivArgs(user, cmd, args), { cwd, env: { PATH: process.env.PATH, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs a Node script (the body of an async function) as user; resolves to its stdout, trimmed. */
export function nodeAs(user, script, { env = {} } = {}) {
  const r = runAs(user, process.execPath, ['--input-type=module', '-e', `(async () => { ${script} })().catch((e) => { console.error(e); process.exit(1); })`], { env });
  if (r.status !== 0) throw new Error(`node as ${user.name} failed (${r.status}): ${r.stderr}`);
  return r.stdout.trim();
}
