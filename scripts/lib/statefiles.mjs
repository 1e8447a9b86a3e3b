// Reading coordinator state files from scripts (tests, bench), with the
// same rules as the sidecar and the extension (docs/interfaces.md, "State
// files"): a state folder trusted only when it is this user's and no one
// else can write it; a state file read only when it is a regular file (not
// a symlink) of this user with mode 0600.
import fs from 'node:fs';
import path from 'node:path';

const STATE_DIR_ENV = 'BROWSER_COORDINATOR_STATE_DIR';

const uid = () => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/**
 * Throws when dir is not a folder of this user that only this user can
 * write (the message says how to fix it). No checks on Windows, where the
 * folder is in the user's profile and ACLs, not modes, protect it.
 */
export function checkStateDir(dir) {
  const me = uid();
  if (me === undefined) return;
  const st = fs.statSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
  if (st.uid !== me) throw new Error(`${dir} belongs to uid ${st.uid}, not to you (uid ${me}): use a folder of your own (${STATE_DIR_ENV}=DIR)`);
  if (st.mode & 0o022) throw new Error(`${dir} can be written by other users (mode ${(st.mode & 0o777).toString(8)}): run \`chmod 700 ${dir}\``);
}

/** The text of a state file, or an Error when it is not a regular file of this user with mode 0600. */
function readTrusted(file) {
  const me = uid();
  if (me === undefined) return fs.readFileSync(file, 'utf8');
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    if (err.code === 'ELOOP') return new Error(`${file} is a symlink`);
    throw err;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return new Error(`${file} is not a regular file`);
    if (st.uid !== me) return new Error(`${file} belongs to uid ${st.uid}`);
    if (st.mode & 0o077) return new Error(`${file} has mode ${(st.mode & 0o777).toString(8)}, not 600`);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The trusted state files in dir, parsed (each with its path), skipping
 * temp files of atomic writes, files that vanish mid-read and files that are
 * not trusted. A folder that is not trusted throws.
 */
export function readStates(dir) {
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  checkStateDir(dir);
  const states = [];
  for (const n of names.filter((n) => n.endsWith('.json') && !n.startsWith('.'))) {
    const file = path.join(dir, n);
    let text;
    try {
      text = readTrusted(file);
    } catch (err) {
      if (err.code === 'ENOENT') continue;
      throw err;
    }
    if (text instanceof Error) continue;
    states.push({ path: file, ...JSON.parse(text) });
  }
  return states;
}

/** The one state file of the coordinator with this pid. */
export function stateOf(dir, pid) {
  const s = readStates(dir).find((f) => f.pid === pid);
  if (!s) throw new Error(`no state file for pid ${pid} in ${dir}`);
  return s;
}
