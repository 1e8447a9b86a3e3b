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
// is a quarter of it at most. A second table breaks the memory down by
// process kind (Chromium's --type: browser, renderer, gpu-process, each
// utility service; the coordinator), with what one more isolated agent adds
// to each. Linux only (/proc). Progress goes to stderr, the tables to stdout.
//
//   npm run scale [-- --agents 1,5,20] [--setups isolated] [--browser-flags '--js-flags=...']
//
// With --cycles N it measures instead what agents leave behind: one isolated
// coordinator, N cycles of K agents (--agents K) that come, do their work and
// leave; after each cycle, once the browser says their contexts are gone,
// the browser process's memory (/proc/PID/smaps_rollup: RSS, its anonymous
// part, PSS) and the browser's own counts (Target.getTargets,
// Target.getBrowserContexts, SystemInfo.getProcessInfo), read on a
// debugging port of its own beside the coordinator's pipe; at the end, the
// same after Memory.simulatePressureNotification (critical). Memory that
// grows with every cycle is a leak; memory that stays flat after the first
// cycles is the allocator's.
//
//   npm run scale -- --cycles 12 --agents 3
import fs from 'node:fs';
import net from 'node:net';
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
const cycles = Number(arg('cycles', 0));
const progress = (m) => process.stderr.write(`${m}\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-scale-'));
// --setups isolated: one of the two only; --browser-flags '--a --b': Chromium
// flags to try (through a wrapper given as --browser-path), for both.
const setups = arg('setups', 'own browsers,isolated').split(',');
const browserFlags = arg('browser-flags', '');
const coordArgs = [];
// --cycles: a debugging port of the browser's own, for an observer that
// sees the whole browser (the coordinator's clients see their contexts only).
const observerPort = cycles ? await freePort() : 0;
if (browserFlags || observerPort) {
  const wrapper = path.join(work, 'browser');
  const extra = `${browserFlags}${observerPort ? ` --remote-debugging-port=${observerPort}` : ''}`;
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(findBrowser())} "$@" ${extra}\n`, { mode: 0o755 });
  coordArgs.push('--browser-path', wrapper);
}
const site = await startCorpusServer();

/** A loopback port free now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.once('error', reject);
  });
}
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

/**
 * What kind of process pid is, for the breakdown: Chromium's by its --type
 * (a utility process by its service), the coordinator, or another.
 */
function kind(pid) {
  let argv;
  try {
    // Chromium's children rewrite their title: one string, spaces between.
    argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
  } catch {
    return 'gone';
  }
  const flag = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const exe = path.basename(argv[0] ?? '');
  if (exe.startsWith('browser-coordinator')) return 'coordinator';
  if (exe.includes('crashpad')) return 'crashpad';
  const type = flag('type');
  if (!type) return argv.some((a) => a.startsWith('--remote-debugging-')) ? 'browser' : exe;
  if (type === 'utility') return `utility: ${(flag('utility-sub-type') ?? '?').replace(/\.mojom\.\w+$/, '')}`;
  if (type === 'zygote') return argv.includes('--no-zygote-sandbox') ? 'zygote (unsandboxed)' : 'zygote';
  return type;
}

/** PSS in MB and the count of processes of each kind among pids. */
function breakdown(pids) {
  const by = {};
  for (const p of pids) {
    const k = kind(p);
    const m = pss([p]);
    by[k] ??= { mb: 0, n: 0 };
    by[k].mb += m;
    by[k].n += 1;
  }
  return by;
}

/** One agent: connect, open the app, wait for its load, add an item; resolves to ms from its start to the page loaded. */
async function agent(wsURL, who) {
  const began = performance.now();
  // A browser that could not start in time (a machine at load 80) is
  // refused with a 502: the agent tries again, as one would, and the time
  // counts; the third refusal ends the run.
  let c;
  for (let attempt = 1; !c; attempt++) {
    try {
      c = await cdp(wsURL);
    } catch (err) {
      if (attempt === 3) throw new Error(`agent ${who}: ${err.message}`, { cause: err });
      progress(`agent ${who}: ${err.message}; trying again`);
    }
  }
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
  const coords = await Promise.all(Array.from({ length: n }, (_, i) => startCoordinator({ stateDir: path.join(work, `own-${n}-${i}`), cwd: work, args: coordArgs })));
  try {
    const ws = await Promise.all(coords.map(async (_, i) => {
      const [st] = readStates(path.join(work, `own-${n}-${i}`));
      return `ws://127.0.0.1:${st.proxyPort}/${st.proxySecret}/devtools/browser/coordinator`;
    }));
    const agents = await Promise.all(ws.map((u, i) => agent(u, `own-${i}`)));
    const pids = coords.flatMap((c) => tree(c.pid));
    const mem = pss(pids);
    const by = breakdown(pids);
    for (const a of agents) a.c.close();
    return { times: agents.map((a) => a.took), mem, by };
  } finally {
    await Promise.all(coords.map((c) => c.close()));
  }
}

