// Process checks for tests, by reading /proc (Linux, where the tests run).
import fs from 'node:fs';

/** Whether pid runs; a zombie (exited, not reaped) counts as dead. */
export function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Live processes whose command line contains needle. */
export function processesWith(needle) {
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline;
    try {
      cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (cmdline.includes(needle) && alive(Number(name))) found.push({ pid: Number(name), cmdline });
  }
  return found;
}

/**
 * Waits until check() is true. Node has no portable way to be told that an
 * unrelated process exited, so this polls, briefly.
 */
export async function waitUntil(check, { timeout = 10_000, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
