// MCP Inspector's CLI (@modelcontextprotocol/inspector) for the schema
// portability check (`--cli CMD --method tools/list --strict`), installed
// once from npm into the cache outside the repository that the code-server
// test uses (~/.cache/browser-coordinator, or $BROWSER_COORDINATOR_CACHE).
//
// Pinned: Inspector 2.12.0 wants Node 22.19 or newer. When this Node is
// older, the Node from the npm package node-linux-<arch> that the code-server
// test installs (codeserver.mjs ensureNode) runs it.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheRoot, ensureNode, CODE_SERVERS } from './codeserver.mjs';

export const INSPECTOR_VERSION = '2.12.0';

const atLeast = (v, [major, minor]) => {
  const [a, b] = v.replace(/^v/, '').split('.').map(Number);
  return a > major || (a === major && b >= minor);
};

/** A Node that can run Inspector 2.12: this one, or the cached Node 22. */
function inspectorNode(log) {
  if (atLeast(process.version, [22, 19])) return process.execPath;
  const { node } = ensureNode(CODE_SERVERS.oldest.node, { log }); // the Node 22 the oldest code-server runs on
  const v = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  if (!atLeast(v, [22, 19])) throw new Error(`${node} is ${v}; MCP Inspector ${INSPECTOR_VERSION} needs Node 22.19 or newer`);
  return node;
}

/** Installs the Inspector when missing; returns { node, cli } to run it with. */
export function ensureInspector({ log = console.log } = {}) {
  const node = inspectorNode(log);
  const dir = path.join(cacheRoot(), `inspector-${INSPECTOR_VERSION}`);
  const cli = path.join(dir, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
  if (!fs.existsSync(cli)) {
    // Into a folder of its own, renamed into place when complete: a run that
    // stops half-way leaves nothing that looks installed.
    const tmp = `${dir}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    fs.writeFileSync(path.join(tmp, 'package.json'), '{"private": true}\n');
    log(`npm install @modelcontextprotocol/inspector@${INSPECTOR_VERSION} (in ${dir}) ...`);
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`], {
      cwd: tmp, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32',
    });
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
  }
  return { node, cli };
}

/**
 * Runs `inspector --cli <command> --method tools/list --strict` with env for
 * the server (-e KEY=VALUE); resolves to { code, stdout, stderr }. The
 * Inspector's catalog goes to catalog, not to ~/.mcp-inspector.
 */
export function strictToolsList({ node, cli }, command, { env = {}, catalog, cwd } = {}) {
  const args = [cli, '--cli', ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), '--method', 'tools/list', '--strict', '--', ...command];
  return new Promise((resolve, reject) => {
    const p = spawn(node, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MCP_CATALOG_PATH: catalog } });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.once('error', reject);
    p.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
