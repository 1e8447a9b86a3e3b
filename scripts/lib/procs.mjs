// Process checks for tests: /proc on Linux, ps on macOS, the process table
// through PowerShell (CIM) on Windows.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** Whether pid runs; a zombie (exited, not reaped) counts as dead. */
export function alive(pid) {
  if (process.platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return state !== 'Z' && state !== 'X';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err.code !== 'EPERM') return false; // EPERM: it runs, as another user
  }
  if (process.platform !== 'darwin') return true;
  try {
    const state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return state !== '' && !state.startsWith('Z');
  } catch {
    return false; // exited since
  }
}

/** [pid, command line] of every process this user can see. */
function commandLines() {
  if (process.platform === 'linux') {
    const found = [];
    for (const name of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        found.push([Number(name), fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ')]);
      } catch {
        // gone meanwhile
      }
    }
    return found;
  }
  const out = process.platform === 'win32'
    ? execFileSync('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command',
      'Get-CimInstance Win32_Process | ForEach-Object { "$($_.ProcessId) $($_.CommandLine)" }'], { encoding: 'utf8', maxBuffer: 64 << 20 })
    : execFileSync('ps', ['-axww', '-o', 'pid=,command='], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return out.split(/\r?\n/).map((l) => /^\s*(\d+) (.*)$/.exec(l)).filter(Boolean).map((m) => [Number(m[1]), m[2]]);
}

/** Live processes whose command line contains needle. */
export function processesWith(needle) {
  return commandLines().filter(([pid, cmdline]) => cmdline.includes(needle) && alive(pid)).map(([pid, cmdline]) => ({ pid, cmdline }));
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
