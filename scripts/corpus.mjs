// node scripts/corpus.mjs [--filter REGEX] [--sample] [--json] [--quiet] [--playwright]
// node scripts/corpus.mjs --compare [--sample]
//
// Runs the corpus of real apps (docs/corpus.md) with page tools alone and
// prints each task's verdict and the figures. --filter keeps the tasks whose
// id matches; --sample keeps the fixed sample npm test runs; --json prints
// the results as JSON instead of Markdown; --playwright runs the same tasks
// with Playwright MCP instead. --compare prints `npm run bench`'s corpus
// rows (both agents in one run), and the tasks page tools did right with
// each side's calls, time and bytes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureNpmDeps } from './lib/setup.mjs';
import { buildSidecar } from './lib/build.mjs';
import { corpusTasks, sampleOf } from './lib/corpus/tasks.mjs';
import { startCorpus, runCorpus } from './lib/corpus/run.mjs';
import { summarize, formatSummary, resultLine } from './lib/corpus/report.mjs';

const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const filter = opt('--filter') ? new RegExp(opt('--filter')) : undefined;
const json = args.includes('--json');
const quiet = args.includes('--quiet');
const agent = args.includes('--playwright') ? 'playwright' : 'pagetools';

ensureNpmDeps();
buildSidecar();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-corpus-'));
if (args.includes('--compare')) {
  const { corpusBenchmark } = await import('./lib/corpus/bench.mjs');
  const { corpusRowsOf } = await import('./lib/corpus/benchrows.mjs');
  const sampled = args.includes('--sample');
  try {
    const b = await corpusBenchmark({ work, sample: sampled, filter, progress: (m) => { if (!quiet) process.stderr.write(`${m}\n`); } });
    if (json) console.log(JSON.stringify({ ...b, pageTools: { ...b.pageTools, wrong: b.pageTools.wrong.map((r) => r.task.id) }, playwright: { ...b.playwright, wrong: b.playwright.wrong.map((r) => r.task.id) } }, null, 1));
    else {
      console.log(formatSummary(b.pageTools), '\n');
      console.log(formatSummary(b.playwright, { title: 'Playwright MCP (snapshot, fill, click)' }), '\n');
      console.log('| metric | Playwright MCP | page tools | ratio | goal | met |\n|---|---|---|---|---|---|');
      for (const r of corpusRowsOf(b, sampled)) console.log(`| ${r[0]} | ${r[1]} | ${r[2]} | ${r[3]} | ${r[4]} | ${r[5] ? 'yes' : 'NO'} |`);
      console.log('\n| task page tools did right | page tools: calls, ms, bytes | Playwright MCP: calls, ms, bytes (verdict) |\n|---|---|---|');
      for (const t of b.perTask) console.log(`| ${t.id} | ${t.pageTools.calls}, ${t.pageTools.ms.toFixed(0)}, ${t.pageTools.bytes} | ${t.playwright.calls}, ${t.playwright.ms.toFixed(0)}, ${t.playwright.bytes} (${t.playwrightVerdict}) |`);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.exit(0);
}
const tasks = (args.includes('--sample') ? sampleOf(corpusTasks()) : corpusTasks()).filter((t) => !filter || filter.test(t.id));
const env = await startCorpus({ work, playwright: agent === 'playwright' });
const t0 = performance.now();
let results;
try {
  results = await runCorpus(env, tasks, { agent, onResult: (r) => { if (!quiet) process.stderr.write(`${resultLine(r)}\n`); } });
} finally {
  await env.close();
  fs.rmSync(work, { recursive: true, force: true });
}
const s = summarize(results);
if (json) {
  console.log(JSON.stringify({ summary: { ...s, wrong: s.wrong.map((r) => r.task.id) }, results: results.map(({ task, ...r }) => ({ id: task.id, app: task.app, goal: task.goal, effect: task.effect, failureClass: task.failureClass, ...r, calls: r.calls.map(({ structured, ...c }) => c) })) }, null, 1));
} else {
  console.log(formatSummary(s, { title: agent === 'playwright' ? 'Playwright MCP (snapshot, fill, click)' : 'Page tools alone' }));
  console.log(`\n(${((performance.now() - t0) / 1000).toFixed(0)} s)`);
}
