'use strict';
// Finds the browser-coordinator binary for this machine. It comes from one
// of the per-platform packages in optionalDependencies, of which npm
// installs only the one whose `os` and `cpu` match: nothing is downloaded
// at install time.
//
// In the package this file is lib/platform.js, next to bin/browser-coordinator
// (scripts/npm/launcher.js); scripts/lib/npmpkg.mjs puts them there.
//
// The launcher (bin/browser-coordinator) is JavaScript only until its first
// run: then, where it safely can, it replaces itself with a hard link to the
// binary (esbuild's trick, done at the first run instead of in a postinstall
// script, which current npm versions no longer run without the user's
// approval). From then on the installed command is the native binary itself
// and Node plays no part in starting it.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const { version } = require('../package.json');

// process.platform-process.arch → the package holding that binary
// (scripts/pack.mjs checks this table against the targets it builds).
const packages = {
  'linux-x64': '@browser-coordinator/linux-x64',
  'linux-arm64': '@browser-coordinator/linux-arm64',
  'darwin-x64': '@browser-coordinator/darwin-x64',
  'darwin-arm64': '@browser-coordinator/darwin-arm64',
  'win32-x64': '@browser-coordinator/win32-x64',
  'win32-arm64': '@browser-coordinator/win32-arm64',
};

const goInstall = 'go install github.com/browser-coordinator/browser-coordinator/sidecar/cmd/browser-coordinator@latest';

/** The launcher: this package's bin file. */
const launcher = path.join(__dirname, '..', 'bin', 'browser-coordinator');

function binaryName(platform = process.platform) {
  return platform === 'win32' ? 'browser-coordinator.exe' : 'browser-coordinator';
}

/** The path of the binary for this machine; throws an error that says what to do. */
function binaryPath() {
  const key = `${process.platform}-${process.arch}`;
  const pkg = packages[key];
  if (!pkg) {
    throw new Error(`browser-coordinator ${version} has no binary for ${key} (there are: ${Object.keys(packages).join(', ')}); ` +
      `build it from source with Go 1.26+: ${goInstall}`);
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(`the package ${pkg}, which holds browser-coordinator's binary for ${key}, is not installed. ` +
      'npm leaves it out when optional dependencies are omitted (--omit=optional, --no-optional) or when the lock file ' +
      `was written on another platform: reinstall browser-coordinator with its optional dependencies, or add ${pkg}@${version}`);
  }
  return path.join(dir, 'bin', binaryName());
}

/**
 * Whether replacing the launcher with the binary is safe: never on Windows
 * (npm's .cmd shims run a bin file with node), never under Yarn PnP (the
 * packages live in zip files), and only when the launcher was started
 * through a symbolic link (npm's node_modules/.bin and global bin links), so
 * the kernel runs whatever the file is: a launcher started as `node FILE`
 * (pnpm's and Yarn 2's shell shims, or a user) must stay JavaScript.
 */
function canReplaceLauncher(argv1 = process.argv[1]) {
  if (process.platform === 'win32' || process.versions.pnp) return false;
  try {
    return Boolean(argv1) && fs.lstatSync(argv1).isSymbolicLink() && fs.realpathSync(argv1) === fs.realpathSync(launcher);
  } catch {
    return false;
  }
}

/**
 * Replaces the launcher with a hard link to (or else a copy of) binary,
 * after checking that binary runs and is this package's version. Returns
 * why not when it did not; never throws.
 */
function replaceLauncher(binary) {
  let tmp;
  try {
    const r = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000, windowsHide: true });
    const first = (r.stdout || '').split('\n')[0];
    if (r.status !== 0 || !first.startsWith(`browser-coordinator ${version} `)) {
      return `${binary} --version answered ${JSON.stringify(first)}, not browser-coordinator ${version}`;
    }
    tmp = `${launcher}.${process.pid}.tmp`;
    try {
      fs.linkSync(binary, tmp);
    } catch {
      fs.copyFileSync(binary, tmp);
      fs.chmodSync(tmp, 0o755);
    }
    fs.renameSync(tmp, launcher); // atomic: a concurrent start runs the old file or the new one
    return '';
  } catch (err) {
    if (tmp) fs.rmSync(tmp, { force: true });
    return err.message;
  }
}

module.exports = { packages, version, binaryName, binaryPath, canReplaceLauncher, replaceLauncher, launcher };
