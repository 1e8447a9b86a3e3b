// Where things are: the repository, the sidecar binary for this machine.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const archNames = { x64: 'x64', arm64: 'arm64' };
const osNames = { linux: 'linux', darwin: 'darwin', win32: 'win32' };

/** The VS Code target name of this machine, e.g. linux-x64 (also the bin/ folder name). */
export function hostTarget() {
  const os = osNames[process.platform];
  const arch = archNames[process.arch];
  if (!os || !arch) throw new Error(`unsupported platform ${process.platform}-${process.arch}`);
  return `${os}-${arch}`;
}

/** The sidecar binary built for target. */
export function binaryPath(target = hostTarget()) {
  const exe = target.startsWith('win32') ? 'browser-coordinator.exe' : 'browser-coordinator';
  return path.join(root, 'bin', target, exe);
}

/** A child MCP's command line, run with the repository's pinned version. */
export const childMCPs = {
  playwright: ['node', path.join(root, 'node_modules', '@playwright', 'mcp', 'cli.js')],
  'chrome-devtools': ['node', path.join(root, 'node_modules', 'chrome-devtools-mcp', 'build', 'src', 'bin', 'chrome-devtools-mcp.js')],
};
