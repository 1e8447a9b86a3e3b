// The bridge's decisions, with the browser behind a fake adapter (the real
// chrome.* runs only inside a browser; the Go tests drive the built
// extension in a real Chromium).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Bridge, ORPHAN_GRACE_MS, isRestrictedUrl, type Browser, type Persisted, type RawTab, type Timers } from '../src/bridge.js';
import type { Message } from '../src/protocol.js';
import { PROTOCOL } from '../src/protocol.js';

class FakeBrowser implements Browser {
  tabs = new Map<number, RawTab>();
  next = 100;
  attached = new Set<number>();
  calls: string[] = [];
  failNext: Error | undefined;
  onCreate: ((t: RawTab) => void) | undefined;

  add(url: string, title = ''): number {
    const id = this.next++;
    this.tabs.set(id, { id, url, title });
    return id;
  }
  async queryTabs() { return [...this.tabs.values()]; }
  async getTab(id: number) { return this.tabs.get(id); }
  async createTab(url: string, active: boolean) {
    const id = this.add(url);
    this.calls.push(`create ${url} ${active}`);
    return this.tabs.get(id)!;
  }
  async removeTab(id: number) { this.calls.push(`remove ${id}`); this.tabs.delete(id); }
  async activateTab(id: number) { this.calls.push(`activate ${id}`); }
  async navigateTab(id: number, url: string) { this.calls.push(`navigate ${id} ${url}`); this.tabs.get(id)!.url = url; }
  async targetIds() { return new Map([...this.tabs.keys()].map((id) => [id, `T${id}`])); }
  async attach(id: number) {
    if (this.failNext) { const e = this.failNext; this.failNext = undefined; throw e; }
    this.calls.push(`attach ${id}`); this.attached.add(id);
  }
  async detach(id: number) { this.calls.push(`detach ${id}`); this.attached.delete(id); }
  async sendCommand(id: number, sessionId: string | undefined, method: string) {
    this.calls.push(`send ${id} ${sessionId ?? ''} ${method}`);
    if (method === 'Hang.forever') {
      this.tabs.delete(id); // the user closes the tab meanwhile
      throw new Error('Detached while handling command.');
    }
    return { ok: method };
  }
}

/** Timers that fire when the test says so, and a clock it moves. */
class FakeTimers implements Timers {
  pending = new Map<number, { fn: () => void; ms: number }>();
  clock = 1_000_000;
  private next = 0;
  now() { return this.clock; }
  set(fn: () => void, ms: number) {
    this.pending.set(++this.next, { fn, ms });
    return this.next;
  }
  clear(h: unknown) { this.pending.delete(h as number); }
  /** Runs every pending timer (the time passes). */
  fire() {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const t of due) t.fn();
  }
}

const pidOf = (client: string) => 1000 + Number(client.slice(1));

function setup(p?: Persisted) {
  const browser = new FakeBrowser();
  const sent: Message[] = [];
  const saved: Persisted[] = [];
  const timers = new FakeTimers();
  const bridge = new Bridge(browser, (m) => sent.push(m), (p) => saved.push(p), () => {}, timers);
  /** A coordinator connects: client c7 is the process of pid 1007. */
  const connect = (client: string, folder: string) => bridge.handle({ type: 'clientConnected', client, coordinator: { folder, pid: pidOf(client) } });
  /** Sends a request and waits for its answer. */
  let id = 0;
  const request = async (client: string, type: string, fields: Record<string, unknown> = {}) => {
    const rid = ++id;
    bridge.handle({ type, client, id: rid, ...fields });
    for (let i = 0; i < 50; i++) {
      const answer = sent.find((m) => m.id === rid && m.client === client);
      if (answer) return answer;
      await new Promise((r) => setImmediate(r));
    }
    throw new Error(`no answer to ${type}`);
  };
  const events = (client: string, type: string) => sent.filter((m) => m.client === client && m.type === type && m.id === undefined);
  const vanish = (client: string) => bridge.handle({ type: 'clientDisconnected', client });
  return { browser, bridge, sent, saved, timers, connect, vanish, request, events, restore: () => bridge.restore(p) };
}