/** N agents, each a connection to one isolated coordinator. */
async function isolated(n) {
  const stateDir = path.join(work, `iso-${n}`);
  const hc = await startHTTPCoordinator({ stateDir, cwd: work, args: ['--isolated', ...coordArgs] });
  try {
    const [st] = readStates(stateDir);
    const u = `ws://127.0.0.1:${st.proxyPort}/${st.proxySecret}/devtools/browser/coordinator`;
    const agents = await Promise.all(Array.from({ length: n }, (_, i) => agent(u, `iso-${i}`)));
    const pids = tree(hc.pid);
    const mem = pss(pids);
    const by = breakdown(pids);
    for (const a of agents) a.c.close();
    return { times: agents.map((a) => a.took), mem, by };
  } finally {
    await hc.stop();
  }
}

/** The browser process's memory in MB: RSS, its anonymous part, PSS. */
function rollup(pid) {
  const t = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const mb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(t)[1]) / 1024;
  return { rss: mb('Rss'), anon: mb('Anonymous'), pss: mb('Pss') };
}

/** --cycles: N cycles of K agents on one isolated coordinator, and what each cycle left. */
async function leftBehind(n, k) {
  const stateDir = path.join(work, 'cycles');
  const hc = await startHTTPCoordinator({ stateDir, cwd: work, args: ['--isolated', ...coordArgs] });
  let obs;
  try {
    const [st] = readStates(stateDir);
    const u = `ws://127.0.0.1:${st.proxyPort}/${st.proxySecret}/devtools/browser/coordinator`;
    // The browser starts on the first connection; one that opens nothing
    // gives the baseline (its context made and disposed, no page).
    (await cdp(u)).close();
    const guard = performance.now() + 300_000; // a failure guard only
    const browser = () => tree(hc.pid).find((p) => kind(p) === 'browser');
    while (!obs) {
      try {
        const v = await (await fetch(`http://127.0.0.1:${observerPort}/json/version`)).json();
        obs = await cdp(v.webSocketDebuggerUrl);
      } catch (err) {
        if (performance.now() > guard) throw new Error(`the browser's own debugging port did not answer: ${err.message}`, { cause: err });
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const state = async () => {
      const targets = (await obs.call('Target.getTargets', { filter: [{}] })).result.targetInfos;
      return {
        contexts: (await obs.call('Target.getBrowserContexts')).result.browserContextIds.length,
        // targets of contexts the browser no longer lists, being torn down
        leaving: targets.filter((t) => !defaults.has(t.browserContextId)).length,
        targets: targets.length,
        attached: targets.filter((t) => t.attached).length,
        processes: (await obs.call('SystemInfo.getProcessInfo')).result.processInfo.length,
      };
    };
    const defaults = new Set(); // the default context: the browser's first tab's
    defaults.add((await obs.call('Target.getTargets')).result.targetInfos.find((t) => t.type === 'page')?.browserContextId);
    console.log(`\nwhat agents leave behind: ${n} cycles of ${k} agents on one isolated coordinator; the browser process after each cycle\n`);
    console.log('| cycle | agents so far | RSS | anonymous | PSS | contexts | targets (attached) | processes | load |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (let cycle = 0; cycle <= n; cycle++) {
      if (cycle > 0) for (const a of await Promise.all(Array.from({ length: k }, (_, i) => agent(u, `c${cycle}-${i}`)))) a.c.close();
      // Gone when the browser says so (the coordinator disposes a context
      // when its connection closes, and their pages are gone).
      let s = await state();
      while (s.contexts > 0 || s.leaving > 0) {
        if (performance.now() > guard + cycle * 300_000) throw new Error(`the agents' contexts stayed: ${JSON.stringify(s)}`);
        await new Promise((r) => setTimeout(r, 50));
        s = await state();
      }
      const m = rollup(browser());
      const f = (x) => `${x.toFixed(1)} MB`;
      console.log(`| ${cycle} | ${cycle * k} | ${f(m.rss)} | ${f(m.anon)} | ${f(m.pss)} | ${s.contexts} | ${s.targets} (${s.attached}) | ${s.processes} | ${os.loadavg()[0].toFixed(1)} |`);
    }
    const before = rollup(browser());
    await obs.call('Memory.simulatePressureNotification', { level: 'critical' });
    // The browser frees memory on its own time after the notification, and
    // nothing says when it is done: the lowest RSS over the next 5 s.
    let after = rollup(browser());
    for (const until = performance.now() + 5_000; performance.now() < until;) {
      await new Promise((r) => setTimeout(r, 100));
      const m = rollup(browser());
      if (m.rss < after.rss) after = m;
    }
    console.log(`\nafter a critical memory pressure notification: RSS ${before.rss.toFixed(1)} → ${after.rss.toFixed(1)} MB, anonymous ${before.anon.toFixed(1)} → ${after.anon.toFixed(1)} MB`);
  } finally {
    obs?.close();
    await hc.stop();
  }
}

if (cycles) {
  try {
    await leftBehind(cycles, counts[0]);
  } finally {
    await site.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.exit(0);
}

const rows = [];
try {
  for (const n of counts) {
    for (const [name, run] of [['own browsers', ownBrowsers], ['isolated', isolated]].filter(([name]) => setups.includes(name))) {
      progress(`${n} agent(s), ${name} (load ${os.loadavg()[0].toFixed(1)}) ...`);
      const load = os.loadavg()[0];
      try {
        const r = await run(n);
        rows.push({ n, name, ...r, load });
        progress(`  ${(r.mem).toFixed(0)} MB, first page median ${(median(r.times) / 1000).toFixed(1)} s`);
      } catch (err) {
        // A setup that cannot serve N agents here is a result too.
        rows.push({ n, name, failed: err.message, load, by: {} });
        progress(`  failed: ${err.message}`);
      }
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
  if (r.failed) {
    console.log(`| ${r.n} | ${r.name} | failed: ${r.failed} | – | – | ${r.load.toFixed(1)} |`);
    continue;
  }
  console.log(`| ${r.n} | ${r.name} | ${s(median(r.times))} (${s(Math.max(...r.times))}) | ${r.mem.toFixed(0)} MB | ${(r.mem / r.n).toFixed(0)} MB | ${r.load.toFixed(1)} |`);
}
const one = rows.find((r) => r.n === 1 && r.name === 'own browsers' && !r.failed);
const isoOne = rows.find((r) => r.n === 1 && r.name === 'isolated' && !r.failed);
for (const r of rows.filter((x) => x.name === 'isolated' && x.n > 1 && !x.failed)) {
  if (!one || !isoOne) break;
  const extra = (r.mem - isoOne.mem) / (r.n - 1);
  console.log(`\nisolated, ${r.n} agents: one more agent costs ${extra.toFixed(0)} MB, ${(extra / one.mem).toFixed(2)} of a coordinator with its own browser (${one.mem.toFixed(0)} MB); goal ≤ 0.25: ${extra / one.mem <= 0.25 ? 'met' : 'NOT met'}`);
}

// Where the memory is, by process kind: MB (processes) for each run, and for
// isolated the cost of one more agent by kind.
const kinds = [...new Set(rows.flatMap((r) => Object.keys(r.by)))].sort((a, b) => Math.max(...rows.map((r) => r.by[b]?.mb ?? 0)) - Math.max(...rows.map((r) => r.by[a]?.mb ?? 0)));
console.log(`\nmemory by process (PSS, MB, processes in brackets)${browserFlags ? `, Chromium with ${browserFlags}` : ''}:\n`);
console.log(`| process | ${rows.map((r) => `${r.n} ${r.name}`).join(' | ')} |${isoOne ? ' one more isolated agent |' : ''}`);
console.log(`|---|${rows.map(() => '---|').join('')}${isoOne ? '---|' : ''}`);
const isoMax = rows.filter((x) => x.name === 'isolated' && x.n > 1 && !x.failed).at(-1);
for (const k of kinds) {
  const cell = (r) => (r.by[k] ? `${r.by[k].mb.toFixed(1)} (${r.by[k].n})` : '–');
  const extra = isoOne && isoMax ? ` ${(((isoMax.by[k]?.mb ?? 0) - (isoOne.by[k]?.mb ?? 0)) / (isoMax.n - 1)).toFixed(1)} |` : '';
  console.log(`| ${k} | ${rows.map(cell).join(' | ')} |${extra}`);
}
