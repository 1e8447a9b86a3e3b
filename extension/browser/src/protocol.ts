// The messages between this extension and the native host
// (`browser-coordinator native-host`), which relays them to the
// coordinators. The Go side is sidecar/internal/nativemsg; its doc.go
// lists every message. Keep PROTOCOL equal to nativemsg.Protocol.

export const PROTOCOL = 1;

/** The native messaging host's name (nativehost.HostName). */
export const HOST_NAME = 'com.browser_coordinator.native_host';

/** Chrome's limit on one message from the extension to the host is 64 MiB of
 * JSON; a JS string unit is at most 3 bytes of UTF-8, so 8 M units per
 * chunk stays well inside it. */
export const MAX_CHUNK_UNITS = 8 * 1024 * 1024;

export interface TabInfo {
  id: number;
  targetId: string;
  title: string;
  url: string;
  active?: boolean;
  /** This coordinator opened the tab (and may close it). */
  agent?: boolean;
  /** The page target of the tab whose page opened this one. */
  openerId?: string;
}

export interface BrowserInfo {
  name: string;
  version: string;
  userAgent: string;
}

export interface CoordinatorInfo {
  folder: string;
  pid: number;
  version?: string;
}

/** Any message: an object with a type. Fields depend on the type. */
export interface Message {
  type: string;
  client?: string;
  id?: number;
  [key: string]: unknown;
}

export interface Chunk {
  type: 'chunk';
  chunk: { id: number; last?: boolean };
  data: string;
}

/** Mismatch text, the same words as nativemsg.MismatchMessage. */
export function mismatchMessage(extension: number, sidecar: number): string {
  const update = extension > sidecar ? 'update browser-coordinator (the VS Code extension or the binary)' : 'update the browser extension';
  return `the browser extension speaks protocol ${extension} and browser-coordinator protocol ${sidecar}: they must come from the same release; ${update}`;
}

/** Splits an outgoing message into chunks when its JSON is over the limit. */
export class Splitter {
  private nextId = 0;
  constructor(private readonly limit = MAX_CHUNK_UNITS) {}

  split(msg: Message): Array<Message | Chunk> {
    const text = JSON.stringify(msg);
    if (text.length <= this.limit) return [msg];
    const id = ++this.nextId;
    const out: Chunk[] = [];
    for (let at = 0; at < text.length; at += this.limit) {
      const data = text.slice(at, at + this.limit);
      out.push({ type: 'chunk', chunk: { id, last: at + this.limit >= text.length }, data });
    }
    return out;
  }
}

/** Joins incoming chunks (the host splits messages over Chrome's 1 MB limit). */
export class Joiner {
  private pending = new Map<number, string[]>();

  /** Returns the whole message, or undefined while chunks are missing. */
  add(msg: Message): Message | undefined {
    if (msg.type !== 'chunk') return msg;
    const c = msg as unknown as Chunk;
    if (typeof c.data !== 'string' || typeof c.chunk?.id !== 'number') throw new Error('a chunk without data or id');
    const parts = this.pending.get(c.chunk.id) ?? [];
    parts.push(c.data);
    if (!c.chunk.last) {
      this.pending.set(c.chunk.id, parts);
      return undefined;
    }
    this.pending.delete(c.chunk.id);
    const whole = JSON.parse(parts.join('')) as Message;
    if (!whole || typeof whole !== 'object' || typeof whole.type !== 'string') throw new Error('a chunked message that is not the protocol');
    return whole;
  }
}
