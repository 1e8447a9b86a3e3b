// TodoMVC (npm `todomvc`): the same todo app written in 70 frameworks. Each
// app is one session of five tasks on one tab — add, toggle, edit, delete,
// filter — each starting from the state it needs (set up by the corpus's
// own hands when an earlier task left it otherwise) and checked in the DOM
// by the TodoMVC spec's markup (#todo-list/.todo-list items, their label,
// the completed class), never by a tool's answer. An app that the corpus's
// own hands cannot drive (its package lacks the files it loads) is not
// runnable, and says why.
import fs from 'node:fs';
import path from 'node:path';
import { root } from '../../paths.mjs';
import { deepAllSource } from '../page.mjs';

const pkg = path.join(root, 'node_modules', 'todomvc');

/**
 * The apps: { name, path } for each folder of examples/, at the entry the
 * package's own site links to (examples/<app>/ for most; a built folder for
 * a few), or { name, skip } when the package ships no page to serve (apps
 * that need their own server: derby, meteor, socketstream).
 */
export function todoApps() {
  const site = fs.readFileSync(path.join(pkg, 'index.html'), 'utf8');
  const linked = new Map();
  for (const [, href] of site.matchAll(/href="examples\/([^"]+)"/g)) {
    const name = href.split('/')[0];
    if (!linked.has(name)) linked.set(name, href);
  }
  return fs.readdirSync(path.join(pkg, 'examples')).sort().map((name) => {
    let href = linked.get(name) ?? (fs.existsSync(path.join(pkg, 'examples', name, 'index.html')) ? `${name}/` : undefined);
    if (!href) return { name, skip: 'the package ships no page for it: it needs its own server (not a static app)' };
    if (href.endsWith('/')) href += 'index.html';
    return { name, path: `/todomvc/examples/${href}` };
  });
}

// The page's todos as a person sees them.
const todosSource = `() => { ${deepAllSource()}
  const input = deepAll('#new-todo, .new-todo')[0];
  const items = deepAll('#todo-list li, .todo-list li').map((li) => {
    const label = li.querySelector('label');
    const toggle = li.querySelector('input.toggle, input[type=checkbox]');
    const r = li.getBoundingClientRect();
    return {
      text: (label?.textContent ?? '').trim(),
      completed: li.classList.contains('completed') || !!toggle?.checked,
      visible: r.width > 0 && r.height > 0 && getComputedStyle(li).visibility !== 'hidden',
    };
  }).filter((x) => x.text);
  return { ready: !!input, items, hash: location.hash };
}`;

/** The page's todos: { ready, items: [{ text, completed, visible }], hash }. */
export const todos = (page) => page.eval(todosSource);

/** Types text into the new-todo input and presses Enter, by hand. */
async function typeByHand(page, text) {
  const focus = () => page.eval(`() => { ${deepAllSource()} const i = deepAll('#new-todo, .new-todo')[0]; if (!i) return false;
    i.focus(); if (i.value) { i.value = ''; i.dispatchEvent(new Event('input', { bubbles: true })); } return true; }`);
  // An app that renders its view again after start replaces the input: wait for the new one.
  if (!(await focus()) && !(await until(page, (x) => x.ready, 'its new-todo input again').then(focus))) throw new Error('no new-todo input');
  await page.insertText(text);
  await page.key('Enter');
}

/**
 * Adds a todo by hand. An app whose input is in the page before its script
 * listens misses the first Enter: typed again once, later.
 */
async function addByHand(page, text) {
  await typeByHand(page, text);
  try {
    return await until(page, (x) => has(x, text), `"${text}" after adding it by hand`, 2_000);
  } catch {
    await typeByHand(page, text);
    return until(page, (x) => has(x, text), `"${text}" after adding it by hand (twice)`, 4_000);
  }
}

/** Deletes a todo by hand (its destroy button). */
const deleteByHand = (page, text) => page.eval(`(text) => { ${deepAllSource()}
  const li = deepAll('#todo-list li, .todo-list li').find((x) => (x.querySelector('label')?.textContent ?? '').trim() === text);
  li?.querySelector('.destroy, button')?.click(); return !!li; }`, text);

/**
 * Proves the app listens before its first task: an item added by hand, then
 * deleted (where a click on its destroy button does; else it stays, which
 * no task minds).
 */
async function warmUp(page) {
  await until(page, (x) => x.ready, 'its new-todo input', 10_000);
  await addByHand(page, 'Warm up');
  await deleteByHand(page, 'Warm up');
  await until(page, (x) => !has(x, 'Warm up'), '"Warm up" gone after deleting it by hand', 1_000).catch(() => {});
}

/** Clicks an item's checkbox by hand. */
const toggleByHand = (page, text) => page.eval(`(text) => { ${deepAllSource()}
  const li = deepAll('#todo-list li, .todo-list li').find((x) => (x.querySelector('label')?.textContent ?? '').trim() === text);
  li?.querySelector('input.toggle, input[type=checkbox]')?.click(); return !!li; }`, text);

