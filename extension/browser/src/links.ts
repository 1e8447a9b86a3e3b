// The ways to the coordinators, away from chrome.*: each coordinator's own
// channel (a WebSocket on 127.0.0.1 it offered in its hello, see
// nativemsg.Channel), or the native host's port when the channel cannot be
// opened; and the batching of what goes out: every message for one
// coordinator made during one turn of the event loop leaves in one write.
// background.ts wires it to the port and to the Bridge; the tests drive it
// with fakes.
import { type Message, Splitter } from './protocol.js';

/** A coordinator's offer of its channel (nativemsg.Channel). */
export interface ChannelOffer {
  url: string;
  secret: string;
  proof: string;
}

/** The WebSocket as Links uses it. */
export interface Socket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** What a socket reports. */
export interface SocketEvents {
  open(): void;
  message(data: string): void;
  closed(code: number, reason: string): void;
}

/** Opens a WebSocket (background.ts: the browser's; the tests: a fake). */
export type Dial = (url: string, events: SocketEvents) => Socket;

/** The close code of a coordinator that let go because its native host
 * went away (it comes back through the next host): not a coordinator
 * that vanished. */
export const CLOSE_HOST_GONE = 4001;

/** Channels open only to a loopback port, with the path the coordinator writes. */
const CHANNEL_URL = /^ws:\/\/127\.0\.0\.1:\d{1,5}\/everyday\/[0-9a-f]{64}$/;

export interface LinksDeps {
  dial: Dial;
  /** Posts to the native host (undefined: no port now). */
  post(msg: unknown): boolean;
  /** Hands a message to the Bridge. */
  deliver(msg: Message): void;
  /** Runs fn in a later turn of the event loop. */
  later(fn: () => void): void;
  log(msg: string): void;
}

type Way =
  | { kind: 'opening'; socket: Socket; cancelled: boolean }
  | { kind: 'channel'; socket: Socket }
  | { kind: 'host' };

export class Links {
  private ways = new Map<string, Way>();
  /** client ('' for every coordinator) → messages waiting for the end of this turn */
  private outbox = new Map<string, Message[]>();
  private flushing = false;
  private readonly splitter = new Splitter();

  constructor(private readonly deps: LinksDeps) {}

  /** Takes a message from the native host. A coordinator's arrival waits
   * until its way is settled: the Bridge hears of it only then, so nothing
   * for it leaves before. */
  fromHost(msg: Message): void {
    const client = typeof msg.client === 'string' ? msg.client : undefined;
    if (msg.type === 'clientConnected' && client) {
      const offer = msg.channel as ChannelOffer | undefined;
      if (offer) {
        this.open(client, offer, msg);
        return;
      }
      this.ways.set(client, { kind: 'host' });
    } else if (msg.type === 'clientDisconnected' && client) {
      if (!this.forget(client)) return; // its channel's end said it already
    }
    this.deps.deliver(msg);
  }

  /** Queues a message for its coordinator (msg.client) or every one. */
  send(msg: Message): void {
    const key = typeof msg.client === 'string' ? msg.client : '';
    let box = this.outbox.get(key);
    if (!box) this.outbox.set(key, (box = []));
    box.push(msg);
    if (!this.flushing) {
      this.flushing = true;
      this.deps.later(() => this.flush());
    }
  }

  /** The native host went away: every coordinator with it (they come back
   * through the next host, with new channels). */
  hostGone(): void {
    for (const [client, way] of this.ways) {
      if (way.kind !== 'host') way.socket.close(1000, 'the native host went away');
      this.ways.delete(client);
    }
    this.outbox.clear();
  }

  /** How many coordinators have a channel of their own (for the popup). */
  get channels(): number {
    return [...this.ways.values()].filter((w) => w.kind === 'channel').length;
  }

  /** Writes what this turn queued: one write per coordinator. */
  flush(): void {
    this.flushing = false;
    const boxes = [...this.outbox];
    this.outbox.clear();
    for (const [client, msgs] of boxes) {
      const way = client ? this.ways.get(client) : undefined;
      if (way?.kind === 'channel') {
        way.socket.send(msgs.map((m) => JSON.stringify(m)).join('\n'));
      } else if (client === '') {
        for (const m of msgs) this.post(m); // to every coordinator: through the host
        for (const [c, w] of this.ways) {
          if (w.kind === 'channel') w.socket.send(msgs.map((m) => JSON.stringify({ ...m, client: c })).join('\n'));
        }
      } else if (way?.kind === 'host') {
        this.postBatch(client, msgs);
      }
      // else: the coordinator has gone, or its channel is still opening (it sends nothing before)
    }
  }

