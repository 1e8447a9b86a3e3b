// The page-tools agent: given the tools an MCP client lists (names,
// descriptions, input schemas) and a task's intent, it picks a tool and its
// arguments the way a careful agent reads a tool list — by words, never by a
// tool or parameter name written for a task. Deterministic: the same list
// and intent give the same call.
//
// An intent is { action, object?, item?, text?, fields?, choose?, dialog? }:
//   action   what the user does, a key of words.actionWords (add, toggle, submit …)
//   object   what it is done to, in the page's words ("todo", "Find pet by ID")
//   item     the item it is done to: its visible label, or { nth } (1-based)
//   text     a value with no label (a new todo's title)
//   fields   values by the label a person reads: { 'Email address': 'ada@…',
//            'Nationality': ['British', 'Irish'], 'Upload a file': { file } }
//   choose   option labels whose group has no label
//   dialog   how the user answers a dialog the task opens: { accept, text }
//
// Scoring (each tool; the highest wins, the page's order breaks ties):
//   +3 the tool's name says the action (+1 if only its description does)
//   +2 × share of the object's words in the name (+1 × in the description)
//   +3 × match quality for each field placed in a parameter, −2 for each not placed
//   +3 the item placed (an option of a parameter, a label parameter, a position), −3 not placed
//   +1 the text placed, −3 not placed
// A tool is a candidate when every required parameter is filled and its score
// is at least 2 with some evidence (the action or object in its name, or a
// field or the item placed). Parameters match a label by the share of the
// label's words found in the parameter's name, title and description; a
// choice parameter also matches when one of its options is the wanted value.
import { tokens, overlap, saysAction, same, singular, revealWords, dialogWords } from './words.mjs';