/** Shows all items again (the "All" filter) by hand. */
const showAllByHand = (page) => page.eval(`() => { ${deepAllSource()}
  const a = deepAll('#filters a, .filters a').find((x) => x.textContent.trim() === 'All'); a?.click(); return !!a; }`);

/** Waits (bounded, polling the page: an app renders when it likes) until pred(state) holds. */
async function until(page, pred, what, ms = 5_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = await todos(page);
    if (pred(s)) return s;
    if (Date.now() > deadline) throw new Error(`the app did not show ${what} (items: ${JSON.stringify(s.items.map((i) => i.text))})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const has = (s, text) => s.items.some((i) => i.text === text);

/** Makes sure the app shows all items and has each of texts (added by hand when missing), the ones in done completed. */
async function ensure(page, texts, done = []) {
  let s = await until(page, (x) => x.ready, 'its new-todo input', 15_000);
  if (s.items.some((i) => !i.visible)) {
    await showAllByHand(page);
    s = await until(page, (x) => x.items.every((i) => i.visible), 'all its items');
  }
  for (const t of texts) {
    if (!has(s, t)) s = await addByHand(page, t);
  }
  for (const t of done) {
    if (s.items.find((i) => i.text === t)?.completed) continue;
    await toggleByHand(page, t);
    s = await until(page, (x) => x.items.find((i) => i.text === t)?.completed, `"${t}" completed after clicking its checkbox by hand`);
  }
}

const checkResult = (ok, s, why) => ({ ok, detail: ok ? undefined : `${why}; the app shows ${JSON.stringify(s.items.map((i) => `${i.completed ? '[x]' : '[ ]'} ${i.text}${i.visible ? '' : ' (hidden)'}`))}` });

/**
 * Reports the check; after an agent's action, waits (bounded) for it to
 * hold first: an app may render a moment after the call answered.
 */
async function settleCheck({ page, acted }, pred, why) {
  let s = await todos(page);
  if (!pred(s) && acted) {
    try {
      s = await until(page, pred, why, 2_000);
    } catch {
      s = await todos(page);
    }
  }
  return checkResult(pred(s), s, why);
}

/** The five tasks of one app, in order, on one tab. */
export function todoTasks(app) {
  const session = `todomvc/${app.name}`;
  const base = { app: session, session, url: app.path, skip: app.skip, failureClass: 'no tool where the task is (inputs outside a form, per-item actions)' };
  return [
    {
      ...base, id: `${session}/add`, goal: 'Add a todo "Buy milk"', effect: 'region',
      intent: { action: 'add', object: 'todo', text: 'Buy milk' },
      setup: warmUp,
      check: (ctx) => settleCheck(ctx, (s) => has(s, 'Buy milk'), 'no item "Buy milk"'),
    },
    {
      ...base, id: `${session}/toggle`, goal: 'Mark the todo "Walk the dog" as completed', effect: 'region',
      intent: { action: 'toggle', object: 'todo', item: 'Walk the dog' },
      setup: (page) => ensure(page, ['Buy milk', 'Walk the dog', 'Pay rent']),
      check: (ctx) => settleCheck(ctx, (s) => s.items.find((i) => i.text === 'Walk the dog')?.completed === true, '"Walk the dog" is not completed'),
    },
    {
      ...base, id: `${session}/edit`, goal: 'Rename the todo "Buy milk" to "Buy oat milk"', effect: 'region',
      intent: { action: 'edit', object: 'todo', item: 'Buy milk', text: 'Buy oat milk' },
      setup: (page) => ensure(page, ['Buy milk', 'Pay rent']),
      check: (ctx) => settleCheck(ctx, (s) => has(s, 'Buy oat milk') && !has(s, 'Buy milk'), 'not renamed'),
    },
    {
      ...base, id: `${session}/delete`, goal: 'Delete the todo "Pay rent"', effect: 'region',
      intent: { action: 'delete', object: 'todo', item: 'Pay rent' },
      setup: (page) => ensure(page, ['Pay rent', 'Walk the dog']),
      check: (ctx) => settleCheck(ctx, (s) => !has(s, 'Pay rent') && has(s, 'Walk the dog'), '"Pay rent" is still there (or more went)'),
    },
    {
      ...base, id: `${session}/filter`, goal: 'Show only the completed todos', effect: 'region',
      intent: { action: 'filter', object: 'todo', item: 'Completed' },
      setup: (page) => ensure(page, ['Walk the dog', 'Feed the cat'], ['Walk the dog']),
      check: (ctx) => settleCheck(ctx, (s) => s.items.some((i) => i.visible) && s.items.every((i) => i.visible === i.completed), 'the list does not show exactly the completed items'),
    },
  ];
}
