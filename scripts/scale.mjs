// npm run scale: what many agents on one machine cost, two ways.
//
//   own browsers   N coordinators, each with a browser of its own (what every
//                  agent starting its own coordinator gets);
//   isolated       one coordinator (--transport http --isolated) whose N
//                  clients each work in a browser context of its own.
//
// An agent here is a CDP client (this process) that connects to its
// endpoint, opens a page of a real app (TodoMVC's React app from npm), waits
// for its load event and adds an item to it. All N start at once, as
// parallel agents do; the browser starts on the first connection, as an
// agent's first call starts it. The figures, for N = 1, 5 and 20:
//
//   time to first page   an agent's start → its page loaded (median and slowest)
//   memory               the proportional set size (PSS: shared pages split
//                        among the processes that share them) of every
//                        coordinator and browser process, summed once all
//                        pages are loaded; the agents' own MCPs (a Playwright
//                        MCP each, in both setups alike) are not counted
//
// and the cost of one more agent: isolated (PSS(N) − PSS(1)) / (N − 1)
// against one whole coordinator and browser (own browsers' PSS(1)); the goal
// is a quarter of it at most. Linux only (/proc). Progress goes to stderr,
// the table to stdout.
//
//   npm run scale [-- --agents 1,5,20]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureNpmDeps, findBrowser, installAdvice } from './lib/setup.mjs';
import { buildSidecar, requireGo } from './lib/build.mjs';

ensureNpmDeps();
requireGo();
buildSidecar();
if (!findBrowser()) {
  console.error(installAdvice);
  process.exit(1);
}
if (process.platform !== 'linux') {
  console.error('npm run scale reads /proc: it runs on Linux');
  process.exit(1);
}
const { cdp } = await import('./lib/cdpclient.mjs');
const { startCoordinator } = await import('./lib/mcp.mjs');
const { startHTTPCoordinator } = await import('./lib/httpmcp.mjs');
const { readStates } = await import('./lib/statefiles.mjs');
const { startCorpusServer } = await import('./lib/corpus/server.mjs');

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const counts = arg('agents', '1,5,20').split(',').map(Number);
const progress = (m) => process.stderr.write(`${m}\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-scale-'));
const site = await startCorpusServer();
const app = `${site.url}/todomvc/examples/react/index.html`;

/** The pids of pid and its descendants. */
function tree(pid) {
  const children = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const walk = (p) => { out.push(p); for (const c of children.get(p) ?? []) walk(c); };
  walk(pid);
  return out;
}

/** PSS of processes, in MB. */
function pss(pids) {
  let kb = 0;
  for (const p of pids) {
    try {
      kb += Number(/^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))[1]);
    } catch {
      // gone meanwhile
    }
  }
  return kb / 1024;
}

/** One agent: connect, open the app, wait for its load, add an item; resolves to ms from its start to the page loaded. */
async function agent(wsURL, who) {
  const began = performance.now();
  const c = await cdp(wsURL);
  const { targetId } = (await c.call('Target.createTarget', { url: 'about:blank' })).result;
  const { sessionId } = (await c.call('Target.attachToTarget', { targetId, flatten: true })).result;
  await c.call('Page.enable', {}, sessionId);
  await c.call('Page.navigate', { url: app }, sessionId);
  const ready = async () => (await c.call('Runtime.evaluate', { expression: "document.readyState === 'complete' && !!document.querySelector('#new-todo, .new-todo')", returnByValue: true }, sessionId)).result?.result?.value;
  const guard = performance.now() + 300_000; // a failure guard only
  while (!(await ready())) { // the client has no event stream of its own (cdpclient.mjs)
    if (performance.now() > guard) throw new Error(`agent ${who}: ${app} did not show its new-todo input within 5 minutes`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const took = performance.now() - began;
  // Its work: an item typed into the app as a person types it, seen in the page.
  await c.call('Runtime.evaluate', { expression: "document.querySelector('#new-todo, .new-todo').focus()" }, sessionId);
  await c.call('Input.insertText', { text: who }, sessionId);
  for (const type of ['keyDown', 'keyUp']) await c.call('Input.dispatchKeyEvent', { type, key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13 }, sessionId);
  const items = await c.call('Runtime.evaluate', { expression: "[...document.querySelectorAll('#todo-list li, .todo-list li')].map((li) => li.textContent).join()", returnByValue: true }, sessionId);
  if (items.result?.result?.value !== who) throw new Error(`agent ${who}: the app's list is ${JSON.stringify(items.result?.result?.value ?? items)}`);
  return { took, c };
}

/** N agents, each with a coordinator and browser of its own. */
async function ownBrowsers(n) {
  const coords = await Promise.all(Array.from({ length: n }, (_, i) => startCoordinator({ stateDir: path.join(work, `own-${n}-${i}`), cwd: work })));
  try {
    const ws = await Promise.all(coords.map(async (_, i) => {
      const [st] = readStates(path.join(work, `own-${n}-${i}`));
      return `ws://127.0.0.1:${st.proxyPort}/${st.proxySecret}/devtools/browser/coordinator`;
    }));
    const agents = await Promise.all(ws.map((u, i) => agent(u, `own-${i}`)));
    const mem = pss(coords.flatMap((c) => tree(c.pid)));
    for (const a of agents) a.c.close();
    return { times: agents.map((a) => a.took), mem };
  } finally {
    await Promise.all(coords.map((c) => c.close()));
  }
}

/** N agents, each a connection to one isolated coordinator. */
async function isolated(n) {
  const stateDir = path.join(work, `iso-${n}`);
  const hc = await startHTTPCoordinator({ stateDir, cwd: work, args: ['--isolated'] });
  try {
    const [st] = readStates(stateDir);
    const u = `ws://127.0.0.1:${st.proxyPort}/${st.proxySecret}/devtools/browser/coordinator`;
    const agents = await Promise.all(Array.from({ length: n }, (_, i) => agent(u, `iso-${i}`)));
    const mem = pss(tree(hc.pid));
    for (const a of agents) a.c.close();
    return { times: agents.map((a) => a.took), mem };
  } finally {
    await hc.stop();
  }
}

const rows = [];
try {
  for (const n of counts) {
    for (const [name, run] of [['own browsers', ownBrowsers], ['isolated', isolated]]) {
      progress(`${n} agent(s), ${name} (load ${os.loadavg()[0].toFixed(1)}) ...`);
      const load = os.loadavg()[0];
      const r = await run(n);
      rows.push({ n, name, ...r, load });
    }
  }
} finally {
  await site.close();
  fs.rmSync(work, { recursive: true, force: true });
}

const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
console.log('\n| agents | setup | time to first page: median (slowest) | memory (PSS) | per agent | load |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.n} | ${r.name} | ${s(median(r.times))} (${s(Math.max(...r.times))}) | ${r.mem.toFixed(0)} MB | ${(r.mem / r.n).toFixed(0)} MB | ${r.load.toFixed(1)} |`);
}
const one = rows.find((r) => r.n === 1 && r.name === 'own browsers');
const isoOne = rows.find((r) => r.n === 1 && r.name === 'isolated');
for (const r of rows.filter((x) => x.name === 'isolated' && x.n > 1)) {
  if (!one || !isoOne) break;
  const extra = (r.mem - isoOne.mem) / (r.n - 1);
  console.log(`\nisolated, ${r.n} agents: one more agent costs ${extra.toFixed(0)} MB, ${(extra / one.mem).toFixed(2)} of a coordinator with its own browser (${one.mem.toFixed(0)} MB); goal ≤ 0.25: ${extra / one.mem <= 0.25 ? 'met' : 'NOT met'}`);
}
