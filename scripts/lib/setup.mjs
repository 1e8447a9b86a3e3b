// What `npm test` and `npm run demo` need on a fresh machine, installed when
// missing: npm packages, Go modules (go build fetches them), a browser.
import { spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './paths.mjs';

/** Runs npm ci (or npm install without a lock file) when node_modules is missing or older than the lock. */
export function ensureNpmDeps({ log = console.log } = {}) {
  const lock = path.join(root, 'package-lock.json');
  const installed = path.join(root, 'node_modules', '.package-lock.json');
  const stale = !fs.existsSync(installed) ||
    (fs.existsSync(lock) && fs.statSync(lock).mtimeMs > fs.statSync(installed).mtimeMs);
  if (!stale) return;
  const cmd = fs.existsSync(lock) ? 'ci' : 'install';
  log(`installing npm packages (npm ${cmd}) ...`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, [cmd, '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' }); // Node runs a .cmd only through a shell
}

const browserNames = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'brave-browser'];

/** The first Chromium-family browser on PATH, or undefined. */
export function findBrowser() {
  for (const name of browserNames) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return undefined;
}

export const installAdvice =
  'no browser found: install Chrome, Edge, Chromium or Brave.\n' +
  '  Debian/Ubuntu: sudo apt-get update && sudo apt-get install -y chromium\n' +
  '  macOS:         brew install --cask google-chrome\n' +
  '  Windows:       winget install Google.Chrome';

/** Whether this process may install Debian packages itself: root on a Debian-like system. */
export function canInstallDebianPackages() {
  return process.platform === 'linux' && process.getuid?.() === 0 && fs.existsSync('/usr/bin/apt-get');
}

/**
 * Installs the Debian packages in names (apt-get, as root). Elsewhere it
 * throws an Error whose message is the command to run. why says what needs
 * them (for the log).
 */
export function ensureAptPackages(names, { log = console.log, why = '' } = {}) {
  if (names.length === 0) return;
  const command = `sudo apt-get update && sudo apt-get install -y ${names.join(' ')}`;
  if (!canInstallDebianPackages()) {
    throw new Error(`${why ? `${why}: ` : ''}missing ${names.join(', ')}; run \`${command}\` (or your system's equivalent) and try again`);
  }
  log(`${why ? `${why}: ` : ''}installing ${names.join(' ')} (apt-get install -y) ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const r = update.status === 0 && spawnSync('apt-get', ['install', '-y', '-qq', ...names], { stdio: 'inherit', env });
  if (!r || r.status !== 0) throw new Error(`apt-get install -y ${names.join(' ')} failed (its output is above); run \`${command}\` and try again`);
}

/**
 * The first browser the built sidecar detects (its own rules: the install
 * locations of Chrome, Edge, Chromium and Brave on macOS and Windows, and
 * PATH), or undefined. Asked over MCP (coordinator_list_browsers).
 */
export async function detectedBrowser() {
  const { startCoordinator, call } = await import('./mcp.mjs'); // the MCP SDK: only once npm packages are installed
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-detect-'));
  try {
    const coord = await startCoordinator({ stateDir, args: ['--no-vscode'] });
    try {
      const { structuredContent } = await call(coord.client, 'coordinator_list_browsers');
      return structuredContent?.browsers?.[0]?.path;
    } finally {
      await coord.close();
    }
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

/** On Debian as root, installs Debian's chromium; elsewhere says how. Returns the browser's path or undefined. */
export function ensureBrowser({ install = false, log = console.log } = {}) {
  const found = findBrowser();
  if (found || !install || !canInstallDebianPackages()) return found;
  try {
    ensureAptPackages(['chromium'], { log, why: 'no browser found' });
  } catch (err) {
    log(err.message);
    return undefined;
  }
  return findBrowser();
}
