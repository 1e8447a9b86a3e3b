// Words: how both agents of the corpus read a task's intent against what a
// page offers (page tools' names, descriptions and schemas; Playwright MCP's
// accessible names). Generic: no app, tool or parameter name appears here,
// only English words for what people do on web pages.

/** What each action of an intent may be called on a page. */
export const actionWords = {
  add: ['add', 'new', 'create', 'insert', 'enter'],
  toggle: ['toggle', 'complete', 'completed', 'done', 'check', 'mark', 'finish', 'tick'],
  delete: ['delete', 'remove', 'destroy', 'trash', 'discard', '×', '✕', '✖'],
  edit: ['edit', 'rename', 'change', 'update', 'modify'],
  filter: ['filter', 'show', 'view', 'only'],
  submit: ['submit', 'continue', 'save', 'send', 'next', 'confirm', 'apply', 'done'],
  sign_in: ['sign', 'login', 'log', 'signin', 'enter'],
  register: ['register', 'signup', 'account', 'create', 'join'],
  reset: ['reset', 'recover', 'forgot', 'send'],
  open: ['open', 'read', 'view', 'show', 'go'],
  page: ['page', 'pages', 'go', 'pagination', 'paginate'],
  search: ['search', 'find', 'filter', 'look', 'query'],
  execute: ['execute', 'run', 'send', 'call', 'invoke'],
  choose: ['choose', 'select', 'pick', 'set'],
  order: ['order', 'buy', 'checkout', 'place', 'submit'],
  upload: ['upload', 'attach', 'file', 'choose'],
};

/**
 * Words of controls that reveal or unlock a form that is not shown yet (an
 * operation's "Try it out", a collapsed section): used when a field the
 * intent needs is nowhere.
 */
export const revealWords = ['try', 'expand', 'edit', 'open', 'show', 'more', 'details'];

/** Words of a dialog's answers. */
export const dialogWords = ['dialog', 'alert', 'confirm', 'prompt', 'accept', 'dismiss'];

const stop = new Set(['a', 'an', 'the', 'of', 'to', 'in', 'on', 'for', 'and', 'or', 'is', 'it', 'its', 'this', 'that', 'your', 'you',
  'with', 'by', 'at', 'as', 'be', 'from', 'what', 'which', 'do', 'e', 'g', 'eg', 'page', 'text', 'field', 'optional', 'required']);

/** Lowercase word tokens of s: snake_case, camelCase, punctuation and `Page text: "…"` wrappers split away. */
export function tokens(s) {
  if (s === undefined || s === null) return [];
  return String(s)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}×✕✖]+/u)
    .filter((w) => w && !stop.has(w));
}

/** The share of want's tokens found among have's (0 when want has none). */
export function overlap(want, have) {
  const w = [...new Set(tokens(want))];
  if (!w.length) return 0;
  const h = new Set((Array.isArray(have) ? have.flatMap(tokens) : tokens(have)).map(singular));
  return w.filter((x) => h.has(singular(x))).length / w.length;
}

/** A word without a plural s (todos → todo, pages → page). */
export function singular(w) {
  return w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

/** Whether any of the action's words is among toks. */
export function saysAction(action, toks) {
  const set = new Set(toks.map(singular));
  return (actionWords[action] ?? [action]).some((w) => set.has(w) || set.has(singular(w)));
}

/** Text compared loosely: case, spacing and a label's trailing colon or required mark ignored. */
export function same(a, b) {
  const norm = (s) => String(s).toLowerCase().replace(/\s+/g, ' ').trim().replace(/\s*[:*]+$/, '');
  return norm(a) === norm(b);
}