test('a coordinator sees only its own and its shared tabs', async () => {
  const s = setup();
  const userTab = s.browser.add('https://mail.example/', 'Mail');
  const sharedTab = s.browser.add('https://shop.example/', 'Shop');
  await s.restore();
  s.connect('c1', '/a');
  s.connect('c2', '/b');
  let a = await s.request('c1', 'connect');
  assert.equal(a.type, 'connected');
  assert.deepEqual(a.tabs, []);

  s.bridge.share(sharedTab, '/a');
  assert.equal(s.events('c1', 'tabCreated').length, 1);
  assert.equal(s.events('c2', 'tabCreated').length, 0, 'shared with /a only');
  a = await s.request('c1', 'connect');
  assert.deepEqual((a.tabs as Array<{ id: number }>).map((t) => t.id), [sharedTab]);

  const opened = await s.request('c2', 'openTab', { url: 'https://b.example/', focus: false });
  assert.equal(opened.type, 'result');
  const bTab = (opened.result as { id: number; agent: boolean; targetId: string });
  assert.equal(bTab.agent, true);
  assert.equal(bTab.targetId, `T${bTab.id}`);
  assert.ok(s.browser.calls.includes('create https://b.example/ false'));
  assert.equal(s.events('c1', 'tabCreated').filter((m) => (m.tab as { id: number }).id === bTab.id).length, 0, "c1 never hears of c2's tab");

  // Neither may reach the user's unshared tab, nor the other's.
  for (const [client, tab] of [['c1', userTab], ['c2', userTab], ['c1', bTab.id]] as const) {
    const r = await s.request(client, 'attach', { tabId: tab });
    assert.equal(r.type, 'error');
    assert.match((r.error as { message: string }).message, /not shared with this coordinator/);
  }
  assert.ok(!s.browser.calls.some((c) => c === `attach ${userTab}`));
});