  private postBatch(client: string, msgs: Message[]): void {
    if (msgs.length === 1) {
      this.post(msgs[0]);
      return;
    }
    // One native message, unless the batch would pass the limit: then one each.
    const batch = { client, type: 'batch', messages: msgs.map((m) => ({ ...m, client: undefined })) };
    if (this.splitter.fits(batch)) this.post(batch);
    else for (const m of msgs) this.post(m);
  }

  private post(msg: Message): void {
    try {
      for (const part of this.splitter.split(msg)) this.deps.post(part);
    } catch (err) {
      this.deps.log(`cannot send ${msg.type}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private open(client: string, offer: ChannelOffer, arrival: Message): void {
    const fail = (why: string) => {
      const way = this.ways.get(client);
      if (way?.kind !== 'opening') return;
      way.socket.close();
      if (way.cancelled) {
        this.ways.delete(client);
        return;
      }
      this.deps.log(`the channel to coordinator ${client} did not open (${why}): through the native host instead`);
      this.ways.set(client, { kind: 'host' });
      this.post({ client, type: 'channelFailed', reason: why });
      this.deps.deliver(arrival);
    };
    if (typeof offer.url !== 'string' || !CHANNEL_URL.test(offer.url) || !offer.url.endsWith(`/${offer.secret}`) || typeof offer.proof !== 'string') {
      this.ways.set(client, { kind: 'opening', socket: { send() {}, close() {} }, cancelled: false });
      fail(`an offer that is not a loopback channel: ${String(offer.url).slice(0, 80)}`);
      return;
    }
    let proven = false;
    const socket = this.deps.dial(offer.url, {
      open: () => {},
      message: (data) => {
        if (!proven) {
          // Nothing is taken, and nothing sent, before the coordinator proves
          // it is the one that made the offer.
          let first: Message | undefined;
          try {
            first = JSON.parse(data) as Message;
          } catch {
            // not the proof
          }
          if (first?.type !== 'channel' || first.proof !== offer.proof) {
            fail('the other end did not prove it is the coordinator');
            return;
          }
          proven = true;
          const way = this.ways.get(client);
          if (way?.kind !== 'opening' || way.cancelled) {
            socket.close();
            this.ways.delete(client);
            return;
          }
          this.ways.set(client, { kind: 'channel', socket });
          this.deps.deliver(arrival);
          return;
        }
        this.receive(client, data);
      },
      closed: (code, reason) => {
        if (!proven) {
          fail(`closed before it opened (${code}${reason ? ` ${reason}` : ''})`);
          return;
        }
        const way = this.ways.get(client);
        if (way?.kind !== 'channel' || way.socket !== socket) return;
        this.ways.delete(client);
        // A coordinator whose host went away comes back through the next
        // one: not a coordinator that vanished, whose tabs wait for it.
        this.deps.deliver({ type: code === CLOSE_HOST_GONE ? 'clientLeft' : 'clientDisconnected', client });
      },
    });
    this.ways.set(client, { kind: 'opening', socket, cancelled: false });
  }

  /** A batch from a coordinator's channel: one message a line. */
  private receive(client: string, data: string): void {
    for (const line of data.split('\n')) {
      if (!line) continue;
      let msg: Message;
      try {
        msg = JSON.parse(line) as Message;
      } catch (err) {
        this.deps.log(`a message on coordinator ${client}'s channel that is not JSON: ${String(err)}`);
        continue;
      }
      if (!msg || typeof msg !== 'object') continue;
      msg.client = client; // the channel is this coordinator's: it speaks for no other
      this.deps.deliver(msg);
    }
  }

  /** Forgets a coordinator the host says has gone; false if it was known gone. */
  private forget(client: string): boolean {
    const way = this.ways.get(client);
    if (!way) return false;
    if (way.kind === 'opening') {
      way.cancelled = true;
      way.socket.close();
      this.ways.delete(client);
      return false; // the Bridge never heard of it
    }
    if (way.kind === 'channel') way.socket.close(1000, 'the coordinator left');
    this.ways.delete(client);
    return true;
  }
}
