// Port discovery for native CDP (Tier 2). With --remote-debugging-port,
// Chromium (and so VS Code's Electron) writes DevToolsActivePort into its
// user data folder: line 1 the port, line 2 the browser target's path
// (/devtools/browser/<guid>). The file outlives the process (nothing removes
// it on exit or crash), so a port is trusted only when /json/version answers
// on it and names the same browser path. The live port is published in the
// port file (docs/interfaces.md, "The port file") and as VSCODE_CDP_PORT.
//
// Where the port file lives, and who may trust it: on macOS $TMPDIR is
// private to the user, so the file stays where it always was,
// $TMPDIR/vscode-cdp-port; elsewhere $TMPDIR is often the shared /tmp, so it
// goes into the per-user state folder (stateFile.ts), <state>/vscode-cdp-port.
// It is written with mode 0600 in a folder of this user that no one else can
// write, and read back only when it is still such a file.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from './files';
import { HttpError, request } from './http';
import { checkOwnedDir, currentPlatform, currentUid, ensureOwnedDir, Platform, readOwnedFile, stateDir } from './stateFile';

export const ACTIVE_PORT_FILE = 'DevToolsActivePort';
export const PORT_FILE = 'vscode-cdp-port';

/** Where the extension writes VS Code's CDP port for the sidecar (see above). */
export function portFilePath(p: Platform = currentPlatform(), stateDirOverride?: string): string {
  if (p.platform === 'darwin') return path.join(p.tmpdir, PORT_FILE);
  return path.join(stateDir(p, stateDirOverride), PORT_FILE);
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

/** GETs http://127.0.0.1:port/json/version. Rejects on connection errors, timeouts, non-200 and non-JSON answers. */
export async function fetchVersion(port: number, timeoutMs = 2000): Promise<VersionBody> {
  const res = await request({ port, path: '/json/version', timeoutMs, maxBytes: 64 << 10 });
  if (res.status !== 200) throw new HttpError(`/json/version answered HTTP ${res.status}`, 'STATUS');
  try {
    const body: unknown = JSON.parse(res.text);
    if (typeof body !== 'object' || body === null) throw new Error('not an object');
    return body;
  } catch {
    throw new HttpError('/json/version did not answer a JSON object', 'NOT_JSON');
  }
}

function isRefused(err: unknown): boolean {
  const code = (err as { code?: string }).code;
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
      return { kind: 'missing', file, reason: `${file} does not exist: Tier 2 is off, or VS Code has not been fully restarted since it was turned on` };
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

/**
 * Publishes the port for the sidecar: mode 0600, atomically (it watches the
 * folder and reads on rename), in a folder that is created (0700) when
 * missing and refused (UntrustedError, nothing written) when another user
 * owns it or can write to it.
 */
export function writePortFile(port: number, file: string = portFilePath(), uid: number | undefined = currentUid()): void {
  ensureOwnedDir(path.dirname(file), uid);
  writeFileAtomic(file, `${port}\n`, 0o600);
}

/** The port in the port file, or undefined (missing, not a port, or not a file of this user alone). */
export function readPortFile(file: string = portFilePath(), uid: number | undefined = currentUid()): number | undefined {
  try {
    checkOwnedDir(path.dirname(file), uid);
    const n = Number(readOwnedFile(file, uid).trim());
    return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes the port file when it still holds port (so one VS Code never
 * removes another product's live port).
 */
export function removePortFile(port: number, file: string = portFilePath(), uid: number | undefined = currentUid()): boolean {
  if (readPortFile(file, uid) !== port) return false;
  fs.rmSync(file, { force: true });
  return true;
}
