// The extension's logic, away from chrome.*: which coordinator sees which
// tab, the requests coordinators make (open, focus, close, attach, CDP
// commands), and the events they get. background.ts wires it to the browser
// through the Browser adapter (chromeApi.ts); the tests drive it with a fake.
import type { BrowserInfo, CoordinatorInfo, Message, TabInfo } from './protocol.js';
import { PROTOCOL, mismatchMessage } from './protocol.js';

/** A tab as the browser reports it. */
export interface RawTab {
  id?: number;
  title?: string;
  url?: string;
  pendingUrl?: string;
  active?: boolean;
  windowId?: number;
}

/** What the bridge needs of the browser: chromeApi.ts implements it with chrome.*. */
export interface Browser {
  queryTabs(): Promise<RawTab[]>;
  getTab(tabId: number): Promise<RawTab | undefined>;
  createTab(url: string, active: boolean): Promise<RawTab>;
  removeTab(tabId: number): Promise<void>;
  activateTab(tabId: number): Promise<void>;
  /** Loads url in the tab (chrome.tabs.update). */
  navigateTab(tabId: number, url: string): Promise<void>;
  /** The page target id of each tab (chrome.debugger.getTargets). */
  targetIds(): Promise<Map<number, string>>;
  attach(tabId: number): Promise<void>;
  detach(tabId: number): Promise<void>;
  sendCommand(tabId: number, sessionId: string | undefined, method: string, params: unknown): Promise<unknown>;
}

/** The coordinator an agent tab belongs to: its folder (whose coordinators
 * all see it) and the process that opened it or took it over (the one
 * that closes it when it lets go). */
export interface Owner {
  folder: string;
  pid: number;
}

/** A coordinator that vanished: its tabs close at `until` (ms since the
 * epoch), or go to another coordinator of its folder, unless it comes
 * back first. */
export interface Orphan extends Owner {
  until: number;
}

/** What survives the service worker being stopped (chrome.storage.session)
 * and, for allTabs, the browser restarting (chrome.storage.local). */
export interface Persisted {
  /** tab id → the coordinator that opened it */
  agentTabs: Record<string, Owner>;
  /** tab id → the folders the user shared it with */
  shared: Record<string, string[]>;
  allTabs: boolean;
  /** the grace periods under way: a stopped worker picks them up again */
  orphans?: Orphan[];
}

export interface Client extends CoordinatorInfo {
  id: string;
}

/** The popup's view. */
export interface PopupState {
  connected: boolean;
  error?: string;
  allTabs: boolean;
  clients: Array<Client & { tabs: TabInfo[] }>;
  activeTab?: { id: number; title: string; url: string; sharedWith: string[]; openedBy?: string };
}

/** Pages the browser never lets an extension debug; all-tabs mode leaves them out. */
export function isRestrictedUrl(url: string | undefined): boolean {
  if (!url) return false;
  return /^(chrome|chrome-extension|chrome-untrusted|devtools|edge|brave|view-source|about:(?!blank))/.test(url)
    || url.startsWith('https://chromewebstore.google.com') || url.startsWith('https://chrome.google.com/webstore');
}

const OPENABLE = /^(https?:|about:blank$|data:|file:)/;

/** How long the tabs of a coordinator that vanished (killed, crashed: its
 * connection dropped without it closing them) wait for it to come back
 * before they close. */
export const ORPHAN_GRACE_MS = 10_000;

/** The clock and timers the bridge waits with (Date.now and setTimeout; a
 * fake in the tests). */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
  now(): number;
}

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

type Send = (msg: Message) => void;

export class Bridge {
  private clients = new Map<string, Client>();
  private agentTabs = new Map<number, Owner>();
  private shared = new Map<number, Set<string>>();
  private allTabs = false;
  /** tab id → the clients attached to it through chrome.debugger */
  private attachments = new Map<number, Set<string>>();
  /** client → the tabs it has been told about (tabCreated sent, tabClosed not) */
  private told = new Map<string, Set<number>>();
  private tabs = new Map<number, TabInfo>();
  private hostReady = false;
  private fatal: string | undefined;
  private onChange: () => void = () => {};
  /** the coordinators that vanished, with the timers that end their grace */
  private orphans: Array<Orphan & { timer: unknown }> = [];

