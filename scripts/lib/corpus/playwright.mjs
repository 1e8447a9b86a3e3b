// The Playwright MCP agent: the same tasks the way an agent does them with
// Playwright MCP 0.0.83 — browser_snapshot, then browser_fill_form /
// browser_type / browser_click on the snapshot's references, picked by the
// accessible names against the intent's labels (words.mjs), never by a
// reference or selector written for a task. Deterministic, like agent.mjs:
//   1. snapshot;
//   2. the operation or section the intent names (its object) and a control
//      that reveals a form ("Try it out") are clicked when a field is missing;
//   3. each field: the control whose accessible name matches its label (a
//      radio or checkbox by its option's name inside the labelled group); all
//      filled in one browser_fill_form; a combo box without options (an
//      autocomplete) is typed into and its suggestion clicked;
//   4. an item: the row or list item showing its label, and in it the control
//      the action names (toggle: its checkbox; delete: a button named so;
//      edit: a double-click on the label, then the text typed with Enter);
//      filter/page/open: the link or button named by the item;
//   5. the action: the button or link whose name says it (or the object), else
//      Enter in the one text field filled;
//   6. a dialog in an answer: browser_handle_dialog as the intent says.
import { tokens, overlap, saysAction, same, revealWords, actionWords } from './words.mjs';
import path from 'node:path';
import { measuredCall } from './pagetools.mjs';

