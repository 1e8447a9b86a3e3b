// The corpus's figures: counts by verdict, by app and by failure class,
// the wrong "done" answers with their cause, and calls / time / bytes.
import { verdicts } from './run.mjs';

const pct = (n, d) => (d ? `${((100 * n) / d).toFixed(1)} %` : '-');

/** The figures of a run: { total, runnable, counts, byApp, byClass, wrong, cost }. */
export function summarize(results) {
  const counts = Object.fromEntries(verdicts.map((v) => [v, 0]));
  const byApp = {}, byClass = {};
  for (const r of results) {
    counts[r.verdict]++;
    const app = r.task.app.split('/')[0];
    byApp[app] ??= Object.fromEntries(verdicts.map((v) => [v, 0]));
    byApp[app][r.verdict]++;
    if (r.verdict === 'honest failure' || r.verdict === 'no answer' || r.verdict === 'wrong "done"') {
      byClass[r.task.failureClass] ??= { 'wrong "done"': 0, 'honest failure': 0, 'no answer': 0 };
      byClass[r.task.failureClass][r.verdict]++;
    }
  }
  const runnable = results.length - counts['not runnable'];
  const ran = results.filter((r) => r.verdict !== 'not runnable');
  const cost = {
    calls: ran.reduce((s, r) => s + r.calls.length, 0),
    ms: ran.reduce((s, r) => s + r.calls.reduce((x, c) => x + c.ms, 0), 0),
    bytes: ran.reduce((s, r) => s + r.calls.reduce((x, c) => x + c.bytes, 0) + (r.listBytes ?? 0), 0),
  };
  return { total: results.length, runnable, counts, byApp, byClass, wrong: results.filter((r) => r.verdict === 'wrong "done"'), cost };
}

/** One line for a result, for progress output. */
export function resultLine(r) {
  const c = r.calls ?? [];
  const cost = c.length ? ` [${c.length} call${c.length > 1 ? 's' : ''}, ${c.reduce((s, x) => s + x.ms, 0).toFixed(0)} ms, ${c.reduce((s, x) => s + x.bytes, 0) + (r.listBytes ?? 0)} B]` : '';
  const what = c.map((x) => `${x.tool ?? x.name}(${JSON.stringify(x.args?.arguments ?? x.args ?? {}).slice(0, 120)})`).join(' → ');
  return `${r.verdict.padEnd(14)} ${r.task.id}${cost}${what ? ` ${what}` : ''}${r.detail ? `\n      ${r.detail.slice(0, 400)}` : ''}`;
}

/** The figures as Markdown. */
export function formatSummary(s, { title = 'Page tools alone' } = {}) {
  const lines = [`### ${title}`, '', `${s.total} tasks, ${s.runnable} runnable here (${s.counts['not runnable']} not runnable: their app does not run as its package ships it).`, ''];
  lines.push('| verdict | tasks | of runnable |', '|---|---|---|');
  for (const v of verdicts.filter((x) => x !== 'not runnable')) lines.push(`| ${v} | ${s.counts[v]} | ${pct(s.counts[v], s.runnable)} |`);
  lines.push('', '| app | done right | wrong "done" | honest failure | no answer | not runnable |', '|---|---|---|---|---|---|');
  for (const [app, c] of Object.entries(s.byApp)) lines.push(`| ${app} | ${c['done right']} | ${c['wrong "done"']} | ${c['honest failure']} | ${c['no answer']} | ${c['not runnable']} |`);
  lines.push('', '| failure class (issue 17) | wrong "done" | honest failure | no answer |', '|---|---|---|---|');
  for (const [k, c] of Object.entries(s.byClass)) lines.push(`| ${k} | ${c['wrong "done"']} | ${c['honest failure']} | ${c['no answer']} |`);
  lines.push('', `Calls ${s.cost.calls}, time in calls ${(s.cost.ms / 1000).toFixed(1)} s, bytes ${s.cost.bytes} (requests + answers + tool listings).`);
  return lines.join('\n');
}
