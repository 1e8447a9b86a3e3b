// The corpus's rows of `npm run bench` (scripts/bench.mjs calls corpusRows).
import { corpusBenchmark } from './bench.mjs';

const pct = (n, d) => `${((100 * n) / Math.max(d, 1)).toFixed(1)} %`;

/**
 * The rows [metric, direct, coordinator, ratio, goal, met]: on the corpus's
 * fixed sample (tasks.mjs sampleOf), or the whole corpus when full
 * (BENCH_CORPUS=full: over an hour on a busy machine).
 */
export async function corpusRows({ work, full, progress }) {
  return corpusRowsOf(await corpusBenchmark({ work, sample: !full, progress }), !full);
}

/** The rows of a corpusBenchmark result. */
export function corpusRowsOf(b, sampled) {
  const { pageTools: p, playwright: w, covered: c } = b;
  const right = p.counts['done right'];
  const rows = [
    [`corpus: tasks done right, page tools alone (${p.runnable} runnable of ${p.total}${sampled ? ', a sample: BENCH_CORPUS=full runs them all' : ''})`,
      `Playwright MCP ${w.counts['done right']} (${pct(w.counts['done right'], w.runnable)})`, `${right} (${pct(right, p.runnable)})`, '-', '≥ 90 %', right >= 0.9 * p.runnable],
    ['corpus: wrong "done" answers (the tool said done, the check failed)', `Playwright MCP ${w.counts['wrong "done"']}`, `${p.counts['wrong "done"']}`, '-', '0', p.counts['wrong "done"'] === 0],
  ];
  if (c.tasks) {
    const x = (a, b2) => (b2 ? (a / b2).toFixed(1) : '-');
    rows.push(
      [`corpus: calls on the ${c.tasks} tasks page tools do right`, `Playwright MCP ${c.playwright.calls}`, `${c.pageTools.calls}`, `${x(c.playwright.calls, c.pageTools.calls)}× fewer`, '≥ 2× fewer', c.playwright.calls >= 2 * c.pageTools.calls],
      [`corpus: time in calls on the ${c.tasks} tasks page tools do right`, `Playwright MCP ${(c.playwright.ms / 1000).toFixed(1)} s`, `${(c.pageTools.ms / 1000).toFixed(1)} s`, `${x(c.playwright.ms, c.pageTools.ms)}× less`, '≥ 2× less', c.playwright.ms >= 2 * c.pageTools.ms],
      [`corpus: bytes on the ${c.tasks} tasks page tools do right (requests, answers, the tools read)`, `Playwright MCP ${c.playwright.bytes} B`, `${c.pageTools.bytes} B`, `${x(c.playwright.bytes, c.pageTools.bytes)}× less`, '(context)', true],
    );
  }
  return rows;
}