/** A parameter as the agent reads it: its words and its options ({ value, label }). */
export function readParam(name, schema = {}) {
  const items = schema.type === 'array' ? (schema.items ?? {}) : schema;
  const labels = new Map();
  for (const m of String(schema.description ?? '').matchAll(/(?:^|[;"“:]\s*)([^;=“"]+?) = ([^;”"]+)/g)) labels.set(m[1].trim(), m[2].trim());
  const options = (items.enum ?? []).map((v) => ({ value: v, label: labels.get(String(v)) ?? String(v) }));
  return { name, schema, type: schema.type, options, words: [name, schema.title ?? '', schema.description ?? ''] };
}

/** The option of param that is want (by label or value), or undefined. */
export function optionFor(param, want) {
  const exact = param.options.find((o) => same(o.label, want) || same(o.value, want));
  if (exact) return exact.value;
  const loose = param.options.filter((o) => overlap(want, o.label) === 1 || overlap(want, String(o.value)) === 1);
  if (loose.length === 1) return loose[0].value;
  // A label the list cut short ("Fusce dapibus, tellus…") is the beginning of the one wanted.
  const begun = param.options.filter((o) => o.label.endsWith('…') && o.label.length > 20 && same(String(want).slice(0, o.label.length - 1), o.label.slice(0, -1)));
  return begun.length === 1 ? begun[0].value : undefined;
}

const isFile = (v) => v && typeof v === 'object' && !Array.isArray(v) && 'file' in v;

/** Whether param takes local files (its description says so). */
const takesFiles = (param) => /\blocal files? to attach\b/i.test(param.schema.description ?? '');

/** value in the shape param takes, or undefined when it cannot take it. */
export function convert(param, value) {
  if (isFile(value)) return takesFiles(param) ? (param.type === 'array' ? [value.file] : value.file) : undefined;
  if (Array.isArray(value)) {
    if (param.type !== 'array') return undefined;
    const out = value.map((v) => (param.options.length ? optionFor(param, v) : v));
    return out.some((v) => v === undefined) ? undefined : out;
  }
  if (param.options.length) return optionFor(param, value);
  switch (param.type) {
    case 'boolean': return value === true || /^(yes|on|true)$/i.test(String(value)) ? true : value === false ? false : undefined;
    case 'integer': case 'number': { const n = Number(value); return Number.isFinite(n) ? n : undefined; }
    case 'array': return undefined;
    default: return String(value);
  }
}

/** The best unused parameter for a labelled value: { param, q }. */
function placeField(params, used, label, value) {
  let best;
  for (const p of params) {
    if (used.has(p.name) || convert(p, value) === undefined) continue;
    let q = overlap(label, p.words);
    if (p.options.length && !Array.isArray(value) && optionFor(p, value) !== undefined) q = Math.max(q, 0.5) + 0.25;
    if (q >= 0.5 && (!best || q > best.q)) best = { param: p, q };
  }
  return best;
}

/** Options chosen by label alone: a choice parameter that offers it, or a yes/no parameter named by it. */
function placeChoice(params, used, label, args) {
  for (const p of params) {
    if (p.options.length && optionFor(p, label) !== undefined) {
      const v = optionFor(p, label);
      if (p.type === 'array') args[p.name] = [...(args[p.name] ?? []), v];
      else if (used.has(p.name)) continue;
      else args[p.name] = v;
      used.add(p.name);
      return true;
    }
    if (p.type === 'boolean' && !used.has(p.name) && overlap(label, p.words) >= 0.75) {
      args[p.name] = true;
      used.add(p.name);
      return true;
    }
  }
  return false;
}

/** A group of checkbox labels placed as yes/no parameters, one each. */
function placeBooleans(params, used, labels, args) {
  const picks = labels.map((l) => params.find((p) => p.type === 'boolean' && !used.has(p.name) && overlap(l, p.words) >= 0.75));
  if (picks.some((p) => !p)) return false;
  for (const p of picks) { args[p.name] = true; used.add(p.name); }
  return true;
}

const positionWords = ['index', 'position', 'number', 'nth', 'row'];
// Words of a parameter that names an existing item ("text", "title" or "name" are as often a new value's: never).
const labelWords = ['item', 'label', 'which', 'entry', 'row'];

/** The parameter for the item: an option, a label parameter, or a position. */
function placeItem(params, used, item, object) {
  if (item && typeof item === 'object' && 'nth' in item) {
    const p = params.find((x) => !used.has(x.name) && (x.type === 'integer' || x.type === 'number') && overlap(positionWords.join(' '), x.words) > 0);
    if (!p) return undefined;
    const fromZero = p.schema.minimum === 0 || /\bfrom 0\b|0-based|zero-based/i.test(p.schema.description ?? '');
    return { param: p, value: fromZero ? item.nth - 1 : item.nth };
  }
  const withOption = params.find((p) => !used.has(p.name) && p.options.length && optionFor(p, item) !== undefined);
  if (withOption) return { param: withOption, value: optionFor(withOption, item) };
  // A parameter named for the item itself ("item", "todo", "title"), not for a new value ("new_todo").
  const objectWords = tokens(object).map(singular);
  const named = params.find((p) => {
    const w = tokens(p.name);
    return !used.has(p.name) && p.type === 'string' && !p.options.length && w.length && w.every((x) => labelWords.includes(x) || objectWords.includes(singular(x)));
  });
  return named ? { param: named, value: String(item) } : undefined;
}

/** The parameter for a value with no label: the one free text parameter (the best named when several). */
function placeText(params, used, object) {
  const free = params.filter((p) => !used.has(p.name) && p.type === 'string' && !p.options.length && !p.schema.writeOnly && !p.schema.format);
  if (free.length <= 1) return free[0];
  const want = ['text', 'title', 'name', 'new', 'value', ...tokens(object)].join(' ');
  return free.map((p) => ({ p, q: overlap(tokens(p.name).join(' '), want) })).sort((a, b) => b.q - a.q)[0].p;
}

/**
 * How well tool fits intent: { tool, args, score, evidence, uses: { fields, item, text, choose } }
 * or undefined when it cannot be called for it (a required parameter left empty).
 */
export function fit(tool, intent) {
  const schema = tool.inputSchema ?? {};
  const params = Object.entries(schema.properties ?? {}).map(([n, s]) => readParam(n, s));
  const args = {}, used = new Set(), uses = { fields: [], choose: [] };
  const nameToks = tokens(tool.name), descToks = tokens(tool.description);
  let score = 0, evidence = false;
  if (intent.action && saysAction(intent.action, nameToks)) { score += 3; evidence = true; } else if (intent.action && saysAction(intent.action, descToks)) score += 1;
  if (intent.object) {
    const q = overlap(intent.object, nameToks), d = overlap(intent.object, descToks);
    score += q ? 2 * q : d;
    if (q >= 0.5) evidence = true;
  }
  for (const [label, value] of Object.entries(intent.fields ?? {})) {
    const m = placeField(params, used, label, value);
    if (m) {
      args[m.param.name] = convert(m.param, value);
      used.add(m.param.name);
      score += 3 * Math.min(m.q, 1);
      uses.fields.push(label);
      evidence = true;
    } else if (Array.isArray(value) && placeBooleans(params, used, value, args)) {
      score += 3;
      uses.fields.push(label);
      evidence = true;
    } else score -= 2;
  }
  for (const label of intent.choose ?? []) {
    if (placeChoice(params, used, label, args)) { score += 3; uses.choose.push(label); evidence = true; } else score -= 2;
  }
  if (intent.item !== undefined) {
    const m = placeItem(params, used, intent.item, intent.object);
    if (m) { args[m.param.name] = m.value; used.add(m.param.name); score += 3; uses.item = true; evidence = true; } else score -= 3;
  }
  if (intent.text !== undefined) {
    const p = placeText(params, used, intent.object);
    if (p) { args[p.name] = intent.text; used.add(p.name); score += 1; uses.text = true; } else score -= 3;
  }
  if ((schema.required ?? []).some((r) => !(r in args))) return undefined;
  return { tool, args, score, evidence, uses };
}

/** What of intent a call that used uses leaves to do. */
export function remaining(intent, uses) {
  const rest = { ...intent, fields: {}, choose: (intent.choose ?? []).filter((c) => !uses.choose.includes(c)) };
  for (const [k, v] of Object.entries(intent.fields ?? {})) if (!uses.fields.includes(k)) rest.fields[k] = v;
  if (uses.item) delete rest.item;
  if (uses.text) delete rest.text;
  return rest;
}

/** Whether nothing of intent is left but its action. */
export const nothingLeft = (intent) => !Object.keys(intent.fields ?? {}).length && !(intent.choose ?? []).length && intent.item === undefined && intent.text === undefined;

/**
 * The call for intent among tools (the page's tools, in their order), skipping
 * the calls in tried (name + arguments); undefined when none fits.
 */
export function plan(tools, intent, tried = new Set()) {
  let best;
  for (const t of tools) {
    const f = fit(t, intent);
    if (!f || !f.evidence || f.score < 2 || tried.has(key(f))) continue;
    if (!best || f.score > best.score) best = f;
  }
  return best;
}

/**
 * A tool that reveals a form not shown yet ("Try it out", "Expand"), not
 * tried: one with no required parameter, or one whose one required
 * parameter is a choice of what to reveal, given the option the intent's
 * object names best (at least half its words).
 */
export function planReveal(tools, intent, tried) {
  for (const t of tools) {
    const words = tokens(t.name);
    const required = t.inputSchema?.required ?? [];
    if (!revealWords.some((w) => words.includes(w)) || required.length > 1) continue;
    const args = {};
    if (required.length) {
      const p = readParam(required[0], t.inputSchema?.properties?.[required[0]]);
      const best = p.options.map((o) => ({ o, q: overlap(intent.object ?? '', o.label) })).sort((a, b) => b.q - a.q)[0];
      if (!best || best.q < 0.5) continue;
      args[p.name] = best.o.value;
    }
    const f = { tool: t, args, score: 0, uses: { fields: [], choose: [] } };
    if (!tried.has(key(f))) return f;
  }
  return undefined;
}

/** The call that answers a dialog the way the intent says, with a tool about dialogs. */
export function planDialog(tools, answer) {
  const t = tools.find((x) => tokens(x.name).some((w) => dialogWords.includes(w)));
  if (!t) return undefined;
  const args = {};
  for (const [name, schema] of Object.entries(t.inputSchema?.properties ?? {})) {
    const w = tokens(name);
    if (schema.type === 'boolean' && w.includes('accept')) args[name] = answer.accept !== false;
    else if (schema.type === 'string' && (w.includes('prompt') || w.includes('text')) && answer.text !== undefined) args[name] = answer.text;
  }
  return { tool: t, args, score: 0, uses: { fields: [], choose: [] } };
}

export const key = (f) => `${f.tool.name} ${JSON.stringify(f.args)}`;
