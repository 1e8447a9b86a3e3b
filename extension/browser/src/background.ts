// The service worker: connects to the native host (which keeps the worker
// alive while connected), reconnects when the port drops, and wires the
// browser's events and the popup to the Bridge, and the Bridge to the
// coordinators (Links: each one's channel, or the port). Listeners are
// registered at the top level so that the browser wakes a stopped worker
// for them.
import { Bridge, type Persisted } from './bridge.js';
import { chromeBrowser } from './chromeApi.js';
import { Links } from './links.js';
import { HOST_NAME, Joiner, type BrowserInfo, type Message } from './protocol.js';

const log = (msg: string) => console.log(`[browser-coordinator] ${msg}`);

/** What the popup asks (popup.ts). */
interface PopupRequest { type?: string; tabId: number; folder: string; on?: boolean }

let port: chrome.runtime.Port | undefined;
let retryDelay = 1000;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let lastError: string | undefined;
let joiner = new Joiner();

const links = new Links({
  dial: (url, events) => {
    const ws = new WebSocket(url);
    ws.onopen = () => events.open();
    ws.onmessage = (e: MessageEvent) => events.message(typeof e.data === 'string' ? e.data : '');
    ws.onclose = (e: CloseEvent) => events.closed(e.code, e.reason);
    return ws;
  },
  post: (msg) => {
    if (!port) return false;
    port.postMessage(msg);
    return true;
  },
  deliver: (msg) => bridge.handle(msg),
  // The end of this turn of the event loop (measured: a later turn, through
  // a MessageChannel, cost every answer 0.1 ms and merged almost nothing: the
  // browser delivers its events one task each).
  later: (fn) => queueMicrotask(fn),
  log,
});

// Written at once, not batched: the browser may stop this worker at any
// moment, and a tab the agent opened a moment before must come back with
// it, as must a grace period under way (an alarm wakes the worker for its end).
function save(p: Persisted): void {
  void chrome.storage.session.set({ bridge: { agentTabs: p.agentTabs, shared: p.shared, orphans: p.orphans } });
  void chrome.storage.local.set({ allTabs: p.allTabs });
  const end = bridge.nextGraceEnd;
  if (end === undefined) void chrome.alarms.clear('grace');
  else void chrome.alarms.create('grace', { when: end });
}

const bridge = new Bridge(chromeBrowser, (msg) => links.send(msg), save, log);
bridge.browserInfo = browserInfo();
bridge.changed = () => void updateBadge();

const restored: Promise<void> = (async () => {
  bridge.browserInfo = await fullVersion(bridge.browserInfo);
  const [session, local] = (await Promise.all([chrome.storage.session.get('bridge'), chrome.storage.local.get('allTabs')])) as [{ bridge?: Partial<Persisted> }, { allTabs?: unknown }];
  await bridge.restore({ agentTabs: session.bridge?.agentTabs ?? {}, shared: session.bridge?.shared ?? {}, allTabs: !!local.allTabs, orphans: session.bridge?.orphans ?? [] });
  // Debugger sessions of a previous worker may outlive it: let go of them,
  // the coordinators attach again.
  for (const t of await chrome.debugger.getTargets()) {
    if (t.attached && t.tabId !== undefined) await chrome.debugger.detach({ tabId: t.tabId }).catch(() => undefined);
  }
})().catch((err) => log(`restore: ${err}`));

/** Runs fn once the persisted state is back, keeping the events' order. */
function after<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
  return (...args: A) => void restored.then(() => fn(...args));
}

chrome.tabs.onCreated.addListener(after((tab) => bridge.onTabCreated(tab)));
chrome.tabs.onUpdated.addListener(after((tabId, _change, tab) => bridge.onTabUpdated(tabId, tab)));
chrome.tabs.onRemoved.addListener(after((tabId) => bridge.onTabRemoved(tabId)));
chrome.webNavigation.onCreatedNavigationTarget.addListener(after((d) => bridge.onNavigationTarget(d.sourceTabId, d.tabId)));
chrome.tabs.onActivated.addListener(after((info) => bridge.onTabActivated(info.tabId)));
chrome.debugger.onEvent.addListener(after((source, method, params) => {
  if (source.tabId !== undefined) bridge.onDebuggerEvent(source.tabId, source.sessionId, method, params);
}));
chrome.debugger.onDetach.addListener(after((source, reason) => {
  if (source.tabId !== undefined) bridge.onDebuggerDetach(source.tabId, reason);
}));
chrome.runtime.onSuspend.addListener(() => {
  bridge.goingAway("the browser extension's service worker is stopping");
  links.flush();
});
chrome.runtime.onStartup.addListener(() => void restored.then(connect));
chrome.runtime.onInstalled.addListener(() => void restored.then(connect));
chrome.alarms.onAlarm.addListener((alarm) => {
  // 'grace' needs nothing more: waking the worker restored the grace
  // periods, and one that has ended ends now.
  if (alarm.name === 'reconnect' && !port) void restored.then(connect);
});
void chrome.alarms.create('reconnect', { periodInMinutes: 1 });

