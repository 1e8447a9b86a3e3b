// What the popup shows, as plain data: tested in Node, rendered by popup.ts.
import type { PopupState } from './bridge.js';
import { isRestrictedUrl } from './bridge.js';

export interface PopupView {
  status: string;
  error: boolean;
  clients: Array<{ folder: string; pid: number; tabs: string[] }>;
  activeTab?: {
    id: number;
    label: string;
    /** share: share with folder; keep: keep a tab an agent opened; neither: stop sharing. */
    buttons: Array<{ label: string; folder: string; share: boolean; keep?: boolean }>;
    note?: string;
  };
}

export function popupLines(s: PopupState): PopupView {
  const error = !!s.error || !s.connected;
  const status = s.error
    ? s.error
    : !s.connected
      ? 'Not connected to browser-coordinator: install its native host ("browser-coordinator install --host chrome") and reload this extension.'
      : s.clients.length === 0
        ? 'Ready. No coordinator is using this browser yet (start one with --browser everyday).'
        : `${s.clients.length} coordinator${s.clients.length === 1 ? '' : 's'} connected. Agents see the tabs they opened${s.allTabs ? ' and every other tab' : ' and the tabs you share'}.`;
  const clients = s.clients.map((c) => ({
    folder: c.folder,
    pid: c.pid,
    tabs: c.tabs.map((t) => `${t.agent ? 'opened by the agent' : 'shared'} · ${t.title || t.url}`),
  }));
  let activeTab: PopupView['activeTab'];
  const a = s.activeTab;
  if (a && isRestrictedUrl(a.url)) {
    activeTab = { id: a.id, label: a.title || a.url, buttons: [], note: 'The browser keeps extensions out of this page: it cannot be shared.' };
  } else if (a) {
    const folders = [...new Set(s.clients.map((c) => c.folder))];
    const buttons = folders.map((folder) => {
      const shared = a.sharedWith.includes(folder);
      const name = folders.length > 1 ? ` with ${baseName(folder)}` : '';
      return { label: shared ? `Stop sharing${name}` : `Share this tab${name}`, folder, share: !shared };
    });
    // Shares with a folder that is not connected now can still be stopped.
    for (const folder of a.sharedWith) {
      if (!folders.includes(folder)) buttons.push({ label: `Stop sharing with ${baseName(folder)}`, folder, share: false });
    }
    const note = a.openedBy ? `An agent opened this tab (${baseName(a.openedBy)}): it closes when that agent stops, unless you keep it.`
      : buttons.length === 0 ? 'Start a coordinator to share this tab with it.' : undefined;
    const shown = a.openedBy
      ? [{ label: 'Keep this tab', folder: a.openedBy, share: false, keep: true }, ...buttons.filter((b) => !b.share)]
      : buttons;
    activeTab = { id: a.id, label: a.title || a.url, buttons: shown, note };
  }
  return { status, error, clients, activeTab };
}

function baseName(folder: string): string {
  const parts = folder.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? folder;
}
