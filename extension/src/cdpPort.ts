// Port discovery for native CDP (Tier 2). With --remote-debugging-port,
// Chromium (and so VS Code's Electron) writes DevToolsActivePort into its
// user data folder: line 1 the port, line 2 the browser target's path
// (/devtools/browser/<guid>). The file outlives the process (nothing removes
// it on exit or crash), so a port is trusted only when /json/version answers
// on it and names the same browser path. The live port is published in the
// port file ($TMPDIR/vscode-cdp-port, the sidecar's contract) and as
// VSCODE_CDP_PORT.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileAtomic } from './files';

export const ACTIVE_PORT_FILE = 'DevToolsActivePort';

/** The sidecar reads this file (DESIGN.md, "VS Code tiers"): the port as decimal text. */
export function portFilePath(tmpdir: string = os.tmpdir()): string {
  return path.join(tmpdir, 'vscode-cdp-port');
}

export interface ActivePort {
  port: number;
  browserPath: string;
}

/** Parses DevToolsActivePort; a half-written or foreign file gives an Error saying what is wrong. */
export function parseActivePort(text: string): ActivePort | Error {
  const lines = text.split(/\r?\n/);
  const portText = lines[0]?.trim() ?? '';
  if (!/^\d+$/.test(portText)) return new Error(`line 1 is ${JSON.stringify(portText)}, not a port number`);
  const port = Number(portText);
  if (port < 1 || port > 65535) return new Error(`port ${port} is out of range`);
  const browserPath = lines[1]?.trim() ?? '';
  if (!browserPath.startsWith('/devtools/browser/')) {
    return new Error(`line 2 is ${JSON.stringify(browserPath)}, not /devtools/browser/<id> (half-written?)`);
  }
  return { port, browserPath };
}

export type Discovery =
  /** The port answers and is this product's browser. */
  | { kind: 'live'; file: string; port: number; browserPath: string; version?: string }
  /** No file: native CDP is off, or VS Code was not fully restarted since enabling it. */
  | { kind: 'missing'; file: string; reason: string }
  /** The file does not parse (half-written, truncated, not Chromium's). */
  | { kind: 'malformed'; file: string; reason: string }
  /** Nothing answers on the port: the file is left from an earlier run. */
  | { kind: 'stale'; file: string; port: number; reason: string }
  /** Something answers, but it is another browser (line 2 differs) or not CDP at all. */
  | { kind: 'mismatch'; file: string; port: number; reason: string };

interface VersionBody {
  Browser?: string;
  webSocketDebuggerUrl?: string;
}

/** GETs http://127.0.0.1:port/json/version. Rejects on connection errors, timeouts and non-JSON answers. */
export function fetchVersion(port: number, timeoutMs = 2000): Promise<VersionBody> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/json/version', agent: false, timeout: timeoutMs, headers: { Host: `127.0.0.1:${port}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { body += chunk; });
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`/json/version answered HTTP ${res.statusCode}`));
        try {
          resolve(JSON.parse(body));
        } catch {
          reject(new Error('/json/version did not answer JSON'));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

function isRefused(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET';
}

/** Reads DevToolsActivePort in userDataDir and checks that the port is that browser's, live. */
export async function discover(userDataDir: string, timeoutMs = 2000): Promise<Discovery> {
  const file = path.join(userDataDir, ACTIVE_PORT_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return { kind: 'missing', file, reason: `${file} does not exist: native CDP is off, or VS Code has not been fully restarted since it was enabled` };
    }
    return { kind: 'malformed', file, reason: `cannot read ${file}: ${(err as Error).message}` };
  }
  const parsed = parseActivePort(text);
  if (parsed instanceof Error) return { kind: 'malformed', file, reason: `${file}: ${parsed.message}` };
  const { port, browserPath } = parsed;
  let body: VersionBody;
  try {
    body = await fetchVersion(port, timeoutMs);
  } catch (err) {
    if (isRefused(err)) return { kind: 'stale', file, port, reason: `nothing listens on port ${port} from ${file}: the file is left from an earlier run` };
    return { kind: 'mismatch', file, port, reason: `port ${port} from ${file} is not a CDP endpoint: ${(err as Error).message}` };
  }
  let answered = '';
  try {
    answered = new URL(body.webSocketDebuggerUrl ?? '').pathname;
  } catch {
    // no or bad URL: a mismatch below
  }
  if (answered !== browserPath) {
    return { kind: 'mismatch', file, port, reason: `port ${port} answers as ${answered || 'something without a browser target'}, not ${browserPath} from ${file}: another program has the port` };
  }
  return { kind: 'live', file, port, browserPath, version: body.Browser };
}

/** Publishes the port for the sidecar (atomically: it watches the folder and reads on rename). */
export function writePortFile(port: number, file: string = portFilePath()): void {
  writeFileAtomic(file, `${port}\n`, 0o644);
}

/** The port in the port file, or undefined. */
export function readPortFile(file: string = portFilePath()): number | undefined {
  try {
    const n = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes the port file when it still holds port (so one VS Code never
 * removes another product's live port).
 */
export function removePortFile(port: number, file: string = portFilePath()): boolean {
  if (readPortFile(file) !== port) return false;
  fs.rmSync(file, { force: true });
  return true;
}
