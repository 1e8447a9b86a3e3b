// The corpus of real apps as a test: every task with page tools alone, the
// goals of issue 17 asserted — at least 90 % of the runnable tasks done
// right (checked in the page or on the server), no "done" answer for an
// effect that did not happen — and a floor on what runs, so a harness that
// stopped running apps cannot pass.
//
// NOT YET ENABLED: `npm test` runs the tests in scripts/e2e/ only, and page
// tools do not meet these goals yet (docs/corpus.md has today's figures).
// Run it alone with
//   npm run build && node --test --test-concurrency=1 scripts/corpus/corpus.test.mjs
// and enable it by moving it to scripts/e2e/corpus.test.mjs (its imports
// then need `../lib/…` unchanged: both folders sit beside scripts/lib).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusTasks } from '../lib/corpus/tasks.mjs';
import { startCorpus, runCorpus } from '../lib/corpus/run.mjs';
import { summarize, formatSummary, resultLine } from '../lib/corpus/report.mjs';

test('the corpus of real apps with page tools alone: ≥ 90 % done right, no wrong "done"', { timeout: 30 * 60_000 }, async (t) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-corpus-test-'));
  const env = await startCorpus({ work });
  t.after(async () => {
    await env.close();
    fs.rmSync(work, { recursive: true, force: true });
  });
  const tasks = corpusTasks();
  const results = await runCorpus(env, tasks);
  const s = summarize(results);
  t.diagnostic(formatSummary(s));
  // Apps that do not run as their packages ship them (TodoMVC apps whose
  // package lacks their scripts) are not runnable; the rest must run.
  assert.ok(s.runnable >= 300, `only ${s.runnable} of ${s.total} tasks could run: the harness, not the page tools, is failing`);
  assert.deepEqual(s.wrong.map(resultLine), [], 'a page tool answered "done" for an effect the check did not see');
  const right = s.counts['done right'];
  assert.ok(right >= 0.9 * s.runnable, `${right} of ${s.runnable} runnable tasks done right (${((100 * right) / s.runnable).toFixed(1)} %), the goal is 90 %:\n` +
    results.filter((r) => r.verdict !== 'done right' && r.verdict !== 'not runnable').map(resultLine).join('\n'));
});
