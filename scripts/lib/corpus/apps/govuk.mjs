// GOV.UK Frontend (npm `govuk-frontend`): the component fixtures it ships
// (fixtures.json: each example's HTML, as its own tests render it), every
// input kind, each put in a question page the way a GOV.UK service builds
// one — the design system's page template, a POST form (`novalidate`: the
// server validates), the fixture, a "Continue" button — and submitted to
// the corpus's server. Tasks are derived from each fixture's HTML alone
// (its labels, legends and options): fill every question, continue; the
// check is what the server received.
import fs from 'node:fs';
import path from 'node:path';
import { root } from '../../paths.mjs';
import { valuesOf } from '../server.mjs';

const dist = path.join(root, 'node_modules', 'govuk-frontend', 'dist', 'govuk', 'components');

/** The components with inputs, in the order the corpus runs them. */
export const inputComponents = ['input', 'textarea', 'character-count', 'password-input', 'radios', 'checkboxes', 'select', 'date-input', 'file-upload'];

const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const text = (html) => html.replace(/<[^>]*>/g, ' ').replace(/&#39;/g, '\'').replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();
const attr = (tag, name) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const flag = (tag, name) => new RegExp(`\\s${name}(?:[\\s>=/]|$)`).test(tag);

/** html without the blocks a choice reveals (a conditional's own questions are asked only after it is chosen). */
function withoutConditionals(html) {
  for (;;) {
    const start = html.search(/<div class="[^"]*__conditional[^"]*"/);
    if (start < 0) return html;
    const re = /<\/?div\b[^>]*>/g;
    re.lastIndex = start;
    let depth = 0, m;
    while ((m = re.exec(html))) {
      depth += m[0].startsWith('</') ? -1 : 1;
      if (depth === 0) break;
    }
    html = html.slice(0, start) + html.slice(m ? re.lastIndex : html.length);
  }
}

/** The questions of a fixture: its controls grouped as a person reads them. */
export function controlsOf(html) {
  html = withoutConditionals(html);
  const labels = new Map([...html.matchAll(/<label\b([^>]*)>([\s\S]*?)<\/label>/g)].map(([, a, t]) => [attr(a, 'for'), text(t)]));
  const legend = text(/<legend\b[^>]*>([\s\S]*?)<\/legend>/.exec(html)?.[1] ?? '') || undefined;
  const controls = [];
  for (const [tag, kind] of html.matchAll(/<(input|textarea|select)\b[^>]*>/g)) {
    const c = { kind, type: kind === 'input' ? (attr(tag, 'type') ?? 'text') : kind, name: attr(tag, 'name'), value: attr(tag, 'value'),
      label: labels.get(attr(tag, 'id')), checked: flag(tag, 'checked'), disabled: flag(tag, 'disabled'),
      exclusive: /data-behaviour="exclusive"/.test(tag), numeric: attr(tag, 'inputmode') === 'numeric' || attr(tag, 'type') === 'number' };
    if (kind === 'select') {
      const body = html.slice(html.indexOf(tag)).split('</select>')[0];
      c.options = [...body.matchAll(/<option\b([^>]*)>([\s\S]*?)<\/option>/g)].map(([, a, t]) => ({ value: attr(a, 'value') ?? text(t), label: text(t), selected: flag(a, 'selected'), disabled: flag(a, 'disabled') }));
    }
    if (c.name && c.type !== 'hidden') controls.push(c);
  }
  return { legend, controls };
}

const sampleText = (c) => {
  const l = (c.label ?? '').toLowerCase();
  if (/\bday\b/.test(l)) return '2';
  if (/\bmonth\b/.test(l)) return '3';
  if (/\byear\b/.test(l)) return '2024';
  if (c.type === 'password') return 'correct-horse-42';
  if (c.numeric || /\b(number|cost|amount|price)\b/.test(l)) return '42';
  if (c.kind === 'textarea') return 'Brief';
  return 'Ada Lovelace';
};

/**
 * What a person fills in on a fixture: { fields: { label: value }, choose:
 * [labels] (choices whose group has no legend), expect: [[name, value]] }, or
 * undefined when the fixture offers nothing to do (every control disabled).
 */
export function answersOf({ legend, controls }) {
  const fields = {}, choose = [], expect = [];
  const byName = new Map();
  for (const c of controls.filter((x) => !x.disabled)) byName.set(c.name, [...(byName.get(c.name) ?? []), c]);
  for (const [name, group] of byName) {
    const [first] = group;
    if (first.type === 'radio') {
      const pick = group.filter((c) => !c.checked).at(-1) ?? group.at(-1);
      if (legend) fields[legend] = pick.label; else choose.push(pick.label);
      expect.push([name, pick.value ?? 'on']);
    } else if (first.type === 'checkbox') {
      const picks = group.filter((c) => !c.checked && !c.exclusive).slice(0, 2);
      if (!picks.length) continue;
      if (legend && byName.size === 1) fields[legend] = picks.map((c) => c.label); else choose.push(...picks.map((c) => c.label));
      for (const c of picks) expect.push([name, c.value ?? 'on']);
    } else if (first.kind === 'select') {
      const pick = first.options.filter((o) => !o.disabled && o.value !== '' && !o.selected).at(-1);
      if (!pick) continue;
      fields[first.label] = pick.label;
      expect.push([name, pick.value]);
    } else if (first.type === 'file') {
      fields[first.label] = { file: path.basename(uploadFile) };
      expect.push([name, { filename: path.basename(uploadFile) }]);
    } else {
      const v = sampleText(first);
      fields[first.label ?? legend] = v;
      expect.push([name, v]);
    }
  }
  return expect.length ? { fields, choose, expect } : undefined;
}

/** The file the upload tasks attach (it ships with the corpus; the runner puts a copy in the agent's workspace). */
export const uploadFile = path.join(root, 'scripts', 'corpus', 'upload.txt');

/** Fixtures that differ only in classes and ids (the width variants of an input) have one signature: the corpus keeps the first. */
const signature = (html) => html.replace(/\s(class|id|for|name|aria-describedby)="[^"]*"/g, '').replace(/\s+/g, ' ');

/** The fixtures the corpus uses: shown in the design system's own review app (not hidden), one of each signature. */
export function govukFixtures() {
  const out = [];
  for (const component of inputComponents) {
    const seen = new Set();
    for (const f of JSON.parse(fs.readFileSync(path.join(dist, component, 'fixtures.json'), 'utf8')).fixtures) {
      const sig = signature(f.html);
      if (f.hidden || seen.has(sig)) continue;
      seen.add(sig);
      out.push({ component, name: f.name, html: f.html, path: `/govuk/${component}/${slug(f.name)}` });
    }
  }
  return out;
}

const page = (title, body) => `<!DOCTYPE html>
<html lang="en" class="govuk-template"><head><meta charset="utf-8"><title>${title} – GOV.UK</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/govuk-frontend/govuk-frontend.min.css"></head>
<body class="govuk-template__body"><script>document.body.className += ' js-enabled' + ('noModule' in HTMLScriptElement.prototype ? ' govuk-frontend-supported' : '');</script>
<div class="govuk-width-container"><main class="govuk-main-wrapper" id="main-content">${body}</main></div>
<script type="module">import { initAll } from '/govuk-frontend/govuk-frontend.min.js'; initAll();</script>
</body></html>`;

/** The corpus server's routes for the question pages and what they post. */
export function govukRoutes() {
  const routes = {};
  for (const f of govukFixtures()) {
    const enctype = f.component === 'file-upload' ? ' enctype="multipart/form-data"' : '';
    routes[`GET ${f.path}`] = () => ({ body: page(`${f.component}: ${f.name}`, `<form method="post" action="${f.path}" novalidate${enctype}>\n${f.html}\n<button type="submit" class="govuk-button" data-module="govuk-button">Continue</button>\n</form>`) });
    routes[`POST ${f.path}`] = () => ({ body: page('Answers received', '<div class="govuk-panel govuk-panel--confirmation"><h1 class="govuk-panel__title">Answers received</h1><div class="govuk-panel__body">We have your answers</div></div>') });
  }
  return routes;
}

const sameValue = (got, want) => (typeof want === 'object' ? got?.filename === want.filename && got.size > 0 : got === want);

/** The tasks: one per fixture, fill in every question and continue. */
export function govukTasks() {
  return govukFixtures().flatMap((f) => {
    const answers = answersOf(controlsOf(f.html));
    if (!answers) return [];
    const describe = [...Object.entries(answers.fields).map(([k, v]) => `${k}: ${typeof v === 'object' && !Array.isArray(v) ? v.file : [v].flat().join(', ')}`), ...answers.choose.map((c) => `choose ${c}`)];
    return [{
      id: `govuk/${f.component}/${slug(f.name)}`, app: `govuk-frontend/${f.component}`, url: f.path, effect: 'navigated',
      goal: `Answer the question (${describe.join('; ')}) and continue`,
      failureClass: f.component === 'file-upload' ? 'no tool where the task is (file uploads)' : 'names and parameters a model reads right',
      intent: { action: 'submit', fields: answers.fields, ...(answers.choose.length ? { choose: answers.choose } : {}) },
      check: ({ received }) => {
        const post = received.filter((r) => r.method === 'POST' && r.path === f.path).at(-1);
        if (!post) return { ok: false, detail: `the server received no answers (requests: ${received.map((r) => `${r.method} ${r.path}`).join(', ') || 'none'})` };
        const wrong = answers.expect.filter(([name, want]) => !valuesOf(post, name).some((got) => sameValue(got, want)));
        return { ok: !wrong.length, detail: wrong.length ? `the server received ${JSON.stringify(post.fields)}; expected ${JSON.stringify(answers.expect)}` : undefined };
      },
    }];
  });
}
