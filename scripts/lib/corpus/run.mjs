// The corpus runner: one server, one coordinator and its browser shared by
// every task; each session (a TodoMVC app's five tasks, or one task) on a
// tab of its own, its origin's storage cleared first. Each task: its
// starting state set up by the corpus's own hands, the agent's attempt
// (page tools, or Playwright MCP), then the check — in the page or on the
// server — and the verdict:
//   done right      the check passes
//   wrong "done"    the tool answered success, the check fails (goal: none)
//   honest failure  an error answer, or no tool fits (the agent gave up)
//   no answer       a call got no answer within its time
//   not runnable    the app does not run here as its package ships it
import fs from 'node:fs';
import path from 'node:path';
import { startCorpusServer } from './server.mjs';
import { uploadFile } from './apps/govuk.mjs';
import { corpusRoutes } from './tasks.mjs';
import { attachPage } from './page.mjs';
import { tryWithPageTools } from './pagetools.mjs';
import { tryWithPlaywright } from './playwright.mjs';
import { startCoordinator, startWrapped, call } from '../mcp.mjs';
import { readStates } from '../statefiles.mjs';
import { waitUntil } from '../procs.mjs';

export const verdicts = ['done right', 'wrong "done"', 'honest failure', 'no answer', 'not runnable'];

/**
 * Starts what the corpus needs under work: the server, a coordinator (its
 * browser launched), and with playwright: true a wrapped Playwright MCP on
 * the same browser. Resolves to { server, coord, pw?, endpoint, close() }.
 */
export async function startCorpus({ work, playwright = false }) {
  const stateDir = path.join(work, 'state');
  const cwd = path.join(work, 'ws');
  fs.mkdirSync(cwd, { recursive: true });
  fs.copyFileSync(uploadFile, path.join(cwd, path.basename(uploadFile))); // files an agent uploads are in its workspace
  // Two origins: the agents' apps keep their state in the origin's storage,
  // and a page left open by one must not write into the other's.
  const server = await startCorpusServer({ hosts: ['127.0.0.1', '127.0.0.2'], routes: corpusRoutes() });
  const coord = await startCoordinator({ stateDir, cwd });
  const closers = [() => server.close(), () => coord.close()];
  try {
    await call(coord.client, 'coordinator_launch_browser');
    const { cdpEndpoint: endpoint } = readStates(stateDir).find((s) => s.pid === coord.pid) ?? readStates(stateDir)[0];
    const coordinatorTools = (await coord.client.listTools()).tools;
    const pw = playwright ? await startWrapped('playwright', { stateDir, cwd }) : undefined;
    if (pw) closers.push(() => pw.close());
    const env = { server, coord, pw, endpoint, coordinatorTools, workspace: cwd, sessions: 0 };
    env.close = async () => { await env.tab?.close(); for (const c of closers.reverse()) await c().catch(() => {}); };
    return env;
  } catch (err) {
    for (const c of closers.reverse()) await c().catch(() => {});
    throw err;
  }
}

/** Tasks grouped into sessions, in order. */
export function sessions(tasks) {
  const out = new Map();
  for (const t of tasks) {
    const k = t.session ?? t.id;
    if (!out.has(k)) out.set(k, []);
    out.get(k).push(t);
  }
  return [...out.values()];
}

/** Waits (bounded) until the page's readiness test holds: an app that renders after its load event. */
function ready(page, test, ms = 15_000) {
  return waitUntil(() => page.eval(`() => !!(${test})`).catch(() => false), { timeout: ms, what: `the page to show ${test}` });
}

/**
 * The agents: the origin each uses, how each opens its tab (at url), goes
 * to a session's app in it, and tries a task.
 */
export const agents = {
  // One focused tab for every session (a tab opened and closed per task
  // costs a second each); a new one after a session that left it stuck.
  pagetools: {
    origin: (env) => env.server.urls[0],
    async open(env, url) {
      if (env.tab) {
        // Playwright MCP's page may be in front (the bench runs both): focus ours again.
        await call(env.coord.client, 'coordinator_focus_tab', { tabId: env.tab.targetId });
        await env.tab.page.navigate(url);
        return env.tab;
      }
      const tab = (await call(env.coord.client, 'coordinator_open_tab', { url })).structuredContent;
      const page = await attachPage(env.endpoint, tab.id);
      env.tab = { targetId: tab.id, page, close: () => { page.close(); return call(env.coord.client, 'coordinator_close_tab', { tabId: tab.id }, { allowError: true }); } };
      return env.tab;
    },
    go: (env, page, url) => page.navigate(url),
    async done(env, results) {
      if (!results.some((r) => r.verdict === 'no answer')) return;
      await env.tab.close();
      env.tab = undefined;
    },
    attempt: (env, task) => tryWithPageTools(env.coord.client, task.intent, env.coordinatorTools),
  },
  // Playwright MCP keeps one page of its own: each session navigates it.
  playwright: {
    origin: (env) => env.server.urls[1],
    async open(env, url) {
      await call(env.pw.client, 'browser_navigate', { url });
      let target;
      await waitUntil(async () => {
        const list = await (await fetch(`${env.endpoint}/json/list`, { signal: AbortSignal.timeout(10_000) })).json();
        target = list.find((t) => t.type === 'page' && t.url === url);
        return target;
      }, { what: `Playwright MCP's page at ${url} among the browser's targets` });
      // In front: Chromium throttles a tab behind, and Playwright's clicks wait for its frames.
      await call(env.coord.client, 'coordinator_focus_tab', { tabId: target.id });
      return { targetId: target.id };
    },
    go: (env, page, url) => call(env.pw.client, 'browser_navigate', { url }),
    attempt: (env, task) => tryWithPlaywright(env.pw.client, task.intent, { workspace: env.workspace }),
  },
};