  constructor(
    private readonly browser: Browser,
    private readonly send: Send,
    private readonly save: (p: Persisted) => void,
    private readonly log: (msg: string) => void = () => {},
    private readonly timers: Timers = realTimers,
    private readonly graceMs = ORPHAN_GRACE_MS,
  ) {}

  /** Called when the popup's view may have changed. */
  set changed(fn: () => void) {
    this.onChange = fn;
  }

  /** Restores what was persisted and learns the open tabs. */
  async restore(p: Persisted | undefined): Promise<void> {
    if (p) {
      this.allTabs = !!p.allTabs;
      for (const [k, v] of Object.entries(p.agentTabs ?? {})) {
        if (v && typeof v.folder === 'string') this.agentTabs.set(Number(k), { folder: v.folder, pid: Number(v.pid) });
      }
      for (const [k, v] of Object.entries(p.shared ?? {})) this.shared.set(Number(k), new Set(v));
    }
    await this.refreshTabs();
    for (const id of [...this.agentTabs.keys(), ...this.shared.keys()]) {
      if (!this.tabs.has(id)) this.forget(id); // closed while the worker was stopped
    }
    // A grace period the stopped worker was counting goes on where it was
    // (or ends now, if it ended meanwhile).
    for (const o of p?.orphans ?? []) {
      if (typeof o?.folder === 'string' && typeof o.until === 'number') this.startGrace({ folder: o.folder, pid: Number(o.pid) }, o.until);
    }
    this.persist();
  }

  /** When the next grace period ends (ms since the epoch), if one runs:
   * background.ts sets an alarm then, which wakes a stopped worker. */
  get nextGraceEnd(): number | undefined {
    return this.orphans.length ? Math.min(...this.orphans.map((o) => o.until)) : undefined;
  }

  private async refreshTabs(): Promise<void> {
    const [raw, targets] = await Promise.all([this.browser.queryTabs(), this.browser.targetIds()]);
    for (const t of raw) {
      if (t.id === undefined) continue;
      this.tabs.set(t.id, toInfo(t, targets.get(t.id) ?? this.tabs.get(t.id)?.targetId ?? '', this.tabs.get(t.id)?.openerId));
    }
  }

  /** The hello this extension opens the conversation with. */
  hello(extension: { id: string; version: string }, browser: BrowserInfo): Message {
    return { type: 'hello', protocol: PROTOCOL, extension, browser };
  }

  // ---- the host's side ----

