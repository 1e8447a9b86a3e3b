// The Browser adapter over chrome.*: one line per call, so bridge.ts holds
// every decision and runs under plain Node in the tests.
import type { Browser, RawTab } from './bridge.js';

export const chromeBrowser: Browser = {
  queryTabs: () => chrome.tabs.query({}),
  getTab: (tabId) => chrome.tabs.get(tabId).catch(() => undefined),
  createTab: (url, active) => chrome.tabs.create({ url, active }),
  removeTab: (tabId) => chrome.tabs.remove(tabId),
  async activateTab(tabId) {
    const tab = await chrome.tabs.update(tabId, { active: true });
    await chrome.windows.update(tab.windowId, { focused: true }).catch(() => undefined);
  },
  async navigateTab(tabId, url) {
    await chrome.tabs.update(tabId, { url });
  },
  async targetIds() {
    const out = new Map<number, string>();
    for (const t of await chrome.debugger.getTargets()) {
      if (t.type === 'page' && t.tabId !== undefined) out.set(t.tabId, t.id);
    }
    return out;
  },
  attach: (tabId) => chrome.debugger.attach({ tabId }, '1.3'),
  detach: (tabId) => chrome.debugger.detach({ tabId }),
  sendCommand: (tabId, sessionId, method, params) =>
    chrome.debugger.sendCommand(sessionId ? { tabId, sessionId } : { tabId }, method, params),
};

export type { RawTab };
