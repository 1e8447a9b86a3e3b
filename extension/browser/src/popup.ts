// The popup: which coordinators use this browser, which tabs each can see,
// and "Share this tab" / "Stop sharing" (or, for a tab an agent opened,
// "Keep this tab") for the tab in front. It asks the
// service worker (background.ts) for its state and sends it the user's choices.
import type { PopupState } from './bridge.js';
import { popupLines } from './popupView.js';

const $ = (id: string) => document.getElementById(id)!;

async function render(): Promise<void> {
  const state = (await chrome.runtime.sendMessage({ type: 'popup:get' })) as PopupState;
  const view = popupLines(state);
  const status = $('status');
  status.textContent = view.status;
  status.className = view.error ? 'status error' : 'status';

  const clients = $('clients');
  clients.replaceChildren();
  for (const c of view.clients) {
    const li = document.createElement('li');
    li.className = 'client';
    const folder = document.createElement('div');
    folder.append(span('folder', c.folder), span('pid', ` pid ${c.pid}`));
    li.append(folder);
    const tabs = document.createElement('ul');
    tabs.className = 'tabs';
    for (const t of c.tabs) {
      const item = document.createElement('li');
      item.textContent = t;
      tabs.append(item);
    }
    if (c.tabs.length === 0) tabs.append(span('muted', 'no tabs yet'));
    li.append(tabs);
    clients.append(li);
  }
  if (view.clients.length === 0) clients.append(span('muted', 'none connected'));

  const section = $('this-tab');
  section.hidden = !view.activeTab;
  if (view.activeTab) {
    const active = view.activeTab;
    $('tab-title').textContent = active.label;
    const buttons = $('share-buttons');
    buttons.replaceChildren();
    for (const b of active.buttons) {
      const button = document.createElement('button');
      button.textContent = b.label;
      button.onclick = async () => {
        await chrome.runtime.sendMessage({ type: b.keep ? 'popup:keep' : b.share ? 'popup:share' : 'popup:unshare', tabId: active.id, folder: b.folder });
        await render();
      };
      buttons.append(button);
    }
    if (active.note) buttons.append(span('muted', active.note));
  }
  const all = $('all-tabs') as HTMLInputElement;
  all.checked = state.allTabs;
  all.onchange = async () => {
    await chrome.runtime.sendMessage({ type: 'popup:allTabs', on: all.checked });
    await render();
  };
}

function span(cls: string, text: string): HTMLSpanElement {
  const s = document.createElement('span');
  s.className = cls;
  s.textContent = text;
  return s;
}

void render();
