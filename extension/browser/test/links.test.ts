// The ways to the coordinators: each one's channel (only once the other end
// proved it is the coordinator that offered it), the native host's port
// otherwise, and one write per coordinator per turn of the event loop. The
// real WebSocket and port are driven by the Go tests and the end-to-end
// tests in a real Chromium; here they are fakes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLOSE_HOST_GONE, Links, type SocketEvents } from '../src/links.js';
import type { Message } from '../src/protocol.js';

const secret = 'a'.repeat(64);
const offer = { url: `ws://127.0.0.1:4567/everyday/${secret}`, secret, proof: 'p'.repeat(64) };

class FakeSocket {
  sent: string[] = [];
  closed: Array<[number | undefined, string | undefined]> = [];
  constructor(readonly url: string, readonly events: SocketEvents) {}
  send(data: string) { this.sent.push(data); }
  close(code?: number, reason?: string) { this.closed.push([code, reason]); }
}

function setup() {
  const sockets: FakeSocket[] = [];
  const posted: unknown[] = [];
  const delivered: Message[] = [];
  const turns: Array<() => void> = [];
  const links = new Links({
    dial: (url, events) => { const s = new FakeSocket(url, events); sockets.push(s); return s; },
    post: (m) => { posted.push(m); return true; },
    deliver: (m) => delivered.push(m),
    later: (fn) => turns.push(fn),
    log: () => {},
  });
  const arrive = (client: string, channel = offer) => links.fromHost({ type: 'clientConnected', client, coordinator: { folder: '/a', pid: 1 }, channel });
  const nextTurn = () => { for (const fn of turns.splice(0)) fn(); };
  return { links, sockets, posted, delivered, arrive, nextTurn };
}

test('a coordinator is heard of only once its channel proved itself; then everything for it goes there, one write a turn', () => {
  const s = setup();
  s.arrive('c1');
  assert.equal(s.sockets.length, 1);
  assert.equal(s.sockets[0].url, offer.url);
  assert.equal(s.delivered.length, 0, 'nothing before the proof');
  s.sockets[0].events.message(JSON.stringify({ type: 'channel', proof: offer.proof }));
  assert.deepEqual(s.delivered.map((m) => m.type), ['clientConnected']);

  s.links.send({ type: 'cdpEvent', client: 'c1', method: 'A' });
  s.links.send({ type: 'result', client: 'c1', id: 3, result: { x: 'line\nbreak' } });
  assert.equal(s.sockets[0].sent.length, 0, 'nothing is written during the turn');
  s.nextTurn();
  assert.equal(s.sockets[0].sent.length, 1, 'one write for the turn');
  const lines = s.sockets[0].sent[0].split('\n').map((l) => JSON.parse(l) as Message);
  assert.deepEqual(lines.map((m) => m.type), ['cdpEvent', 'result']);
  assert.deepEqual(lines[1].result, { x: 'line\nbreak' }, 'a newline inside a string stays escaped');
  assert.deepEqual(s.posted, [], 'nothing through the host');

  // The coordinator's messages: a line each, its client whatever they claim.
  s.sockets[0].events.message('{"type":"attach","id":1,"tabId":5,"client":"c2"}\n{"type":"detach","id":2,"tabId":5}');
  assert.deepEqual(s.delivered.slice(1).map((m) => [m.type, m.client]), [['attach', 'c1'], ['detach', 'c1']]);
});

test('a channel that does not prove itself is left, and the coordinator is reached through the host', () => {
  for (const first of ['{"type":"channel","proof":"wrong"}', '{"type":"attach","id":1}', 'not json']) {
    const s = setup();
    s.arrive('c1');
    s.sockets[0].events.message(first);
    assert.ok(s.sockets[0].closed.length > 0, 'the socket is closed');
    assert.deepEqual(s.posted, [{ client: 'c1', type: 'channelFailed', reason: 'the other end did not prove it is the coordinator' }]);
    assert.deepEqual(s.delivered.map((m) => m.type), ['clientConnected']);
    s.links.send({ type: 'cdpEvent', client: 'c1' });
    s.links.send({ type: 'tabFocused', client: 'c1' });
    s.nextTurn();
    assert.deepEqual(s.sockets[0].sent, [], 'nothing went to the socket that failed');
    assert.deepEqual(JSON.parse(JSON.stringify(s.posted.slice(1))), [{ client: 'c1', type: 'batch', messages: [{ type: 'cdpEvent' }, { type: 'tabFocused' }] }], 'one native message for the turn');
  }
});

test('an offer of anything but a loopback channel is not dialled', () => {
  for (const url of ['ws://evil.example/everyday/' + secret, `wss://127.0.0.1:1/everyday/${secret}`, `ws://127.0.0.1:1/other/${secret}`, `ws://127.0.0.1:1/everyday/${'b'.repeat(64)}`]) {
    const s = setup();
    s.arrive('c1', { ...offer, url });
    assert.equal(s.sockets.length, 0, url);
    assert.equal((s.posted[0] as Message).type, 'channelFailed');
  }
});

test('a channel that closes before its proof: through the host; a coordinator gone meanwhile is never heard of', () => {
  const s = setup();
  s.arrive('c1');
  s.sockets[0].events.closed(1006, '');
  assert.equal((s.posted[0] as Message).type, 'channelFailed');
  assert.deepEqual(s.delivered.map((m) => m.type), ['clientConnected']);

  const t = setup();
  t.arrive('c1');
  t.links.fromHost({ type: 'clientDisconnected', client: 'c1' });
  t.sockets[0].events.message(JSON.stringify({ type: 'channel', proof: offer.proof }));
  assert.deepEqual(t.delivered, [], 'the Bridge never hears of a coordinator that left before its channel opened');
});

test('the end of a channel: a coordinator that vanished, or one whose host went away', () => {
  const s = setup();
  s.arrive('c1');
  s.arrive('c2', { ...offer, secret: 'c'.repeat(64), url: `ws://127.0.0.1:4568/everyday/${'c'.repeat(64)}` });
  for (const sock of s.sockets) sock.events.message(JSON.stringify({ type: 'channel', proof: offer.proof }));
  s.sockets[0].events.closed(1006, '');
  s.sockets[1].events.closed(CLOSE_HOST_GONE, 'the native host went away');
  assert.deepEqual(s.delivered.slice(2), [{ type: 'clientDisconnected', client: 'c1' }, { type: 'clientLeft', client: 'c2' }]);
  s.links.fromHost({ type: 'clientDisconnected', client: 'c1' });
  assert.equal(s.delivered.length, 4, 'the host\'s word after the channel\'s is not a second departure');
});

test('a message for every coordinator reaches each, by its own way', () => {
  const s = setup();
  s.arrive('c1');
  s.sockets[0].events.message(JSON.stringify({ type: 'channel', proof: offer.proof }));
  s.links.fromHost({ type: 'clientConnected', client: 'c2', coordinator: { folder: '/b', pid: 2 } });
  s.links.send({ type: 'disconnected', reason: 'stopping' });
  s.nextTurn();
  assert.deepEqual(s.posted, [{ type: 'disconnected', reason: 'stopping' }]);
  assert.deepEqual(JSON.parse(s.sockets[0].sent[0]), { type: 'disconnected', reason: 'stopping', client: 'c1' });
  s.links.hostGone();
  assert.deepEqual(s.sockets[0].closed, [[1000, 'the native host went away']]);
});