test('the coordinator closes only the tabs it opened', async () => {
  const s = setup();
  const shared = s.browser.add('https://x.example/');
  await s.restore();
  s.connect('c1', '/a');
  await s.request('c1', 'connect');
  s.bridge.share(shared, '/a');
  const r = await s.request('c1', 'closeTab', { tabId: shared });
  assert.equal(r.type, 'error');
  assert.match((r.error as { message: string }).message, /never closes the user's tabs/);
  assert.ok(s.browser.tabs.has(shared));
  const mine = ((await s.request('c1', 'openTab', { url: 'about:blank' })).result as { id: number }).id;
  assert.equal((await s.request('c1', 'closeTab', { tabId: mine })).type, 'result');
  assert.ok(!s.browser.tabs.has(mine));
});

test('keep: a tab the agent opened becomes the user\'s, still shared with that coordinator', async () => {
  const s = setup();
  await s.restore();
  s.connect('c1', '/a');
  await s.request('c1', 'connect');
  const mine = ((await s.request('c1', 'openTab', { url: 'https://kept.example/' })).result as { id: number }).id;
  s.bridge.keep(mine);
  const updated = s.events('c1', 'tabUpdated').map((m) => m.tab as { id: number; agent: boolean });
  assert.deepEqual(updated.at(-1), { ...updated.at(-1), id: mine, agent: false }, 'the coordinator hears the tab is no longer its own');
  const r = await s.request('c1', 'closeTab', { tabId: mine });
  assert.equal(r.type, 'error', 'a kept tab is the user\'s: the coordinator may not close it');
  assert.ok(s.browser.tabs.has(mine));
  assert.equal((await s.request('c1', 'attach', { tabId: mine })).type, 'result', 'the agent still works in it');
  assert.deepEqual(s.saved.at(-1), { agentTabs: {}, shared: { [mine]: ['/a'] }, allTabs: false, orphans: [] });
  assert.throws(() => s.bridge.keep(mine), /not opened by an agent/);
});

test('stop sharing: the coordinator is told the tab is gone and lets go of it', async () => {
  const s = setup();
  const tab = s.browser.add('https://x.example/');
  await s.restore();
  s.connect('c1', '/a');
  await s.request('c1', 'connect');
  s.bridge.share(tab, '/a');
  assert.equal((await s.request('c1', 'attach', { tabId: tab })).type, 'result');
  assert.ok(s.browser.attached.has(tab));
  s.bridge.unshare(tab, '/a');
  assert.deepEqual(s.events('c1', 'tabClosed').map((m) => m.tabId), [tab]);
  assert.ok(!s.browser.attached.has(tab), 'detached when its last coordinator lost it');
  const r = await s.request('c1', 'command', { tabId: tab, method: 'Runtime.evaluate', params: {} });
  assert.equal(r.type, 'error');
});

test('one debugger attachment per tab, shared by coordinators, events to each', async () => {
  const s = setup();
  const tab = s.browser.add('https://x.example/');
  await s.restore();
  s.connect('c1', '/a');
  s.connect('c2', '/b');
  s.bridge.share(tab, '/a');
  s.bridge.share(tab, '/b');
  await s.request('c1', 'attach', { tabId: tab });
  await s.request('c2', 'attach', { tabId: tab });
  assert.equal(s.browser.calls.filter((c) => c === `attach ${tab}`).length, 1);
  s.bridge.onDebuggerEvent(tab, undefined, 'Page.loadEventFired', { timestamp: 1 });
  assert.equal(s.events('c1', 'cdpEvent').length, 1);
  assert.equal(s.events('c2', 'cdpEvent').length, 1);
  await s.request('c1', 'detach', { tabId: tab });
  assert.ok(s.browser.attached.has(tab), 'still attached for c2');
  s.bridge.handle({ type: 'clientDisconnected', client: 'c2' });
  assert.ok(!s.browser.attached.has(tab), 'the last coordinator gone: detached');
});

test('commands go to the tab in order; a tab closed mid-call is named', async () => {
  const s = setup();
  const tab = s.browser.add('https://x.example/', 'Checkout');
  await s.restore();
  s.connect('c1', '/a');
  s.bridge.share(tab, '/a');
  await s.request('c1', 'attach', { tabId: tab });
  const first = s.request('c1', 'command', { tabId: tab, method: 'A.one' });
  const second = s.request('c1', 'command', { tabId: tab, sessionId: 'CHILD', method: 'B.two' });
  assert.deepEqual((await first).result, { ok: 'A.one' });
  assert.deepEqual((await second).result, { ok: 'B.two' });
  assert.deepEqual(s.browser.calls.filter((c) => c.startsWith('send')), [`send ${tab}  A.one`, `send ${tab} CHILD B.two`]);
  const r = await s.request('c1', 'command', { tabId: tab, method: 'Hang.forever' });
  assert.equal(r.type, 'error');
  assert.match((r.error as { message: string }).message, new RegExp(`tab ${tab} \\(Checkout\\) was closed while Hang.forever was running`));
});

test('attach errors say what to do', async () => {
  const s = setup();
  const tab = s.browser.add('https://x.example/');
  await s.restore();
  s.connect('c1', '/a');
  s.bridge.share(tab, '/a');
  s.browser.failNext = new Error('Another debugger is already attached to the tab with id: 100.');
  const r = await s.request('c1', 'attach', { tabId: tab });
  assert.match((r.error as { message: string }).message, /debugged by another tool.*close it there/);
});

test('all tabs: every tab but the browser\'s own pages', async () => {
  const s = setup();
  const page = s.browser.add('https://x.example/');
  const settings = s.browser.add('chrome://settings/');
  await s.restore();
  s.connect('c1', '/a');
  s.bridge.setAllTabs(true);
  const ids = ((await s.request('c1', 'connect')).tabs as Array<{ id: number; agent: boolean }>);
  assert.deepEqual(ids.map((t) => t.id), [page]);
  assert.equal(ids[0].agent, false);
  assert.ok(isRestrictedUrl('chrome://settings/') && isRestrictedUrl('chrome-extension://x/popup.html') && !isRestrictedUrl('about:blank'));
  void settings;
  assert.equal(s.saved.at(-1)?.allTabs, true);
  s.bridge.setAllTabs(false);
  assert.deepEqual(s.events('c1', 'tabClosed').map((m) => m.tabId), [page]);
});

test('a page of an agent tab opens a tab: it is the agent\'s, with its opener', async () => {
  const s = setup();
  await s.restore();
  s.connect('c1', '/a');
  const mine = ((await s.request('c1', 'openTab', { url: 'https://a.example/' })).result as { id: number }).id;
  const popup = s.browser.add('https://a.example/popup');
  s.bridge.onTabCreated(s.browser.tabs.get(popup)!);
  s.bridge.onNavigationTarget(mine, popup);
  await new Promise((r) => setImmediate(r));
  const created = s.events('c1', 'tabCreated').find((m) => (m.tab as { id: number }).id === popup);
  assert.ok(created, 'the popup is visible to its agent');
  assert.equal((created.tab as { openerId: string }).openerId, `T${mine}`);
  // A tab the user opens next to it is not.
  const userTab = s.browser.add('https://user.example/');
  s.bridge.onTabCreated(s.browser.tabs.get(userTab)!);
  await new Promise((r) => setImmediate(r));
  assert.ok(!s.events('c1', 'tabCreated').some((m) => (m.tab as { id: number }).id === userTab));
});

test('a popup whose target the browser lists late still reaches its agent with its target id', async () => {
  const s = setup();
  await s.restore();
  s.connect('c1', '/a');
  const mine = ((await s.request('c1', 'openTab', { url: 'https://a.example/' })).result as { id: number }).id;
  const popup = s.browser.add('https://a.example/popup', 'Popup');
  const listed = s.browser.targetIds.bind(s.browser);
  s.browser.targetIds = async () => { const m = await listed(); m.delete(popup); return m; };
  s.bridge.onTabCreated(s.browser.tabs.get(popup)!);
  s.bridge.onNavigationTarget(mine, popup);
  await new Promise((r) => setImmediate(r));
  const withTarget = () => s.sent.filter((m) => m.client === 'c1' && (m.tab as { id?: number; targetId?: string } | undefined)?.id === popup &&
    (m.tab as { targetId: string }).targetId === `T${popup}`);
  assert.deepEqual(withTarget(), [], 'no target id yet');
  // The browser lists it now; the next update (its load ends: title and url as they were) carries it.
  s.browser.targetIds = listed;
  s.bridge.onTabUpdated(popup, { ...s.browser.tabs.get(popup)! });
  await new Promise((r) => setImmediate(r));
  assert.equal(withTarget().length, 1, 'the popup is announced with its target id');
});

test('what was shared and opened survives a restart of the worker', async () => {
  const s = setup();
  const tab = s.browser.add('https://x.example/');
  await s.restore();
  s.connect('c1', '/a');
  s.bridge.share(tab, '/a');
  const mine = ((await s.request('c1', 'openTab', { url: 'https://a.example/' })).result as { id: number }).id;
  const persisted = s.saved.at(-1)!;

  const again = setup(persisted);
  again.browser.tabs = s.browser.tabs; // the same browser, a new worker
  await again.restore();
  again.connect('c9', '/a');
  const tabs = ((await again.request('c9', 'connect')).tabs as Array<{ id: number; agent: boolean }>);
  assert.deepEqual(tabs.map((t) => [t.id, t.agent]).sort(), [[tab, false], [mine, true]].sort());
});

test('hello, a mismatched host, and messages that are not the protocol', () => {
  const s = setup();
  const hello = s.bridge.hello({ id: 'x', version: '1' }, { name: 'Chrome', version: '1', userAgent: '' });
  assert.equal(hello.protocol, PROTOCOL);
  s.bridge.handle({ type: 'hello', protocol: PROTOCOL + 1 });
  assert.match(s.bridge.error ?? '', /update the browser extension/, 'a newer sidecar: the extension is the one to update');
  assert.equal(s.bridge.ready, false);
  s.bridge.handle({ type: 'hello', protocol: PROTOCOL });
  assert.equal(s.bridge.ready, true);
  s.bridge.handle(null as unknown as Message);
  s.bridge.handle({ type: 'connect', client: 'nobody', id: 1 });
  s.connect('c1', '/a');
  s.bridge.handle({ type: 'frobnicate', client: 'c1' });
  assert.equal(s.sent.at(-1)?.type, 'error');
});

/** A coordinator of /a with its tabs: one it opened, one it opened and the
 * user kept, one it opened and the user shared; and a tab of the user's. */
async function agentWithTabs() {
  const s = setup();
  const userTab = s.browser.add('https://mail.example/', 'Mail');
  await s.restore();
  s.connect('c1', '/a');
  await s.request('c1', 'connect');
  const open = async (url: string) => ((await s.request('c1', 'openTab', { url, focus: false })).result as { id: number }).id;
  const agentTab = await open('https://agent.example/');
  const kept = await open('https://kept.example/');
  const shared = await open('https://shared.example/');
  s.bridge.keep(kept);
  s.bridge.share(shared, '/b');
  return { ...s, userTab, agentTab, kept, shared };
}

test('a coordinator that vanished: its agent tabs close after the grace period, the user\'s, kept and shared tabs stay', async () => {
  const s = await agentWithTabs();
  s.vanish('c1');
  assert.equal(s.timers.pending.size, 1, 'one grace period, for /a');
  assert.deepEqual([...s.timers.pending.values()].map((t) => t.ms), [ORPHAN_GRACE_MS]);
  assert.ok(!s.browser.calls.some((c) => c.startsWith('remove')), 'nothing closes during the grace period');
  s.timers.fire();
  assert.deepEqual(s.browser.calls.filter((c) => c.startsWith('remove')), [`remove ${s.agentTab}`]);
  assert.deepEqual([...s.browser.tabs.keys()].sort(), [s.userTab, s.kept, s.shared].sort());
});

test('a coordinator of the same folder back within the grace period keeps the agent tabs and takes them back', async () => {
  const s = await agentWithTabs();
  s.vanish('c1');
  s.connect('c2', '/a');
  assert.equal(s.timers.pending.size, 0, 'the grace period ends');
  s.timers.fire();
  assert.ok(!s.browser.calls.some((c) => c.startsWith('remove')));
  const back = await s.request('c2', 'connect');
  const mine = (back.tabs as Array<{ id: number; agent: boolean }>).filter((t) => t.agent).map((t) => t.id);
  assert.deepEqual(mine, [s.agentTab, s.shared], 'the agent\'s tabs are the new coordinator\'s, as the agent\'s (the kept one is the user\'s)');
  // It vanishes too, and none comes back: the tab closes then.
  s.vanish('c2');
  s.timers.fire();
  assert.deepEqual(s.browser.calls.filter((c) => c.startsWith('remove')), [`remove ${s.agentTab}`]);
});

test('a coordinator of another folder coming does not save the tabs', async () => {
  const s = await agentWithTabs();
  s.vanish('c1');
  s.connect('c3', '/b');
  s.timers.fire();
  assert.deepEqual(s.browser.calls.filter((c) => c.startsWith('remove')), [`remove ${s.agentTab}`]);
});

test('two coordinators of one folder: each sees the other\'s tabs as the agent\'s, owns its own; one that vanishes leaves its tabs to the other', async () => {
  const s = await agentWithTabs();
  s.connect('c2', '/a'); // a second coordinator in the same folder
  const theirs = ((await s.request('c2', 'openTab', { url: 'https://two.example/', focus: false })).result as { id: number; own: boolean });
  assert.equal(theirs.own, true);
  const seen = (client: string) => (async () => ((await s.request(client, 'connect')).tabs as Array<{ id: number; agent?: boolean; own?: boolean }>)
    .filter((t) => t.agent).map((t) => [t.id, !!t.own]))();
  assert.deepEqual(await seen('c1'), [[s.agentTab, true], [s.shared, true], [theirs.id, false]]);
  assert.deepEqual(await seen('c2'), [[s.agentTab, false], [s.shared, false], [theirs.id, true]]);

  s.vanish('c1');
  assert.equal(s.timers.pending.size, 1, 'c1\'s tabs wait for it');
  s.timers.fire();
  assert.ok(!s.browser.calls.some((c) => c.startsWith('remove')), 'the folder still has a coordinator: nothing closes');
  const given = s.events('c2', 'tabUpdated').map((m) => m.tab as { id: number; own?: boolean }).filter((t) => t.id === s.agentTab);
  assert.equal(given.at(-1)?.own, true, 'c2 is told the tab is its own now');
  assert.deepEqual(await seen('c2'), [[s.agentTab, true], [s.shared, false], [theirs.id, true]], 'the shared one stays as the user shared it');
});

test('a grace period survives the worker being stopped, and ends on time', async () => {
  const s = await agentWithTabs();
  s.vanish('c1');
  const persisted = s.saved.at(-1)!;
  assert.deepEqual(persisted.orphans, [{ folder: '/a', pid: pidOf('c1'), until: s.timers.clock + ORPHAN_GRACE_MS }]);

  // The worker stops 4 s into the grace period; a new one starts.
  const again = setup(persisted);
  again.browser.tabs = s.browser.tabs;
  again.timers.clock = s.timers.clock + 4_000;
  await again.restore();
  assert.deepEqual([...again.timers.pending.values()].map((t) => t.ms), [ORPHAN_GRACE_MS - 4_000], 'the rest of the grace period');
  assert.equal(again.bridge.nextGraceEnd, s.timers.clock + ORPHAN_GRACE_MS, 'an alarm can wake the worker then');
  again.timers.fire();
  assert.deepEqual(again.browser.calls.filter((c) => c.startsWith('remove')), [`remove ${s.agentTab}`]);
  assert.deepEqual(again.saved.at(-1)?.orphans, []);

  // One that ended while the worker was stopped ends at once.
  const late = setup(persisted);
  late.browser.tabs = new Map([...s.browser.tabs, [s.agentTab, { id: s.agentTab, url: 'https://agent.example/' }]]);
  late.timers.clock = s.timers.clock + ORPHAN_GRACE_MS + 60_000;
  await late.restore();
  assert.deepEqual([...late.timers.pending.values()].map((t) => t.ms), [0]);
});

test('a request that reaches the browser after its caller gave up is not carried out', async () => {
  const s = setup();
  await s.restore();
  s.connect('c1', '/a');
  const r = await s.request('c1', 'openTab', { url: 'https://late.example/', expires: s.timers.clock - 2500 });
  assert.equal(r.type, 'error');
  assert.match((r.error as { message: string }).message, /openTab reached the browser 2500 ms after its caller stopped waiting.*not carried out/);
  assert.ok(!s.browser.calls.some((c) => c.startsWith('create')), 'no tab was opened');
  assert.equal((await s.request('c1', 'openTab', { url: 'https://soon.example/', expires: s.timers.clock + 1 })).type, 'result');
});

test('reuseTab gives a coordinator\'s own tab to a new tab of its agent, and no other tab', async () => {
  const s = await agentWithTabs();
  const r = await s.request('c1', 'reuseTab', { tabId: s.agentTab, url: 'https://again.example/', focus: true });
  assert.equal(r.type, 'result');
  assert.equal((r.result as { id: number; own: boolean }).own, true);
  assert.deepEqual(s.browser.calls.slice(-2), [`navigate ${s.agentTab} https://again.example/`, `activate ${s.agentTab}`]);
  const blank = await s.request('c1', 'reuseTab', { tabId: s.agentTab, url: 'about:blank', focus: false });
  assert.equal(blank.type, 'result');
  assert.equal(s.browser.tabs.get(s.agentTab)?.url, 'https://again.example/', 'about:blank leaves the page as it is');
  s.connect('c2', '/a');
  for (const [client, tab] of [['c2', s.agentTab], ['c1', s.kept], ['c1', s.userTab]] as const) {
    const refused = await s.request(client, 'reuseTab', { tabId: tab, url: 'https://x.example/' });
    assert.equal(refused.type, 'error', `${client} may not take tab ${tab}`);
  }
});

test('a coordinator that let go because its native host went away starts no grace period', async () => {
  const s = await agentWithTabs();
  s.bridge.handle({ type: 'clientLeft', client: 'c1' });
  assert.equal(s.timers.pending.size, 0);
  s.connect('c1', '/a'); // back through the next host, the same process
  const mine = ((await s.request('c1', 'connect')).tabs as Array<{ id: number; own?: boolean }>).filter((t) => t.own).map((t) => t.id);
  assert.deepEqual(mine, [s.agentTab, s.shared]);
});

test('the native host going away (the coordinators alive, waiting for it) closes nothing', async () => {
  const s = await agentWithTabs();
  s.bridge.hostGone();
  assert.equal(s.timers.pending.size, 0);
  s.vanish('c1'); // a late word for a client already gone: nothing
  assert.equal(s.timers.pending.size, 0);
});
