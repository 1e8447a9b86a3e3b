// Reading coordinator state files (the contract in ../shared/DESIGN.md).
import fs from 'node:fs';
import path from 'node:path';

/** The state files in dir, parsed, skipping temp files of atomic writes. */
export function readStates(dir) {
  let names = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
    .map((n) => ({ path: path.join(dir, n), ...JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) }));
}

/** The one state file of the coordinator with this pid. */
export function stateOf(dir, pid) {
  const s = readStates(dir).find((f) => f.pid === pid);
  if (!s) throw new Error(`no state file for pid ${pid} in ${dir}`);
  return s;
}
