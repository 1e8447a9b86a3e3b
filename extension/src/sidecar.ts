// Finding the browser-coordinator binary through one ordered chain, each step
// logged with its reason (rust-analyzer's bootstrap.ts, ruff-vscode's
// findRuffBinaryPath):
//   1. the setting browserCoordinator.sidecarPath
//   2. the binary bundled in this platform's VSIX: bin/<target>/browser-coordinator[.exe]
//   3. browser-coordinator on PATH
// A candidate is trusted only after `--version` runs and names the program.
// VSIX files are zip archives, and some unpackers drop the run bit, so a
// bundled binary without it gets it back (chmod 755) before the check.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Log, errorMessage } from './log';

export const BINARY = 'browser-coordinator';

/** The VS Code platform target (also the bin/ folder name), or undefined when no VSIX exists for it. */
export function vsixTarget(platform: string = process.platform, arch: string = process.arch): string | undefined {
  const os = ({ linux: 'linux', darwin: 'darwin', win32: 'win32' } as Record<string, string>)[platform];
  const cpu = ({ x64: 'x64', arm64: 'arm64' } as Record<string, string>)[arch];
  return os && cpu ? `${os}-${cpu}` : undefined;
}

export function exeName(platform: string = process.platform): string {
  return platform === 'win32' ? `${BINARY}.exe` : BINARY;
}

export type Source = 'setting' | 'bundled' | 'PATH';

export interface Sidecar {
  path: string;
  source: Source;
  /** The first line of `--version`, e.g. "browser-coordinator 0.1.0 (commit …, linux/amd64, go1.26)". */
  version: string;
}

export class SidecarNotFound extends Error {
  constructor(message: string, readonly steps: string[]) {
    super(message);
    this.name = 'SidecarNotFound';
  }
}

/** Runs `file --version`; resolves to its first line when it names browser-coordinator. */
export function checkVersion(file: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, ['--version'], { timeout: timeoutMs, windowsHide: true }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`\`${file} --version\` failed: ${(stderr || err.message).trim()}`));
      const line = stdout.trim().split(/\r?\n/)[0] ?? '';
      if (!line.startsWith(`${BINARY} `)) return reject(new Error(`\`${file} --version\` printed ${JSON.stringify(line)}, not ${BINARY} <version>`));
      resolve(line);
    });
  });
}

export interface ResolveOptions {
  /** The value of browserCoordinator.sidecarPath ("" when unset). */
  setting?: string;
  /** The extension's folder (context.extensionPath). */
  extensionDir: string;
  platform?: NodeJS.Platform;
  arch?: string;
  /** PATH to search (default process.env.PATH). */
  pathEnv?: string;
  /** PATHEXT on Windows. */
  pathExt?: string;
  home?: string;
  log: Log;
}

function expandHome(p: string, home: string): string {
  return p === '~' || p.startsWith('~/') || p.startsWith('~\\') ? path.join(home, p.slice(1)) : p;
}

/** Candidates named browser-coordinator on PATH, in PATH order. */
export function searchPath(pathEnv: string, platform: NodeJS.Platform, pathExt = '.EXE;.CMD;.BAT;.COM'): string[] {
  const names = platform === 'win32' ? pathExt.split(';').filter(Boolean).map((e) => BINARY + e.toLowerCase()) : [BINARY];
  const found: string[] = [];
  for (const dir of pathEnv.split(path.delimiter).filter(Boolean)) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      try {
        if (fs.statSync(candidate).isFile()) found.push(candidate);
      } catch {
        // not here
      }
    }
  }
  return found;
}

/** Gives a bundled binary its run bit back when unpacking lost it. Returns whether it changed anything. */
export function restoreRunBit(file: string, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'win32') return false;
  const mode = fs.statSync(file).mode & 0o777;
  if ((mode & 0o111) === 0o111) return false;
  fs.chmodSync(file, mode | 0o755);
  return true;
}

/** Walks the chain; resolves to the first candidate whose --version checks out. */
export async function resolveSidecar(o: ResolveOptions): Promise<Sidecar> {
  const platform = o.platform ?? process.platform;
  const home = o.home ?? os.homedir();
  const steps: string[] = [];
  const step = (message: string, level: 'info' | 'warn' = 'info') => {
    steps.push(message);
    o.log[level](`sidecar: ${message}`);
  };
  const tryCandidate = async (file: string, source: Source): Promise<Sidecar | undefined> => {
    try {
      const version = await checkVersion(file);
      step(`${source}: using ${file} (${version})`);
      return { path: file, source, version };
    } catch (err) {
      step(`${source}: ${file} does not run: ${errorMessage(err)}`, 'warn');
      return undefined;
    }
  };

  // 1. The setting.
  const setting = o.setting?.trim();
  if (setting) {
    const file = path.resolve(expandHome(setting, home));
    if (!fs.existsSync(file)) {
      step(`setting: browserCoordinator.sidecarPath is ${file}, which does not exist; trying the next step`, 'warn');
    } else {
      const found = await tryCandidate(file, 'setting');
      if (found) return found;
    }
  } else {
    step('setting: browserCoordinator.sidecarPath is not set');
  }

  // 2. Bundled in this platform's VSIX.
  const target = vsixTarget(platform, o.arch ?? process.arch);
  if (!target) {
    step(`bundled: no VSIX is built for ${platform}-${o.arch ?? process.arch}`);
  } else {
    const file = path.join(o.extensionDir, 'bin', target, exeName(platform));
    if (!fs.existsSync(file)) {
      step(`bundled: ${file} is not in this extension (a VSIX for another platform, or a development build without \`npm run build\`)`);
    } else {
      try {
        if (restoreRunBit(file, platform)) step(`bundled: restored the run bit of ${file} (chmod 755; the package lost it)`);
      } catch (err) {
        step(`bundled: cannot make ${file} executable: ${errorMessage(err)}`, 'warn');
      }
      const found = await tryCandidate(file, 'bundled');
      if (found) return found;
    }
  }

  // 3. PATH.
  const onPath = searchPath(o.pathEnv ?? process.env.PATH ?? '', platform, o.pathExt ?? process.env.PATHEXT);
  if (onPath.length === 0) step(`PATH: no ${exeName(platform)} on PATH`);
  for (const file of onPath) {
    const found = await tryCandidate(file, 'PATH');
    if (found) return found;
  }

  const where = target ?? `${platform}-${o.arch ?? process.arch}`;
  throw new SidecarNotFound(
    `No working ${BINARY} binary for ${where}. Install the extension's VSIX for your platform, ` +
      `or build the sidecar (\`npm run build\` in the source tree) and set browserCoordinator.sidecarPath to it, ` +
      `or put ${BINARY} on PATH.`,
    steps,
  );
}