chrome.runtime.onMessage.addListener((msg: PopupRequest | undefined, _sender, sendResponse) => {
  void restored.then(async () => {
    try {
      switch (msg?.type) {
        case 'popup:get': {
          const [active] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
          const state = bridge.popupState(active?.id);
          sendResponse({ ...state, error: state.error ?? (port ? undefined : lastError) });
          return;
        }
        case 'popup:share':
          bridge.share(msg.tabId, msg.folder);
          break;
        case 'popup:unshare':
          bridge.unshare(msg.tabId, msg.folder);
          break;
        case 'popup:keep':
          bridge.keep(msg.tabId);
          break;
        case 'popup:allTabs':
          bridge.setAllTabs(!!msg.on);
          break;
        case 'popup:reconnect':
          connect();
          break;
      }
      sendResponse({ ok: true });
    } catch (err) {
      sendResponse({ ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  });
  return true; // answered asynchronously
});

function connect(): void {
  if (port) return;
  clearTimeout(retryTimer);
  retryTimer = undefined;
  joiner = new Joiner();
  let p: chrome.runtime.Port;
  try {
    p = chrome.runtime.connectNative(HOST_NAME);
  } catch (err) {
    lastError = `cannot start the native host: ${err instanceof Error ? err.message : String(err)}`;
    log(lastError);
    scheduleReconnect();
    return;
  }
  port = p;
  p.onMessage.addListener((raw: Message) => {
    try {
      const msg = joiner.add(raw);
      if (!msg) return;
      if (msg.type === 'hello') retryDelay = 1000;
      if (msg.type === 'clientDisconnected' && typeof msg.client === 'string') joiner.drop(msg.client);
      links.fromHost(msg);
    } catch (err) {
      log(`a message from the native host that is not the protocol: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  p.onDisconnect.addListener(() => {
    const why = chrome.runtime.lastError?.message ?? 'the native host exited';
    lastError = /not found/i.test(why)
      ? `the native host is not installed: run "browser-coordinator install --host chrome" (or edge, chromium, brave), then reload this extension (${why})`
      : why;
    log(`native host disconnected: ${why}`);
    if (port === p) port = undefined;
    links.hostGone();
    bridge.hostGone();
    scheduleReconnect();
  });
  p.postMessage(bridge.hello({ id: chrome.runtime.id, version: chrome.runtime.getManifest().version }, bridge.browserInfo));
  void updateBadge();
}

function scheduleReconnect(): void {
  if (retryTimer || bridge.error) return; // a protocol mismatch waits for an update, not a retry loop
  retryTimer = setTimeout(() => {
    retryTimer = undefined;
    connect();
  }, retryDelay);
  retryDelay = Math.min(retryDelay * 2, 30_000);
}

async function updateBadge(): Promise<void> {
  const state = bridge.popupState(undefined);
  const n = state.clients.length;
  const error = state.error ?? (port ? undefined : lastError);
  await chrome.action.setBadgeText({ text: error ? '!' : n > 0 ? String(n) : '' }).catch(() => undefined);
  await chrome.action.setBadgeBackgroundColor({ color: error ? '#b00020' : '#1a73e8' }).catch(() => undefined);
  await chrome.action.setTitle({
    title: error ? `Browser Coordinator: ${error}` : `Browser Coordinator: ${n} coordinator${n === 1 ? '' : 's'} connected`,
  }).catch(() => undefined);
}

function browserInfo(): BrowserInfo {
  const ua = navigator.userAgent;
  const brands = ((navigator as unknown as { userAgentData?: { brands?: Array<{ brand: string; version: string }> } }).userAgentData?.brands ?? [])
    .map((b) => b.brand);
  const name = brands.includes('Microsoft Edge') || /Edg\//.test(ua) ? 'Edge'
    : brands.includes('Brave') ? 'Brave'
      : brands.includes('Google Chrome') ? 'Chrome'
        : 'Chromium';
  const version = /Chrome\/([\d.]+)/.exec(ua)?.[1] ?? '';
  return { name, version, userAgent: ua };
}

/** The user agent string says 156.0.0.0; the full version is a high-entropy value. */
async function fullVersion(info: BrowserInfo): Promise<BrowserInfo> {
  type UAData = { getHighEntropyValues(hints: string[]): Promise<{ fullVersionList?: Array<{ brand: string; version: string }> }> };
  const data = (navigator as unknown as { userAgentData?: UAData }).userAgentData;
  try {
    const list = (await data?.getHighEntropyValues(['fullVersionList']))?.fullVersionList ?? [];
    const brand = { Edge: 'Microsoft Edge', Chrome: 'Google Chrome', Brave: 'Brave', Chromium: 'Chromium' }[info.name];
    const v = list.find((b) => b.brand === brand)?.version ?? list.find((b) => b.brand === 'Chromium')?.version;
    return v ? { ...info, version: v } : info;
  } catch {
    return info;
  }
}

void restored.then(connect);
