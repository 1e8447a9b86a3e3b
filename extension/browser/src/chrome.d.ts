// The few chrome.* APIs this extension uses, declared here instead of
// pulling in @types/chrome: only chromeApi.ts, background.ts and popup.ts
// touch them; the logic (bridge.ts) sees the Browser adapter.
declare namespace chrome {
  export namespace runtime {
    export interface Port {
      name: string;
      postMessage(msg: unknown): void;
      disconnect(): void;
      onMessage: Event<(msg: any, port: Port) => void>;
      onDisconnect: Event<(port: Port) => void>;
    }
    export interface MessageSender { id?: string; url?: string }
    export const id: string;
    export const lastError: { message?: string } | undefined;
    export function connectNative(application: string): Port;
    export function getManifest(): { version: string; [k: string]: unknown };
    export function sendMessage(msg: unknown): Promise<any>;
    export const onMessage: Event<(msg: any, sender: MessageSender, sendResponse: (r: unknown) => void) => boolean | void>;
    export const onSuspend: Event<() => void>;
    export const onStartup: Event<() => void>;
    export const onInstalled: Event<() => void>;
  }
  export namespace tabs {
    export interface Tab { id?: number; title?: string; url?: string; pendingUrl?: string; active: boolean; windowId: number }
    export function query(q: { active?: boolean; currentWindow?: boolean; lastFocusedWindow?: boolean }): Promise<Tab[]>;
    export function get(tabId: number): Promise<Tab>;
    export function create(p: { url: string; active: boolean }): Promise<Tab>;
    export function remove(tabId: number): Promise<void>;
    export function update(tabId: number, p: { active?: boolean; url?: string }): Promise<Tab>;
    export const onCreated: Event<(tab: Tab) => void>;
    export const onUpdated: Event<(tabId: number, change: { title?: string; url?: string; status?: string }, tab: Tab) => void>;
    export const onRemoved: Event<(tabId: number) => void>;
    export const onActivated: Event<(info: { tabId: number; windowId: number }) => void>;
    export const onReplaced: Event<(added: number, removed: number) => void>;
  }
  export namespace webNavigation {
    export const onCreatedNavigationTarget: Event<(details: { sourceTabId: number; tabId: number; url: string }) => void>;
  }
  export namespace windows {
    export function update(windowId: number, p: { focused: boolean }): Promise<unknown>;
  }
  // `debugger` is a reserved word: declared under another name and exported as it (as @types/chrome does).
  export namespace _debugger {
    export interface Debuggee { tabId?: number; targetId?: string; extensionId?: string }
    export interface DebuggerSession extends Debuggee { sessionId?: string }
    export interface TargetInfo { id: string; tabId?: number; type: string; attached: boolean; url: string; title: string; extensionId?: string }
    export function attach(target: Debuggee, version: string): Promise<void>;
    export function detach(target: Debuggee): Promise<void>;
    export function sendCommand(target: DebuggerSession, method: string, params?: unknown): Promise<unknown>;
    export function getTargets(): Promise<TargetInfo[]>;
    export const onEvent: Event<(source: DebuggerSession, method: string, params?: unknown) => void>;
    export const onDetach: Event<(source: Debuggee, reason: string) => void>;
  }
  export { _debugger as debugger };
  export namespace storage {
    export interface Area {
      get(keys: string | string[]): Promise<Record<string, any>>;
      set(items: Record<string, unknown>): Promise<void>;
    }
    export const session: Area;
    export const local: Area;
  }
  export namespace alarms {
    export function create(name: string, info: { periodInMinutes?: number; when?: number }): Promise<void>;
    export function clear(name: string): Promise<boolean>;
    export const onAlarm: Event<(alarm: { name: string }) => void>;
  }
  export namespace action {
    export function setBadgeText(p: { text: string }): Promise<void>;
    export function setBadgeBackgroundColor(p: { color: string }): Promise<void>;
    export function setTitle(p: { title: string }): Promise<void>;
  }
  export interface Event<T extends (...args: any[]) => any> {
    addListener(fn: T): void;
    removeListener(fn: T): void;
  }
}
