// The corpus in `npm run bench`: every task tried with page tools alone and
// with Playwright MCP (snapshot, fill, click) in the same run, on the same
// coordinator and browser, session by session (the two alternate which goes
// first), and on the tasks page tools do right: calls, time in calls and
// bytes (requests, answers, and the page-tools listing the agent read) of
// each, and their ratios.
import fs from 'node:fs';
import path from 'node:path';
import { corpusTasks, sampleOf } from './tasks.mjs';
import { startCorpus, runCorpus, sessions } from './run.mjs';
import { summarize } from './report.mjs';

const cost = (r) => ({
  calls: r.calls.length,
  ms: r.calls.reduce((s, c) => s + c.ms, 0),
  bytes: r.calls.reduce((s, c) => s + c.bytes, 0) + (r.listBytes ?? 0),
});

/**
 * Runs the corpus both ways under work. sample: the corpus's fixed sample
 * (tasks.mjs sampleOf) rather than all of it; filter: the task ids to keep;
 * progress(message). Resolves to { pageTools, playwright (summaries),
 * covered: { tasks, pageTools: cost, playwright: cost }, perTask: [{ id,
 * pageTools, playwright }] }.
 */
export async function corpusBenchmark({ work, sample = false, filter, progress = () => {} }) {
  const dir = path.join(work, 'corpus');
  fs.mkdirSync(dir, { recursive: true });
  const all = corpusTasks().filter((t) => !filter || filter.test(t.id));
  const tasks = sample ? sampleOf(all) : all;
  const env = await startCorpus({ work: dir, playwright: true });
  const pt = [], pw = [];
  try {
    let i = 0;
    for (const s of sessions(tasks)) {
      const order = i++ % 2 ? [['playwright', pw], ['pagetools', pt]] : [['pagetools', pt], ['playwright', pw]];
      for (const [agent, out] of order) out.push(...await runCorpus(env, s, { agent }));
      progress(`corpus: ${s[0].session ?? s[0].id} (${i} of ${sessions(tasks).length} sessions)`);
    }
  } finally {
    await env.close();
  }
  const byId = new Map(pw.map((r) => [r.task.id, r]));
  const perTask = pt.filter((r) => r.verdict === 'done right').map((r) => ({ id: r.task.id, pageTools: cost(r), playwright: cost(byId.get(r.task.id)), playwrightVerdict: byId.get(r.task.id).verdict }));
  const sum = (k) => perTask.reduce((s, x) => ({ calls: s.calls + x[k].calls, ms: s.ms + x[k].ms, bytes: s.bytes + x[k].bytes }), { calls: 0, ms: 0, bytes: 0 });
  return { pageTools: summarize(pt), playwright: summarize(pw), covered: { tasks: perTask.length, pageTools: sum('pageTools'), playwright: sum('playwright') }, perTask };
}

