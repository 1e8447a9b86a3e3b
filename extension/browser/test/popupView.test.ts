import { test } from 'node:test';
import assert from 'node:assert/strict';
import { popupLines } from '../src/popupView.js';
import type { PopupState } from '../src/bridge.js';

const base: PopupState = { connected: true, allTabs: false, clients: [] };

test('not connected: says how to install the host', () => {
  const v = popupLines({ ...base, connected: false });
  assert.equal(v.error, true);
  assert.match(v.status, /install --host chrome/);
});

test('a protocol mismatch is shown as it is', () => {
  assert.equal(popupLines({ ...base, connected: false, error: 'the browser extension speaks protocol 1 …' }).status, 'the browser extension speaks protocol 1 …');
});

test('share buttons per coordinator for the tab in front', () => {
  const v = popupLines({
    ...base,
    clients: [
      { id: 'c1', folder: '/home/u/projA', pid: 10, tabs: [{ id: 1, targetId: 'T', title: 'Shop', url: 'https://shop', agent: false }] },
      { id: 'c2', folder: '/home/u/projB', pid: 11, tabs: [] },
    ],
    activeTab: { id: 1, title: 'Shop', url: 'https://shop', sharedWith: ['/home/u/projA'] },
  });
  assert.match(v.status, /2 coordinators connected/);
  assert.deepEqual(v.clients[0].tabs, ['shared · Shop']);
  assert.deepEqual(v.activeTab?.buttons.map((b) => [b.label, b.share]), [['Stop sharing with projA', false], ['Share this tab with projB', true]]);
});

test('one coordinator: plain labels; an agent\'s tab needs no sharing, it can be kept', () => {
  const one = { ...base, clients: [{ id: 'c1', folder: '/p', pid: 1, tabs: [] }] };
  assert.deepEqual(popupLines({ ...one, activeTab: { id: 2, title: 't', url: 'u', sharedWith: [] } }).activeTab?.buttons.map((b) => b.label), ['Share this tab']);
  const agent = popupLines({ ...one, activeTab: { id: 2, title: 't', url: 'u', sharedWith: [], openedBy: '/p' } });
  assert.deepEqual(agent.activeTab?.buttons, [{ label: 'Keep this tab', folder: '/p', share: false, keep: true }]);
  assert.match(agent.activeTab?.note ?? '', /An agent opened this tab \(p\): it closes when that agent stops, unless you keep it/);
});

test('the browser\'s own pages cannot be shared', () => {
  const v = popupLines({ ...base, clients: [{ id: 'c1', folder: '/p', pid: 1, tabs: [] }], activeTab: { id: 3, title: 'Settings', url: 'chrome://settings', sharedWith: [] } });
  assert.deepEqual(v.activeTab?.buttons, []);
  assert.match(v.activeTab?.note ?? '', /cannot be shared/);
});
