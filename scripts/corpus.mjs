// node scripts/corpus.mjs [--filter REGEX] [--json] [--quiet] [--playwright]
//
// Runs the corpus of real apps (docs/corpus.md) with page tools alone and
// prints each task's verdict and the figures. --filter keeps the tasks whose
// id matches; --json prints the results as JSON instead of Markdown;
// --playwright runs the same tasks with Playwright MCP instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureNpmDeps } from './lib/setup.mjs';
import { buildSidecar } from './lib/build.mjs';
import { corpusTasks } from './lib/corpus/tasks.mjs';
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
const tasks = corpusTasks().filter((t) => !filter || filter.test(t.id));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-corpus-'));
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
