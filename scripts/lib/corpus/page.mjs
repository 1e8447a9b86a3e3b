// The corpus's own eyes and hands in a tab, through the coordinator's CDP
// endpoint (the same way any CDP client reaches it): evaluate to check what
// a page shows, and the few direct actions that set up a task's starting
// state (a todo app with items in it). Never used to do a task itself.
import WebSocket from 'ws';

/**
 * Opens a CDP session on the page target id at endpoint (the coordinator's
 * CDP endpoint, with its secret). Resolves to { eval(fn, ...args), key(name),
 * insertText(text), navigate(url), dialogs, dialogOpen, dialog(accept, text), errors, close() }.
 */
export async function attachPage(endpoint, targetId) {
  const list = await (await fetch(`${endpoint}/json/list`, { signal: AbortSignal.timeout(10_000) })).json();
  const target = list.find((t) => t.id === targetId);
  if (!target) throw new Error(`no page target ${targetId} at the coordinator's endpoint`);
  const ws = new WebSocket(target.webSocketDebuggerUrl, { perMessageDeflate: false, maxPayload: 1 << 28 });
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  let id = 0;
  const waiting = new Map();
  const dialogs = [];
  const errors = [];
  const state = { dialogOpen: false, loads: [] };
  ws.on('message', (data) => {
    const m = JSON.parse(data);
    if (m.method === 'Page.javascriptDialogOpening') { dialogs.push(m.params); state.dialogOpen = true; }
    if (m.method === 'Page.javascriptDialogClosed') state.dialogOpen = false;
    if (m.method === 'Page.loadEventFired') for (const w of state.loads.splice(0)) w();
    if (m.method === 'Runtime.exceptionThrown') errors.push(m.params.exceptionDetails.exception?.description?.split('\n')[0] ?? m.params.exceptionDetails.text);
    if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error') errors.push(`${m.params.entry.text} ${m.params.entry.url ?? ''}`.trim());
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.error) w.reject(new Error(`${w.method}: ${m.error.message}`));
    else w.resolve(m.result);
  });
  ws.on('close', () => { for (const w of waiting.values()) w.reject(new Error('the page\'s CDP session closed')); waiting.clear(); });
  const send = (method, params = {}, ms = 15_000) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => { waiting.delete(n); reject(new Error(`${method}: no answer in ${ms} ms`)); }, ms);
    const n = ++id;
    waiting.set(n, { method, resolve: (v) => { clearTimeout(timer); resolve(v); }, reject: (e) => { clearTimeout(timer); reject(e); } });
    if (ws.readyState !== WebSocket.OPEN) { waiting.get(n).reject(new Error('the page\'s CDP session is closed')); return; }
    ws.send(JSON.stringify({ id: n, method, params }));
  });
  await send('Page.enable');
  await send('Runtime.enable');
  await send('Log.enable');
  return {
    dialogs,
    /** The page's uncaught exceptions and error log entries seen since the session began (replayed ones too). */
    errors,
    /** Runs fn(...args) in the page (a function's source, so it can use the page's DOM) and returns its JSON value. */
    async eval(fn, ...args) {
      const r = await send('Runtime.evaluate', {
        expression: `(${fn})(...${JSON.stringify(args)})`, returnByValue: true, awaitPromise: true, userGesture: true,
      });
      if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return r.result.value;
    },
    /** Types text into the focused element, as a keyboard would (an IME commit). */
    insertText: (text) => send('Input.insertText', { text }),
    /** Presses and releases a key (Enter, Escape, Tab) on the focused element. */
    async key(name) {
      const codes = { Enter: 13, Escape: 27, Tab: 9 };
      const base = { key: name, code: name, windowsVirtualKeyCode: codes[name], nativeVirtualKeyCode: codes[name] };
      await send('Input.dispatchKeyEvent', { type: 'keyDown', ...base, ...(name === 'Enter' ? { text: '\r' } : {}) });
      await send('Input.dispatchKeyEvent', { type: 'keyUp', ...base });
    },
    /** Navigates the tab to url and waits (bounded) for its load event. */
    async navigate(url, ms = 30_000) {
      const loaded = new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${url}: no load event in ${ms} ms`)), ms);
        state.loads.push(() => { clearTimeout(timer); resolve(); });
      });
      errors.length = 0; // the previous document's
      const r = await send('Page.navigate', { url });
      if (r.errorText) throw new Error(`${url}: ${r.errorText}`);
      await loaded;
    },
    /** Whether a JavaScript dialog is open now. */
    get dialogOpen() { return state.dialogOpen; },
    /** Answers an open JavaScript dialog. */
    dialog: (accept, promptText) => send('Page.handleJavaScriptDialog', { accept, ...(promptText === undefined ? {} : { promptText }) }, 5_000),
    close: () => ws.close(),
  };
}

/** Every element matching selector, in the document and in open shadow roots (Polymer's apps keep their list there). */
export function deepAllSource() {
  return `function deepAll(selector, root = document) {
    let out, every;
    try {
      out = Array.from(root.querySelectorAll(selector));
      every = Array.from(root.querySelectorAll('*'));
    } catch {
      return []; // a shadow-DOM polyfill's stand-in root
    }
    for (const el of every) if (el.shadowRoot && el.shadowRoot !== root) out.push(...deepAll(selector, el.shadowRoot));
    return out;
  }`;
}