/** A Playwright MCP snapshot (its YAML) as a tree: { role, name, ref, attrs, text, children, parent }. */
export function parseSnapshot(text) {
  const yaml = /```yaml\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
  const root = { role: 'root', children: [], depth: -1 };
  const stack = [root];
  for (const line of yaml.split('\n')) {
    const m = /^(\s*)- (.*)$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 2;
    const body = unquote(m[2]);
    const node = { depth, children: [], attrs: [] };
    const head = /^([a-z/]+)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]]*\])*)(?::(?: (.*))?)?$/.exec(body);
    if (!head) continue;
    node.role = head[1];
    node.name = head[2]?.replace(/\\"/g, '"') ?? '';
    for (const [, a] of (head[3] ?? '').matchAll(/\[([^\]]*)\]/g)) {
      if (a.startsWith('ref=')) node.ref = a.slice(4); else node.attrs.push(a);
    }
    node.text = head[4]?.replace(/^"|"$/g, '') ?? '';
    while (stack.at(-1).depth >= depth) stack.pop();
    node.parent = stack.at(-1);
    node.parent.children.push(node);
    stack.push(node);
  }
  return root;
}

/** A YAML line's single-quoted key ('button "a {b}" [ref=e1]': …) without its quotes. */
function unquote(body) {
  if (!body.startsWith("'")) return body;
  let out = '', i = 1;
  for (; i < body.length; i++) {
    if (body[i] === "'" && body[i + 1] === "'") { out += "'"; i++; } else if (body[i] === "'") break; else out += body[i];
  }
  return out + body.slice(i + 1);
}

const all = (node, pred, out = []) => { for (const c of node.children) { if (pred(c)) out.push(c); all(c, pred, out); } return out; };
const label = (n) => n.name || n.text || '';
const fieldRoles = new Set(['textbox', 'searchbox', 'spinbutton', 'combobox', 'slider']);
const clickRoles = new Set(['button', 'link', 'tab', 'menuitem']);
const enabled = (n) => n.ref && !n.attrs.includes('disabled');
const within = (n, anc) => { for (let p = n; p; p = p.parent) if (p === anc) return true; return false; };

/** The node of role-set roles whose name best matches want (same name first, then the largest word overlap ≥ min). */
function best(root, roles, want, min = 0.5, scope = root) {
  const nodes = all(scope, (n) => roles.has(n.role) && enabled(n));
  return nodes.find((n) => same(label(n), want)) ??
    nodes.map((n) => ({ n, q: overlap(want, label(n)) })).filter((x) => x.q >= min).sort((a, b) => b.q - a.q)[0]?.n;
}

/** A choice (radio or checkbox) named option, inside the group labelled group when there is one. */
function choice(root, group, option) {
  const g = group ? best(root, new Set(['group', 'radiogroup']), group) : undefined;
  return best(root, new Set(['radio', 'checkbox']), option, 0.75, g ?? root);
}

/** The fill_form entries for the intent's fields and choices, and what could not be placed. */
export function fieldsFor(root, intent) {
  const entries = [], missing = [], suggest = [], files = [];
  const add = (n, type, value) => entries.push({ element: label(n) || n.role, name: label(n) || n.role, type, target: n.ref, value: String(value) });
  for (const [l, value] of Object.entries(intent.fields ?? {})) {
    if (value && typeof value === 'object' && 'file' in value) {
      const b = best(root, new Set(['button', 'textbox']), l, 0.5);
      if (b) files.push({ node: b, file: value.file }); else missing.push(l);
      continue;
    }
    const options = Array.isArray(value) ? value : [value];
    const choices = options.map((o) => choice(root, l, o));
    if (choices.every(Boolean) && choices.every((c) => c.role === 'radio' || c.role === 'checkbox')) {
      for (const c of choices) add(c, c.role, true);
      continue;
    }
    // A select whose label the snapshot does not carry: the one offering the value.
    const n = best(root, fieldRoles, l) ?? all(root, (x) => x.role === 'combobox' && enabled(x) && all(x, (o) => o.role === 'option' && same(label(o), value)).length)[0];
    if (!n) { missing.push(l); continue; }
    const isSelect = n.role === 'combobox' && all(n, (c) => c.role === 'option').length > 0;
    if (n.role === 'combobox' && !isSelect) suggest.push({ node: n, value: String(value) }); // typed, then its suggestion picked
    else add(n, isSelect ? 'combobox' : n.role === 'slider' ? 'slider' : 'textbox', value);
  }
  for (const o of intent.choose ?? []) {
    const c = choice(root, undefined, o);
    if (c) add(c, c.role, true); else missing.push(o);
  }
  return { entries, missing, suggest, files };
}

/** The row or list item that shows item's label. */
function itemNode(root, item) {
  const hit = all(root, (n) => same(label(n), item))[0];
  for (let p = hit; p; p = p.parent) if (['listitem', 'row', 'article'].includes(p.role)) return { row: p, hit };
  return hit ? { row: hit.parent, hit } : undefined;
}

/** The control in row that does action. */
function actionIn(row, action) {
  if (action === 'toggle') return all(row, (n) => n.role === 'checkbox' && n.ref)[0];
  const words = actionWords[action] ?? [action];
  return all(row, (n) => clickRoles.has(n.role) && n.ref && tokens(label(n)).some((w) => words.includes(w)))[0];
}

/** The button or link that does the intent's action (or names its object). */
function actionControl(root, intent, { byObject = true } = {}) {
  const nodes = all(root, (n) => clickRoles.has(n.role) && enabled(n) && label(n));
  const says = nodes.filter((n) => saysAction(intent.action, tokens(label(n))));
  const pick = says.find((n) => n.role === 'button') ?? says[0];
  if (pick || !byObject) return pick;
  return intent.object ? nodes.find((n) => n.role === 'button' && overlap(intent.object, label(n)) >= 0.75) : undefined;
}

export { all, best, itemNode, actionIn, actionControl, label, clickRoles };

/**
 * Tries intent with Playwright MCP (client: its MCP client; workspace: the
 * folder it runs in, where the files a task uploads are). Returns
 * { calls, verdict: answered-ok | answered-error | no-tool | timeout, reason }.
 */
export async function tryWithPlaywright(client, intent, { workspace } = {}) {
  const calls = [];
  const run = async (name, args) => {
    const r = await measuredCall(client, name, args);
    calls.push(r);
    if (r.timedOut) throw Object.assign(new Error(`${name}: no answer`), { verdict: 'timeout' });
    if (r.isError) throw Object.assign(new Error(`${name}: ${r.text.slice(0, 300)}`), { verdict: 'answered-error' });
    if (intent.dialog && /dialog/i.test(r.text) && /Modal state/i.test(r.text)) await run('browser_handle_dialog', { accept: intent.dialog.accept !== false, ...(intent.dialog.text !== undefined ? { promptText: intent.dialog.text } : {}) });
    return r;
  };
  const snapshot = async () => parseSnapshot((await run('browser_snapshot', {})).text);
  try {
    await playwrightSteps(intent, { run, snapshot, workspace });
    return { calls, verdict: 'answered-ok' };
  } catch (err) {
    return { calls, verdict: err.verdict ?? 'no-tool', reason: err.message };
  }
}

const giveUp = (why) => Object.assign(new Error(why), { verdict: 'no-tool' });
const click = (run, n, extra = {}) => run('browser_click', { element: label(n) || n.role, target: n.ref, ...extra });

async function playwrightSteps(intent, { run, snapshot, workspace }) {
  let root = await snapshot();
  let f = fieldsFor(root, intent);
  if (intent.item === undefined && intent.text === undefined && intent.object) {
    // The form may sit in a collapsed section (an API operation): open the
    // section the object names, then what unlocks its form ("Try it out").
    const lacking = () => f.missing.length || !actionControl(root, intent, { byObject: false });
    const section = lacking() && best(root, clickRoles, intent.object, 0.75);
    if (section) { await click(run, section); root = await snapshot(); f = fieldsFor(root, intent); }
    const reveal = lacking() && all(root, (n) => clickRoles.has(n.role) && enabled(n) && tokens(label(n)).some((w) => revealWords.includes(w)))[0];
    if (reveal) { await click(run, reveal); root = await snapshot(); f = fieldsFor(root, intent); }
  }
  if (f.missing.length) throw giveUp(`no control for ${f.missing.join(', ')}`);
  if (f.entries.length) await run('browser_fill_form', { fields: f.entries });
  for (const s of f.suggest) {
    await run('browser_type', { element: label(s.node), target: s.node.ref, text: s.value });
    root = await snapshot();
    const option = best(root, new Set(['option']), s.value, 0.75);
    if (!option) throw giveUp(`no suggestion "${s.value}"`);
    await click(run, option);
  }
  for (const up of f.files) {
    await click(run, up.node);
    await run('browser_file_upload', { paths: [path.join(workspace, up.file)] });
  }
  if (intent.item !== undefined) return itemSteps(intent, { run, snapshot, root });
  if (intent.text !== undefined) {
    const box = all(root, (n) => fieldRoles.has(n.role) && enabled(n))[0];
    if (!box) throw giveUp('no text field');
    return run('browser_type', { element: label(box), target: box.ref, text: intent.text, submit: true });
  }
  if (f.suggest.length || f.files.length) root = await snapshot(); // references before a suggestion was picked may be stale
  const act = actionControl(root, intent);
  if (act) return click(run, act);
  const typed = f.entries.filter((e) => e.type === 'textbox');
  if (typed.length === 1 || f.suggest.length) return run('browser_press_key', { key: 'Enter' });
  throw giveUp(`no control for the action "${intent.action}"`);
}

async function itemSteps(intent, { run, snapshot, root }) {
  if (typeof intent.item === 'object') {
    const rows = all(root, (n) => ['listitem', 'row'].includes(n.role));
    const link = rows[intent.item.nth - 1] && all(rows[intent.item.nth - 1], (n) => clickRoles.has(n.role) && n.ref)[0];
    if (!link) throw giveUp(`no item ${intent.item.nth}`);
    return click(run, link);
  }
  if (['filter', 'page', 'open'].includes(intent.action) || !['toggle', 'delete', 'edit'].includes(intent.action)) {
    const target = best(root, clickRoles, intent.item, 1);
    if (!target) throw giveUp(`no link or button "${intent.item}"`);
    return click(run, target);
  }
  let found = itemNode(root, intent.item);
  if (!found) throw giveUp(`no item "${intent.item}"`);
  let control = actionIn(found.row, intent.action);
  if (!control && intent.action !== 'edit') {
    // Controls that show on hover (a row's delete button): hover the row, look again.
    await run('browser_hover', { element: intent.item, target: (found.hit.ref ? found.hit : found.row).ref });
    root = await snapshot();
    found = itemNode(root, intent.item);
    control = found && actionIn(found.row, intent.action);
  }
  if (control) return click(run, control);
  if (intent.action !== 'edit') throw giveUp(`no control to ${intent.action} "${intent.item}"`);
  await click(run, found.hit.ref ? found.hit : found.row, { doubleClick: true });
  const after = await snapshot();
  const box = all(after, (n) => n.role === 'textbox' && n.ref && within(n, itemNode(after, intent.item)?.row ?? after))[0] ??
    all(after, (n) => n.role === 'textbox' && n.ref && same(n.text, intent.item))[0];
  if (!box) throw giveUp('no edit field after the double-click');
  return run('browser_type', { element: label(box) || 'edit field', target: box.ref, text: intent.text, submit: true });
}
