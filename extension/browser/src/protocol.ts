// The messages between this extension and the native host
// (`browser-coordinator native-host`), which relays them to the
// coordinators. The Go side is sidecar/internal/nativemsg; its doc.go
// lists every message. Keep PROTOCOL equal to nativemsg.Protocol.

export const PROTOCOL = 1;

/** The native messaging host's name (nativehost.HostName). */
export const HOST_NAME = 'com.browser_coordinator.native_host';

/** Chrome's limit on one message from the extension to the host is 64 MiB
 * of JSON. Messages are cut below that. */
export const MAX_MESSAGE_BYTES = 60 * 1024 * 1024;

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

/** Splits an outgoing message into chunks when its JSON is over the limit
 * (in bytes of UTF-8). */
export class Splitter {
  private nextId = 0;
  constructor(private readonly limit = MAX_MESSAGE_BYTES) {}

  split(msg: Message): Array<Message | Chunk> {
    const text = JSON.stringify(msg);
    // A UTF-16 unit is at most 3 bytes of UTF-8, and inside a chunk's string
    // a '"' or '\' doubles: 3 bytes a unit bounds both.
    if (text.length * 3 <= this.limit || utf8Length(text) <= this.limit) return [msg];
    const room = Math.floor((this.limit - 256) / 3);
    const id = ++this.nextId;
    const out: Chunk[] = [];
    for (let at = 0; at < text.length; at += room) {
      out.push({ type: 'chunk', chunk: { id, last: at + room >= text.length }, data: text.slice(at, at + room) });
    }
    return out;
  }
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
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
