// The messages between this extension and the native host
// (`browser-coordinator native-host`), which relays them to the
// coordinators. The Go side is sidecar/internal/nativemsg; its doc.go
// lists every message. Keep PROTOCOL equal to nativemsg.Protocol.

export const PROTOCOL = 2;

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
  /** An agent of this coordinator's folder opened the tab (it may close it). */
  agent?: boolean;
  /** This coordinator (process) opened the tab, or took it over: it closes it when it lets go. */
  own?: boolean;
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

/** One piece of a message over a hop's limit. client routes the pieces
 * (the host does not join them) and is the message's client once joined. */
export interface Chunk {
  type: 'chunk';
  client?: string;
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

  /** Whether msg crosses as one message. */
  fits(msg: object): boolean {
    const text = JSON.stringify(msg);
    // A UTF-16 unit is at most 3 bytes of UTF-8, and inside a chunk's string
    // a '"' or '\\' doubles: 3 bytes a unit bounds both.
    return text.length * 3 <= this.limit || utf8Length(text) <= this.limit;
  }

  split(msg: Message): Array<Message | Chunk> {
    if (this.fits(msg)) return [msg];
    const text = JSON.stringify(msg);
    const room = Math.floor((this.limit - 256) / 3);
    const id = ++this.nextId;
    const out: Chunk[] = [];
    const client = typeof msg.client === 'string' ? { client: msg.client } : {};
    for (let at = 0; at < text.length;) {
      // A cut between the two halves of a surrogate pair moves back one unit.
      let end = Math.min(at + room, text.length);
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
      out.push({ type: 'chunk', ...client, chunk: { id, last: end >= text.length }, data: text.slice(at, end) });
      at = end;
    }
    return out;
  }
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** Joins incoming chunks (the host splits messages over Chrome's 1 MB limit). */
export class Joiner {
  private pending = new Map<number, { client?: string; parts: string[] }>();

  /** Returns the whole message, or undefined while chunks are missing. The
   * whole message's client is the one its chunks carried (the host's
   * stamp), whatever the message itself says. */
  add(msg: Message): Message | undefined {
    if (msg.type !== 'chunk') return msg;
    const c = msg as unknown as Chunk;
    if (typeof c.data !== 'string' || typeof c.chunk?.id !== 'number') throw new Error('a chunk without data or id');
    const entry = this.pending.get(c.chunk.id) ?? { client: c.client, parts: [] };
    entry.parts.push(c.data);
    if (!c.chunk.last) {
      this.pending.set(c.chunk.id, entry);
      return undefined;
    }
    this.pending.delete(c.chunk.id);
    const whole = JSON.parse(entry.parts.join('')) as Message;
    if (!whole || typeof whole !== 'object' || typeof whole.type !== 'string') throw new Error('a chunked message that is not the protocol');
    if (entry.client !== undefined) whole.client = entry.client;
    return whole;
  }

  /** Drops the unfinished messages of a coordinator that left. */
  drop(client: string): void {
    for (const [id, e] of this.pending) if (e.client === client) this.pending.delete(id);
  }
}
