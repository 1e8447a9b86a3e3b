// Pages that ask with alert/confirm/prompt, and radios without a value
// attribute (read by the page's script, which sends the chosen label). No
// npm package found ships these with an effect a test can check, so these
// two small pages are written here, plainly, the way such pages are.
import { valuesOf } from '../server.mjs';

const accountPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Your account</title></head>
<body><main><h1>Your account</h1>
<section><h2>Shopping list</h2><p id="list-name">Shopping list</p>
<button type="button" id="rename">Rename list</button></section>
<section><h2>Profile</h2>
<form id="profile"><label>Display name <input name="name"></label> <button>Save profile</button></form></section>
<section><h2>Danger zone</h2><button type="button" id="delete">Delete account</button></section>
<p id="status" role="status"></p></main>
<script>
const status = (t) => { document.getElementById('status').textContent = t; };
const post = (path, body) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
document.getElementById('delete').addEventListener('click', async () => {
  if (!confirm('Delete your account? This cannot be undone.')) return status('Kept your account.');
  await post('/dialogs/delete', {});
  status('Your account was deleted.');
});
document.getElementById('rename').addEventListener('click', async () => {
  const name = prompt('New name for the list?', 'Shopping list');
  if (!name) return;
  await post('/dialogs/rename', { name });
  document.getElementById('list-name').textContent = name;
});
document.getElementById('profile').addEventListener('submit', async (e) => {
  e.preventDefault();
  await post('/dialogs/profile', { name: e.target.elements.name.value });
  alert('Profile saved.');
  status('Saved.');
});
</script></body></html>`;

const coffeePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Order a coffee</title></head>
<body><main><h1>Order a coffee</h1>
<form id="order">
  <fieldset><legend>Size</legend>
    <label><input type="radio" name="size"> Small</label>
    <label><input type="radio" name="size" checked> Medium</label>
    <label><input type="radio" name="size"> Large</label>
  </fieldset>
  <fieldset><legend>Milk</legend>
    <label><input type="radio" name="milk" checked> Whole</label>
    <label><input type="radio" name="milk"> Oat</label>
  </fieldset>
  <button>Place order</button>
</form><p id="status" role="status"></p></main>
<script>
document.getElementById('order').addEventListener('submit', async (e) => {
  e.preventDefault();
  const chosen = (name) => document.querySelector('input[name=' + name + ']:checked')?.parentElement.textContent.trim();
  await fetch('/dialogs/order', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ size: chosen('size'), milk: chosen('milk') }) });
  document.getElementById('status').textContent = 'Ordered a ' + chosen('size').toLowerCase() + ' coffee with ' + chosen('milk').toLowerCase() + ' milk.';
});
</script></body></html>`;

const ok = { body: 'ok', type: 'text/plain' };

export function dialogRoutes() {
  return {
    'GET /dialogs/account': () => ({ body: accountPage }),
    'GET /dialogs/coffee': () => ({ body: coffeePage }),
    'POST /dialogs/delete': () => ok,
    'POST /dialogs/rename': () => ok,
    'POST /dialogs/profile': () => ok,
    'POST /dialogs/order': () => ok,
  };
}

const posted = (pathname, pred, want) => ({ received }) => {
  const r = received.filter((x) => x.method === 'POST' && x.path === pathname).at(-1);
  const good = !!r && pred(r);
  return { ok: good, detail: good ? undefined : `the server received ${r ? JSON.stringify(r.json ?? r.fields) : 'nothing'} at ${pathname}; expected ${want}` };
};

export function dialogTasks() {
  const base = { app: 'dialogs', url: '/dialogs/account', effect: 'dialog', failureClass: 'a dialog freezes everything' };
  return [
    { ...base, id: 'dialogs/confirm-delete', goal: 'Delete my account (and confirm it)', intent: { action: 'delete', object: 'account', dialog: { accept: true } }, check: posted('/dialogs/delete', () => true, 'a delete') },
    { ...base, id: 'dialogs/prompt-rename', goal: 'Rename the shopping list to "Groceries"', intent: { action: 'edit', object: 'list', dialog: { accept: true, text: 'Groceries' } }, check: posted('/dialogs/rename', (r) => valuesOf(r, 'name').includes('Groceries'), 'name=Groceries') },
    { ...base, id: 'dialogs/alert-save', goal: 'Set my display name to Ada and save the profile', intent: { action: 'submit', object: 'profile', fields: { 'Display name': 'Ada' }, dialog: { accept: true } }, check: posted('/dialogs/profile', (r) => valuesOf(r, 'name').includes('Ada'), 'name=Ada') },
    {
      app: 'coffee', id: 'coffee/radios-without-value', url: '/dialogs/coffee', effect: 'region', failureClass: 'hidden and duplicate controls (radios without value)',
      goal: 'Order a large coffee with oat milk', intent: { action: 'order', object: 'coffee', fields: { Size: 'Large', Milk: 'Oat' } },
      check: posted('/dialogs/order', (r) => r.json?.size === 'Large' && r.json?.milk === 'Oat', 'size Large, milk Oat'),
    },
  ];
}