/** Runs tasks with agent (a key of agents, or an agent); onResult(result) after each. Resolves to the results. */
export async function runCorpus(env, tasks, { agent = 'pagetools', onResult = () => {} } = {}) {
  const a = typeof agent === 'string' ? agents[agent] : agent;
  const results = [];
  const done = (r) => { results.push(r); onResult(r); };
  for (const session of sessions(tasks)) {
    if (session[0].skip) {
      for (const t of session) done({ task: t, verdict: 'not runnable', detail: t.skip, calls: [] });
      continue;
    }
    const url = a.origin(env) + session[0].url;
    const sessionMark = env.server.mark();
    const o0 = performance.now();
    // Each session starts on a blank page of its app's origin, whose storage
    // is emptied from inside (a page still open elsewhere cannot write it back).
    const tab = await a.open(env, `${a.origin(env)}/corpus/blank?session=${++env.sessions}`);
    const page = tab.page ?? await attachPage(env.endpoint, tab.targetId);
    const mine = [];
    try {
      await page.eval('() => { localStorage.clear(); sessionStorage.clear(); }');
      await a.go(env, page, url);
      const opened = performance.now() - o0;
      let broken;
      for (const t of session) {
        if (broken) { done({ task: t, verdict: 'not runnable', detail: broken, calls: [] }); continue; }
        const r = await runTask(env, a, t, page, sessionMark);
        if (t === session[0]) r.phases = { ...r.phases, open: opened };
        if (r.verdict === 'not runnable') broken = r.detail;
        mine.push(r);
        done(r);
      }
    } finally {
      if (!tab.page) page.close();
      await a.done?.(env, mine).catch(() => {});
    }
  }
  return results;
}

async function runTask(env, a, task, page, sessionMark) {
  const t0 = performance.now();
  try {
    await task.setup?.(page);
    if (task.ready) await ready(page, task.ready);
  } catch (err) {
    const missing = env.server.since(sessionMark).filter((r) => r.status === 404).map((r) => r.path);
    const why = missing.length ? `; the package lacks ${[...new Set(missing)].slice(0, 3).join(', ')}${missing.length > 3 ? ' …' : ''}` : page.errors.length ? `; the page's errors: ${page.errors.slice(0, 2).join(' | ')}` : '';
    return { task, verdict: 'not runnable', detail: `${err.message}${why}`, calls: [] };
  }
  const mark = env.server.mark();
  // A check that passes before the attempt cannot tell anything: the task is broken, not the tool.
  if ((await Promise.resolve().then(() => task.check({ page, received: [], acted: false })).catch(() => ({ ok: false }))).ok) {
    return { task, verdict: 'not runnable', detail: 'its check passed before the attempt: the starting state is wrong', calls: [] };
  }
  const t1 = performance.now();
  const attempt = await a.attempt(env, task, page);
  const t2 = performance.now();
  if (page.dialogOpen) await page.dialog(false).catch(() => {}); // so the page can be read; an unanswered dialog's effect never came
  let check;
  try {
    check = await task.check({ page, received: env.server.since(mark), acted: attempt.calls.length > 0 });
  } catch (err) {
    check = { ok: false, detail: `the check could not read the page: ${err.message}` };
  }
  const phases = { setup: t1 - t0, attempt: t2 - t1, check: performance.now() - t2 };
  const detail = check.ok
    ? (attempt.verdict === 'answered-ok' ? undefined : `done, but the agent saw ${attempt.verdict}: ${attempt.reason}`)
    : `${check.detail}${attempt.reason ? ` — ${attempt.reason}` : ''}`;
  return { task, ...attempt, phases, check, verdict: classify(check, attempt), detail };
}

/** The verdict of an attempt given its check. */
export function classify(check, attempt) {
  if (check.ok) return 'done right';
  if (attempt.verdict === 'answered-ok') return 'wrong "done"';
  if (attempt.verdict === 'timeout') return 'no answer';
  return 'honest failure';
}