  /** Handles one message from the native host (already joined from chunks). */
  handle(msg: Message): void {
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') {
      this.log(`ignoring a message that is not the protocol: ${JSON.stringify(msg)?.slice(0, 200)}`);
      return;
    }
    switch (msg.type) {
      case 'hello':
        if (msg.protocol !== PROTOCOL) {
          this.fatal = mismatchMessage(PROTOCOL, Number(msg.protocol));
          this.log(this.fatal);
        } else {
          this.hostReady = true;
          this.fatal = undefined;
        }
        this.onChange();
        return;
      case 'error':
        if (msg.id === undefined) {
          // A hop-level error: a protocol mismatch, or something we sent that the host did not understand.
          this.fatal = msg.code === 'protocol' ? String(msg.message) : this.fatal;
          this.log(`the native host says: ${String(msg.message)}`);
          this.onChange();
        }
        return;
      case 'clientConnected': {
        const c = msg.coordinator as CoordinatorInfo | undefined;
        if (typeof msg.client !== 'string' || !c) return;
        const client: Client = { id: msg.client, folder: String(c.folder), pid: Number(c.pid), version: c.version };
        this.clients.set(msg.client, client);
        this.told.set(msg.client, new Set());
        this.adopt(client);
        this.onChange();
        return;
      }
      case 'clientDisconnected': {
        // The coordinator's connection ended. One that let go on purpose
        // closed its tabs before; one that vanished (killed, crashed) left
        // them: they wait for it (or another coordinator of its folder).
        const client = typeof msg.client === 'string' ? this.clients.get(msg.client) : undefined;
        if (!client) return;
        this.dropClient(client.id);
        this.startGrace(client, this.timers.now() + this.graceMs);
        this.persist();
        return;
      }
      case 'clientLeft':
        // It let go because its native host went away: it comes back
        // through the next one, its tabs still its own.
        if (typeof msg.client === 'string') this.dropClient(msg.client);
        return;
    }
    const client = typeof msg.client === 'string' ? this.clients.get(msg.client) : undefined;
    if (!client) {
      this.log(`a ${msg.type} from an unknown coordinator ${String(msg.client)}`);
      return;
    }
    if (typeof msg.id !== 'number') {
      this.send({ type: 'error', client: client.id, code: 'invalid', message: `${msg.type} is not a request this extension knows (protocol ${PROTOCOL})` });
      return;
    }
    const id = msg.id;
    const late = typeof msg.expires === 'number' ? this.timers.now() - msg.expires : 0;
    if (late > 0) {
      // Its caller has given up: a tab opened or a click made now would
      // surprise the agent that retried, and the user.
      this.send({ type: 'error', client: client.id, id, error: { message: `${msg.type} reached the browser ${late} ms after its caller stopped waiting (the browser was busy): it was not carried out` } });
      return;
    }
    this.request(client, msg).then(
      (answer) => this.send({ ...answer, client: client.id, id }),
      (err: unknown) => this.send({ type: 'error', client: client.id, id, error: { message: err instanceof Error ? err.message : String(err) } }),
    );
  }

  /** The host went away (the port closed): every coordinator with it. */
  hostGone(): void {
    this.hostReady = false;
    for (const id of [...this.clients.keys()]) this.dropClient(id);
    this.onChange();
  }

  /** Tells every coordinator the extension is going away. */
  goingAway(reason: string): void {
    for (const id of this.clients.keys()) this.send({ type: 'disconnected', client: id, reason });
  }

  get ready(): boolean {
    return this.hostReady;
  }

  get error(): string | undefined {
    return this.fatal;
  }

  private dropClient(id: string): void {
    const client = this.clients.get(id);
    if (!client) return;
    this.clients.delete(id);
    this.told.delete(id);
    for (const [tabId, set] of this.attachments) {
      if (set.delete(id) && set.size === 0) this.detachTab(tabId);
    }
    this.onChange();
  }

  /** Starts the grace period of a coordinator that vanished: at until its
  * agent tabs go to another coordinator of its folder, or close if none
  * is there. The tabs the user kept or shared stay. */
  private startGrace(who: Owner, until: number): void {
    if (this.orphans.some((o) => o.folder === who.folder && o.pid === who.pid)) return;
    if (![...this.agentTabs.values()].some((o) => o.folder === who.folder && o.pid === who.pid)) return;
    const entry = { ...who, until, timer: undefined as unknown };
    entry.timer = this.timers.set(() => this.endGrace(entry), Math.max(0, until - this.timers.now()));
    this.orphans.push(entry);
  }

  private endGrace(entry: Orphan & { timer: unknown }): void {
    this.orphans = this.orphans.filter((o) => o !== entry);
    const heir = [...this.clients.values()].find((c) => c.folder === entry.folder);
    for (const [tabId, o] of this.agentTabs) {
      if (o.folder !== entry.folder || o.pid !== entry.pid || this.shared.has(tabId)) continue;
      if (heir) {
        this.log(`tab ${tabId} goes to the coordinator of ${entry.folder} (pid ${heir.pid}): the one that opened it went away`);
        this.agentTabs.set(tabId, { folder: heir.folder, pid: heir.pid });
        this.sync(tabId);
        continue;
      }
      this.log(`closing tab ${tabId}: the coordinator of ${entry.folder} that opened it went away without closing it`);
      this.browser.removeTab(tabId).catch((err: unknown) => this.log(`cannot close tab ${tabId}: ${String(err)}`));
    }
    this.persist();
  }

  /** A coordinator is (back) here: its own tabs wait no more; the tabs of
   * one of its folder that vanished become its own. */
  private adopt(client: Client): void {
    const mine = this.orphans.filter((o) => o.folder === client.folder);
    if (!mine.length) return;
    for (const o of mine) this.timers.clear(o.timer);
    this.orphans = this.orphans.filter((o) => o.folder !== client.folder);
    for (const [tabId, o] of this.agentTabs) {
      if (o.folder === client.folder && mine.some((m) => m.pid === o.pid)) this.agentTabs.set(tabId, { folder: client.folder, pid: client.pid });
    }
    this.persist();
  }

  // ---- requests ----

  private request(client: Client, msg: Message): Promise<Message> {
    switch (msg.type) {
      case 'connect':
        return this.connect(client);
      case 'openTab':
        return this.openTab(client, msg.url, msg.focus);
      case 'reuseTab':
        return this.reuseTab(client, msg.tabId, msg.url, msg.focus);
      case 'focusTab':
        return this.focusTab(client, msg.tabId);
      case 'closeTab':
        return this.closeTab(client, msg.tabId);
      case 'attach':
        return this.attach(client, msg.tabId);
      case 'detach':
        return this.detach(client, msg.tabId);
      case 'command':
        // No await before sendCommand: commands reach the tab in the order they came.
        return this.command(client, msg);
      default:
        return Promise.reject(new Error(`unknown request ${JSON.stringify(msg.type)}: this extension speaks protocol ${PROTOCOL}`));
    }
  }

  private async connect(client: Client): Promise<Message> {
    await this.refreshTabs();
    const told = this.told.get(client.id)!;
    const tabs: TabInfo[] = [];
    for (const tab of this.tabs.values()) {
      if (!this.visible(client, tab.id)) continue;
      told.add(tab.id);
      tabs.push(this.view(client, tab));
    }
    return { type: 'connected', browser: this.browserInfo, tabs };
  }

  /** Set by background.ts from the browser it runs in. */
  browserInfo: BrowserInfo = { name: 'Chromium', version: '', userAgent: '' };

  private async openTab(client: Client, url: unknown, focus: unknown): Promise<Message> {
    if (typeof url !== 'string' || !OPENABLE.test(url)) {
      throw new Error(`openTab needs a url that is http(s), file, data or about:blank, got ${JSON.stringify(url)}`);
    }
    const raw = await this.browser.createTab(url, focus !== false);
    if (raw.id === undefined) throw new Error('the browser opened no tab');
    this.agentTabs.set(raw.id, { folder: client.folder, pid: client.pid });
    this.persist();
    const targets = await this.browser.targetIds();
    const info = toInfo(raw, targets.get(raw.id) ?? '');
    this.tabs.set(raw.id, info);
    this.sync(raw.id);
    this.onChange();
    return { type: 'result', result: this.view(client, info) };
  }

  /** A tab the coordinator's connection took back, given to a new tab the
   * agent asked for: at url (about:blank leaves it as it is), in front if
   * focus. Only this coordinator's own agent tab. */
  private async reuseTab(client: Client, tabId: unknown, url: unknown, focus: unknown): Promise<Message> {
    const tab = this.seenTab(client, tabId);
    const o = this.agentTabs.get(tab.id);
    if (o?.folder !== client.folder || o.pid !== client.pid) throw new Error(`tab ${tab.id} is not a tab this coordinator opened`);
    if (typeof url !== 'string' || !OPENABLE.test(url)) {
      throw new Error(`reuseTab needs a url that is http(s), file, data or about:blank, got ${JSON.stringify(url)}`);
    }
    if (url !== 'about:blank') await this.browser.navigateTab(tab.id, url);
    if (focus !== false) await this.browser.activateTab(tab.id);
    return { type: 'result', result: this.view(client, tab) };
  }

  private async focusTab(client: Client, tabId: unknown): Promise<Message> {
    const tab = this.seenTab(client, tabId);
    await this.browser.activateTab(tab.id);
    return { type: 'result', result: {} };
  }

  private async closeTab(client: Client, tabId: unknown): Promise<Message> {
    const tab = this.seenTab(client, tabId);
    if (this.agentTabs.get(tab.id)?.folder !== client.folder) {
      throw new Error(`tab ${tab.id} (${tab.title || tab.url}) was not opened by the agent: the coordinator never closes the user's tabs`);
    }
    await this.browser.removeTab(tab.id);
    return { type: 'result', result: {} };
  }

  private async attach(client: Client, tabId: unknown): Promise<Message> {
    const tab = this.seenTab(client, tabId);
    let set = this.attachments.get(tab.id);
    if (!set) {
      try {
        await this.browser.attach(tab.id);
      } catch (err) {
        throw new Error(attachError(tab, err));
      }
      set = this.attachments.get(tab.id) ?? new Set();
      this.attachments.set(tab.id, set);
    }
    set.add(client.id);
    return { type: 'result', result: {} };
  }

  private detach(client: Client, tabId: unknown): Promise<Message> {
    if (typeof tabId !== 'number') return Promise.reject(new Error('detach needs a numeric tabId'));
    const set = this.attachments.get(tabId);
    if (set?.delete(client.id) && set.size === 0) this.detachTab(tabId);
    return Promise.resolve({ type: 'result', result: {} });
  }

  private detachTab(tabId: number): void {
    this.attachments.delete(tabId);
    this.browser.detach(tabId).catch(() => { /* the tab is gone, or the user detached it */ });
  }

  private command(client: Client, msg: Message): Promise<Message> {
    const tabId = msg.tabId;
    const method = msg.method;
    if (typeof tabId !== 'number' || typeof method !== 'string') {
      return Promise.reject(new Error('command needs a numeric tabId and a method'));
    }
    if (!this.attachments.get(tabId)?.has(client.id)) {
      const tab = this.tabs.get(tabId);
      return Promise.reject(new Error(tab && this.visible(client, tabId)
        ? `tab ${tabId} is not attached: attach before sending ${method}`
        : `tab ${tabId} is closed or not shared with this coordinator`));
    }
    const sessionId = typeof msg.sessionId === 'string' && msg.sessionId ? msg.sessionId : undefined;
    return this.browser.sendCommand(tabId, sessionId, method, msg.params ?? {}).then(
      (result) => ({ type: 'result', result: result ?? {} }),
      async (err: unknown) => {
        const text = err instanceof Error ? err.message : String(err);
        const still = await this.browser.getTab(tabId).catch(() => undefined);
        if (!still) {
          const tab = this.tabs.get(tabId);
          throw new Error(`tab ${tabId}${tab ? ` (${tab.title || tab.url})` : ''} was closed while ${method} was running`);
        }
        throw new Error(text);
      },
    );
  }

  // ---- browser events ----

  onTabCreated(raw: RawTab): void {
    if (raw.id === undefined) return;
    const id = raw.id;
    this.tabs.set(id, toInfo(raw, this.tabs.get(id)?.targetId ?? '', this.tabs.get(id)?.openerId));
    void this.browser.targetIds().then((targets) => {
      const tab = this.tabs.get(id);
      if (!tab) return;
      tab.targetId = targets.get(id) ?? tab.targetId;
      this.sync(id);
      this.onChange();
    });
  }

  /** A page opened a tab (a link with target=_blank, window.open): a tab
   * opened from an agent's tab is that agent's too, one opened from a shared
   * tab is shared with the same coordinators. (Not tabs.Tab.openerTabId:
   * the browser sets that for tabs the user opens next to another, too.) */
  onNavigationTarget(sourceTabId: number, tabId: number): void {
    const opener = this.agentTabs.get(sourceTabId);
    if (opener !== undefined && !this.agentTabs.has(tabId)) this.agentTabs.set(tabId, { ...opener });
    const sharedWith = this.shared.get(sourceTabId);
    if (sharedWith && !this.shared.has(tabId)) this.shared.set(tabId, new Set(sharedWith));
    const tab = this.tabs.get(tabId);
    const source = this.tabs.get(sourceTabId);
    if (tab && source?.targetId) tab.openerId = source.targetId;
    this.persist();
    if (tab) this.sync(tabId);
    this.onChange();
  }

  onTabUpdated(tabId: number, raw: RawTab): void {
    const old = this.tabs.get(tabId);
    const info = toInfo({ ...raw, id: tabId }, old?.targetId ?? '', old?.openerId);
    this.tabs.set(tabId, info);
    // A tab whose target id the browser did not list yet (a popup, read as
    // it was created) is looked up again on each update until it has one:
    // a coordinator cannot see a tab without it.
    if (old && old.title === info.title && old.url === info.url && info.targetId) return;
    if (!info.targetId) {
      void this.browser.targetIds().then((targets) => {
        const tab = this.tabs.get(tabId);
        if (tab) tab.targetId = targets.get(tabId) ?? '';
        this.sync(tabId);
      });
      return;
    }
    this.sync(tabId);
    this.onChange();
  }

  onTabRemoved(tabId: number): void {
    this.tabs.delete(tabId);
    this.attachments.delete(tabId);
    this.sync(tabId);
    this.forget(tabId);
    this.persist();
    this.onChange();
  }

  onTabActivated(tabId: number): void {
    for (const t of this.tabs.values()) t.active = t.id === tabId;
    for (const client of this.clients.values()) {
      if (this.told.get(client.id)?.has(tabId)) this.send({ type: 'tabFocused', client: client.id, tabId });
    }
    this.onChange();
  }

  onDebuggerEvent(tabId: number, sessionId: string | undefined, method: string, params: unknown): void {
    const set = this.attachments.get(tabId);
    if (!set) return;
    for (const client of set) this.send({ type: 'cdpEvent', client, tabId, ...(sessionId ? { sessionId } : {}), method, params: params ?? {} });
  }

  onDebuggerDetach(tabId: number, reason: string): void {
    const set = this.attachments.get(tabId);
    if (!set) return;
    this.attachments.delete(tabId);
    for (const client of set) this.send({ type: 'detached', client, tabId, reason });
  }

  // ---- the popup ----

  popupState(activeTabId: number | undefined): PopupState {
    const clients = [...this.clients.values()].map((c) => ({
      ...c,
      tabs: [...this.tabs.values()].filter((t) => this.visible(c, t.id)).map((t) => this.view(c, t)),
    }));
    const active = activeTabId !== undefined ? this.tabs.get(activeTabId) : undefined;
    return {
      connected: this.hostReady,
      error: this.fatal,
      allTabs: this.allTabs,
      clients,
      activeTab: active && {
        id: active.id,
        title: active.title,
        url: active.url,
        sharedWith: [...(this.shared.get(active.id) ?? [])],
        openedBy: this.agentTabs.get(active.id)?.folder,
      },
    };
  }

  /** Shares a tab with the coordinators of folder (the popup's "Share this tab"). */
  share(tabId: number, folder: string): void {
    if (!this.tabs.has(tabId)) throw new Error(`tab ${tabId} is not open`);
    this.addShare(tabId, folder);
  }

  /** Keeps a tab an agent opened (the popup's "Keep this tab"): it becomes the
   * user's, shared with that agent's coordinators, so their stop or exit no
   * longer closes it and they can never close it. */
  keep(tabId: number): void {
    const owner = this.agentTabs.get(tabId);
    if (owner === undefined) throw new Error(`tab ${tabId} was not opened by an agent`);
    this.agentTabs.delete(tabId);
    this.addShare(tabId, owner.folder);
  }

  private addShare(tabId: number, folder: string): void {
    const set = this.shared.get(tabId) ?? new Set<string>();
    set.add(folder);
    this.shared.set(tabId, set);
    this.persist();
    this.sync(tabId);
    this.onChange();
  }

  /** Stops sharing a tab with folder; its coordinators let go of it. */
  unshare(tabId: number, folder: string): void {
    const set = this.shared.get(tabId);
    if (!set?.delete(folder)) return;
    if (set.size === 0) this.shared.delete(tabId);
    this.persist();
    this.sync(tabId);
    this.onChange();
  }

  setAllTabs(on: boolean): void {
    this.allTabs = on;
    this.persist();
    for (const id of this.tabs.keys()) this.sync(id);
    this.onChange();
  }

  // ---- visibility ----

  private visible(client: Client, tabId: number): boolean {
    const tab = this.tabs.get(tabId);
    if (!tab) return false;
    if (this.agentTabs.get(tabId)?.folder === client.folder) return true;
    if (this.shared.get(tabId)?.has(client.folder)) return true;
    return this.allTabs && !isRestrictedUrl(tab.url);
  }

  /** Tells each coordinator what changed about tabId for it: it appeared,
   * changed, or went away (closed, or no longer shared). */
  private sync(tabId: number): void {
    const tab = this.tabs.get(tabId);
    for (const client of this.clients.values()) {
      const told = this.told.get(client.id)!;
      const visible = this.visible(client, tabId);
      if (visible && tab) {
        this.send({ type: told.has(tabId) ? 'tabUpdated' : 'tabCreated', client: client.id, tab: this.view(client, tab) });
        told.add(tabId);
      } else if (told.delete(tabId)) {
        const set = this.attachments.get(tabId);
        if (set?.delete(client.id) && set.size === 0) this.detachTab(tabId);
        this.send({ type: 'tabClosed', client: client.id, tabId });
      }
    }
  }

  /** A visible tab the coordinator knows of, else an error that says why not. */
  private seenTab(client: Client, tabId: unknown): TabInfo {
    if (typeof tabId !== 'number') throw new Error(`a numeric tabId is needed, got ${JSON.stringify(tabId)}`);
    const tab = this.tabs.get(tabId);
    if (!tab || !this.visible(client, tabId)) {
      throw new Error(`tab ${tabId} is closed or not shared with this coordinator (${client.folder}): the user shares tabs from the extension's popup`);
    }
    return tab;
  }

  private view(client: Client, tab: TabInfo): TabInfo {
    const o = this.agentTabs.get(tab.id);
    const agent = o?.folder === client.folder;
    return { ...tab, agent, ...(agent && o.pid === client.pid ? { own: true } : {}) };
  }

  private forget(tabId: number): void {
    this.agentTabs.delete(tabId);
    this.shared.delete(tabId);
  }

  private persist(): void {
    this.save({
      agentTabs: Object.fromEntries([...this.agentTabs].map(([k, v]) => [String(k), { ...v }])),
      shared: Object.fromEntries([...this.shared].map(([k, v]) => [String(k), [...v]])),
      allTabs: this.allTabs,
      orphans: this.orphans.map(({ folder, pid, until }) => ({ folder, pid, until })),
    });
  }
}

function toInfo(t: RawTab, targetId: string, openerId?: string): TabInfo {
  const info: TabInfo = { id: t.id!, targetId, title: t.title ?? '', url: t.url || t.pendingUrl || '', active: !!t.active };
  if (openerId) info.openerId = openerId;
  return info;
}

function attachError(tab: TabInfo, err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  if (/another debugger/i.test(text)) {
    return `tab ${tab.id} (${tab.title || tab.url}) is being debugged by another tool (DevTools or another extension): close it there and try again`;
  }
  if (/cannot access|cannot attach/i.test(text)) {
    return `tab ${tab.id} (${tab.url}) cannot be debugged: the browser keeps extensions out of its own pages (${text})`;
  }
  return `attach to tab ${tab.id} (${tab.title || tab.url}): ${text}`;
}
