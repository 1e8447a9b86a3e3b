// A Chromium with remote debugging on a port of its own choosing
// (--remote-debugging-port=0), as VS Code's Electron runs with argv.json's
// "0": the tests' stand-in for VS Code and for a browser someone else started.
import { spawn } from 'node:child_process';
import { findBrowser } from './setup.mjs';

/**
 * Starts headless Chromium on profile, showing url; prefix runs it under
 * another command (ip netns exec NS). Resolves once DevTools listens, to
 * { pid, ws, port, path, kill() }. kill() takes the whole process group —
 * renderers outlive a killed browser process and keep writing to the
 * profile — and waits for the browser to exit.
 */
export async function startChromium({ profile, url = 'about:blank', prefix = [], args = [], env = {} }) {
  const argv = [...prefix, findBrowser(), '--headless', '--remote-debugging-port=0', `--user-data-dir=${profile}`,
    '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...args, url];
  if (process.getuid?.() === 0) argv.splice(prefix.length + 1, 0, '--no-sandbox');
  const proc = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: { ...process.env, ...env } });
  const exited = new Promise((r) => proc.once('exit', r));
  const kill = async () => {
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
  };
  const ws = await new Promise((resolve, reject) => {
    let err = '';
    proc.stderr.on('data', (d) => {
      err += d;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    proc.once('exit', () => reject(new Error(`chromium exited before DevTools listened: ${err}`)));
  }).catch(async (e) => { await kill(); throw e; });
  const u = new URL(ws);
  return { pid: proc.pid, ws, port: Number(u.port), path: u.pathname, kill };
}
