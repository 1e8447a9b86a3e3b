// End to end: JavaScript dialogs through the page tools. The coordinator
// (the official MCP SDK as client) and a real Chromium: a dialog a page-tool
// call opens is in the call's answer, every call answers with it while it is
// open, coordinator_handle_dialog answers it (the progressive surface:
// handle_dialog, listed while a dialog is open) and the call goes on. What
// the page did is checked on the server, never in the tools' answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startCoordinator, call, coordinatorDirs } from '../lib/mcp.mjs';
import { listen } from '../lib/pageserver.mjs';
import { watchListChanged, toolNames, untilTools } from '../lib/listchanged.mjs';

const accountPage = `<!doctype html><html><head><meta charset="utf-8"><title>Your account</title></head>
<body><main><h1>Your account</h1>
<button type="button" id="rename">Rename list</button> <button type="button" id="delete">Delete account</button>
<p id="status" role="status"></p></main>
<script>
const post = (p, body) => fetch(p, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
document.getElementById('delete').onclick = async () => {
  if (!confirm('Delete your account? This cannot be undone.')) { document.getElementById('status').textContent = 'Kept.'; return; }
  await post('/delete', {});
  document.getElementById('status').textContent = 'Deleted.';
};
document.getElementById('rename').onclick = async () => {
  const name = prompt('New name for the list?', 'Shopping list');
  if (!name) return;
  await post('/rename', { name });
  document.getElementById('status').textContent = 'Renamed.';
};
</script></body></html>`;

const welcomePage = `<!doctype html><html><head><meta charset="utf-8"><title>Welcome</title></head>
<body><script>alert('This site uses cookies.')</script><main><h1>Welcome</h1>
<form action="/search"><label>Search <input name="q"></label><button>Search</button></form></main></body></html>`;

let work;
let site;
const posts = [];
before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bcdialog-'));
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      if (req.method === 'POST') posts.push({ path: u.pathname, form: Object.fromEntries(new URLSearchParams(body)) });
      const pages = { '/account.html': accountPage, '/welcome.html': welcomePage };
      res.writeHead(u.pathname === '/favicon.ico' ? 204 : 200, { 'content-type': 'text/html; charset=utf-8' }).end(pages[u.pathname] ?? '<!doctype html><title>ok</title><h1>ok</h1>');
    });
  });
  site = await listen(server, '127.0.0.1');
});
after(async () => {
  await site?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const dirs = (name) => coordinatorDirs(work, name);

const posted = (p) => posts.filter((x) => x.path === p);

test('coordinator_handle_dialog: a confirm and a prompt a page-tool call opens, and an alert as a tab opens', async (t) => {
  const coord = await startCoordinator(dirs('default'));
  t.after(() => coord.close());
  const c = coord.client;

  // An alert as the page loads: the tab opens, focused, and says so.
  const opened = await call(c, 'coordinator_open_tab', { url: `${site.url}/welcome.html` });
  assert.equal(opened.structuredContent.focused, true);
  assert.equal(opened.structuredContent.dialog?.type, 'alert');
  assert.match(opened.text, /coordinator_handle_dialog/);
  const listing = await call(c, 'coordinator_page_tools');
  assert.equal(listing.structuredContent.dialog?.message, 'This site uses cookies.');
  const closed = await call(c, 'coordinator_handle_dialog', { accept: true });
  assert.match(closed.text, /alert dialog was closed/);
  assert.ok(closed.structuredContent.tools.some((n) => n.startsWith('search')), `after the alert the page's tools: ${closed.text}`);

  await call(c, 'coordinator_open_tab', { url: `${site.url}/account.html` });
  await call(c, 'coordinator_page_tools');

  // A confirm the call opens: the call's answer says so; nothing reached the server.
  const del = await call(c, 'coordinator_call_page_tool', { name: 'delete_account' }, { allowError: true });
  assert.equal(del.isError, true);
  assert.match(del.text, /confirm dialog/);
  assert.match(del.text, /Delete your account\? This cannot be undone\./);
  // While it is open every call answers with it.
  const other = await call(c, 'coordinator_call_page_tool', { name: 'rename_list' }, { allowError: true });
  assert.equal(other.isError, true);
  assert.match(other.text, /confirm dialog/);
  assert.equal(posted('/delete').length, 0);
  // Dismissed: the page keeps the account (no post); accepted, the next time: deleted.
  await call(c, 'coordinator_handle_dialog', { accept: false });
  assert.equal(posted('/delete').length, 0);
  await call(c, 'coordinator_call_page_tool', { name: 'delete_account' }, { allowError: true });
  const accepted = await call(c, 'coordinator_handle_dialog', { accept: true });
  assert.match(accepted.text, /confirm dialog was accepted/);
  assert.equal(posted('/delete').length, 1, 'the delete reached the server once the confirm was accepted');

  // A prompt: its answer is what the page sends.
  await call(c, 'coordinator_call_page_tool', { name: 'rename_list' }, { allowError: true });
  await call(c, 'coordinator_handle_dialog', { accept: true, promptText: 'Groceries' });
  assert.deepEqual(posted('/rename').map((p) => p.form.name), ['Groceries']);

  const none = await call(c, 'coordinator_handle_dialog', { accept: true }, { allowError: true });
  assert.equal(none.isError, true);
  assert.match(none.text, /no JavaScript dialog is open/);
});

test('progressive: handle_dialog is listed while a dialog is open (also one as a tab opens), and answers it', async (t) => {
  const coord = await startCoordinator({ ...dirs('prog'), args: ['--tools', 'progressive'] });
  t.after(() => coord.close());
  const c = coord.client;
  const changes = watchListChanged(c);
  await call(c, 'connect_browser', { launch: true });
  // An alert as the page loads: open_tab answers (its shape is the seed's), handle_dialog is listed.
  const welcome = await call(c, 'open_tab', { url: `${site.url}/welcome.html` });
  assert.equal(welcome.structuredContent.focused, true);
  await untilTools(c, changes, (names) => names.includes('handle_dialog'), { what: 'handle_dialog, for the alert as the page loads' });
  await call(c, 'handle_dialog', { accept: true });
  await untilTools(c, changes, (names) => !names.includes('handle_dialog') && names.some((n) => n.startsWith('search')), { what: 'the page\'s tools once the alert is closed' });

  await call(c, 'open_tab', { url: `${site.url}/account.html` });
  assert.ok(!(await toolNames(c)).includes('handle_dialog'), 'no dialog, no handle_dialog');

  const deletes = posted('/delete').length;
  const next = changes.next('the dialog');
  const del = await call(c, 'delete_account', {}, { allowError: true });
  assert.equal(del.isError, true);
  assert.match(del.text, /handle_dialog/);
  await next;
  assert.ok((await toolNames(c)).includes('handle_dialog'));
  await call(c, 'handle_dialog', { accept: true });
  assert.equal(posted('/delete').length, deletes + 1, 'the delete reached the server once the confirm was accepted');
});
