import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Joiner, Splitter, mismatchMessage, type Message } from '../src/protocol.js';

test('a message over the limit crosses in chunks and joins back', () => {
  const msg: Message = { type: 'result', id: 3, client: 'c1', result: { data: 'é😀"\\'.repeat(5000) } };
  const parts = new Splitter(1000).split(msg);
  assert.ok(parts.length > 10);
  for (const p of parts) assert.ok(new TextEncoder().encode(JSON.stringify(p)).length <= 1000, 'each chunk within the limit in bytes');
  const j = new Joiner();
  const out = parts.map((p) => j.add(p as Message));
  assert.deepEqual(out.slice(0, -1).filter(Boolean), []);
  assert.deepEqual(out.at(-1), msg);
});

test('a small message passes untouched; a broken chunk is an error', () => {
  const msg: Message = { type: 'tabClosed', tabId: 1 };
  assert.deepEqual(new Splitter().split(msg), [msg]);
  assert.equal(new Joiner().add(msg), msg);
  assert.throws(() => new Joiner().add({ type: 'chunk' }), /without data/);
  assert.throws(() => new Joiner().add({ type: 'chunk', chunk: { id: 1, last: true }, data: '[1]' }), /not the protocol/);
});

test('the mismatch says which side to update', () => {
  assert.match(mismatchMessage(1, 2), /update the browser extension/);
  assert.match(mismatchMessage(2, 1), /update browser-coordinator/);
});
