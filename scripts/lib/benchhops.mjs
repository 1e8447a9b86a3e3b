// The everyday round trip, hop by hop, for scripts/bench.mjs (BENCH_ONLY=hops):
// where a CDP command through the extension spends its time, and the floor
// no bridge on chrome.debugger can go under.
//
//   client → the coordinator's proxy → the Conn (everyday) → the channel's
//   WebSocket → the extension's service worker → chrome.debugger.sendCommand
//   → the tab, and back.
//
// Nothing here is in the product. The coordinator is a second build of the
// sidecar with -tags hoptrace (everyday/hops_on.go: timestamps at the Conn's
// hops, written to a file on SIGUSR1); the service worker's hops are read by
// wrapping, from the harness's debugging pipe, the three functions its path
// calls (JSON.parse of a command, chrome.debugger.sendCommand,
// WebSocket.prototype.send). Durations are taken inside one process each,
// so no two clocks are compared.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { connect, call } from './mcp.mjs';
import { root } from './paths.mjs';
import { startUserBrowser, extensionId } from './userbrowser.mjs';
import { waitUntil } from './procs.mjs';
import WebSocket from 'ws';
import { cdp } from './cdpclient.mjs';

import { childMCPs } from './paths.mjs';
import { startChromium } from './chromium.mjs';
import { launchedFlags } from './bencheveryday.mjs';

const isWorker = (t) => t.type === 'service_worker' && t.url.includes(extensionId);

/**
 * Returns { floor: {port, worker, extension} (medians, ms, alternated in
 * blocks), hops: [[name, median ms]], trips, counts }.
 */
export async function hopBenchmarks({ work, pages, median, n }) {
  const binary = path.join(work, 'browser-coordinator-hoptrace');
  execFileSync('go', ['build', '-tags', 'hoptrace', '-o', binary, './sidecar/cmd/browser-coordinator'], { cwd: root, stdio: 'inherit' });
  const stateDir = fs.mkdtempSync(path.join(work, 'hops-'));
  const cwd = fs.mkdtempSync(path.join(work, 'hopsw-'));
  const traceFile = path.join(work, 'hoptrace.json');
  const user = await startUserBrowser({ stateDir, profileRoot: work, args: ['--remote-debugging-port=0'] });
  const closers = [() => user.stop()];
  try {
    const coord = await connect(binary, ['--browser', 'everyday'], {
      cwd, name: 'hops', env: { BROWSER_COORDINATOR_STATE_DIR: stateDir, BROWSER_COORDINATOR_HOPTRACE: traceFile },
    });
    closers.unshift(() => coord.close());
    await waitUntil(async () => (await call(coord.client, 'coordinator_status')).structuredContent.state === 'running',
      { timeout: 30_000, what: "the coordinator to connect to the user's browser" });
    const endpoint = JSON.parse(fs.readFileSync(fs.readdirSync(stateDir).filter((f) => f.endsWith('.json')).map((f) => path.join(stateDir, f))[0], 'utf8')).cdpEndpoint;
    const tab = (await call(coord.client, 'coordinator_open_tab', { url: `${pages.url}/second` })).structuredContent;
    const port = fs.readFileSync(path.join(user.profile, 'DevToolsActivePort'), 'utf8').split('\n')[0];
    const viaExtension = await cdp(`${endpoint.replace(/^http/, 'ws')}/devtools/page/${tab.id}`);
    closers.unshift(() => viaExtension.close());
    const viaPort = await cdp(`ws://127.0.0.1:${port}/devtools/page/${tab.id}`);
    closers.unshift(() => viaPort.close());
    const evaluate = async (c) => {
      const r = await c.call('Runtime.evaluate', { expression: '1+1' });
      if (r.result?.result?.value !== 2) throw new Error(`Runtime.evaluate: ${JSON.stringify(r)}`);
    };
    // The tab's id as the extension knows it (the coordinator's target id is the browser's).
    const tabId = await user.evalIn(isWorker, `(async () => (await chrome.tabs.query({})).find((t) => t.url === ${JSON.stringify(`${pages.url}/second`)}).id)()`);
    for (let i = 0; i < 50; i++) {
      await evaluate(viaPort);
      await evaluate(viaExtension);
    }

    // The floor: chrome.debugger.sendCommand timed inside the service worker
    // alone, in blocks alternated with the same evaluate over the port and
    // through the extension (timed by this client).
    const block = 100;
    const floor = { port: [], worker: [], extension: [] };
    const inWorker = `(async () => {
      const out = [];
      for (let i = 0; i < ${block}; i++) {
        const t = performance.now();
        const r = await chrome.debugger.sendCommand({ tabId: ${tabId} }, 'Runtime.evaluate', { expression: '1+1' });
        out.push(performance.now() - t);
        if (r?.result?.value !== 2) throw new Error('Runtime.evaluate: ' + JSON.stringify(r));
      }
      return out;
    })()`;
    const means = { port: [], worker: [], extension: [] };
    for (let b = 0; b < Math.ceil(n / block); b++) {
      const w = await user.evalIn(isWorker, inWorker);
      floor.worker.push(...w);
      means.worker.push(w.reduce((a, b) => a + b, 0) / block);
      for (const [name, c] of [['port', viaPort], ['extension', viaExtension]]) {
        const t0 = performance.now();
        for (let i = 0; i < block; i++) {
          const t = performance.now();
          await evaluate(c);
          floor[name].push(performance.now() - t);
        }
        means[name].push((performance.now() - t0) / block);
      }
    }

    // A large command: a 500 KB script, the size of the one Playwright
    // injects into each new document, on the port and through the extension.
    const script = `(() => { const s = ${JSON.stringify('x'.repeat(500 << 10))}; return s.length; })()`;
    const big = (c) => async () => {
      const r = await c.call('Runtime.evaluate', { expression: script, returnByValue: true });
      if (r.result?.result?.value !== 500 << 10) throw new Error(`Runtime.evaluate: ${JSON.stringify(r).slice(0, 300)}`);
    };
    const large = { port: [], extension: [] };
    for (let k = 0; k < Math.max(20, n / 20) + 3; k++) {
      for (const [name, c] of k % 2 ? [['port', viaPort], ['extension', viaExtension]] : [['extension', viaExtension], ['port', viaPort]]) {
        const t = performance.now();
        await big(c)();
        if (k >= 3) large[name].push(performance.now() - t);
      }
    }

    // The hops: wrap the worker's three calls, then time round trips
    // through the extension while both sides take their marks.
    await user.evalIn(isWorker, `(() => {
      const h = globalThis.__hops = { parse: [], cmd0: [], cmd1: [], send: [] };
      const parse = JSON.parse;
      JSON.parse = function (s, r) { if (typeof s === 'string' && s.includes('"type":"command"')) h.parse.push(performance.now()); return parse.call(this, s, r); };
      const send = chrome.debugger.sendCommand;
      chrome.debugger.sendCommand = function (...a) {
        const t = performance.now();
        return send.apply(this, a).then((r) => { h.cmd0.push(t); h.cmd1.push(performance.now()); return r; });
      };
      const wsSend = WebSocket.prototype.send;
      WebSocket.prototype.send = function (d) { h.send.push(performance.now()); return wsSend.call(this, d); };
      return true;
    })()`);
    const takeTrace = async () => {
      fs.rmSync(traceFile, { force: true });
      process.kill(coord.pid, 'SIGUSR1');
      await waitUntil(() => fs.existsSync(traceFile), { what: 'the hop trace' });
      return JSON.parse(fs.readFileSync(traceFile, 'utf8'));
    };
    await takeTrace(); // clears the warm-up's marks
    await user.evalIn(isWorker, 'globalThis.__hops.parse.length = globalThis.__hops.cmd0.length = globalThis.__hops.cmd1.length = globalThis.__hops.send.length = 0');
    const total = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await evaluate(viaExtension);
      total.push(performance.now() - t);
    }
    const [cmdIn, chanOut, chanIn, msgOut] = (await takeTrace()).map((xs) => xs ?? []);
    const sw = await user.evalIn(isWorker, 'globalThis.__hops');
    const counts = { client: total.length, cmdIn: cmdIn.length, chanOut: chanOut.length, chanIn: chanIn.length, msgOut: msgOut.length, swParse: sw.parse.length, swCmd: sw.cmd1.length, swSend: sw.send.length };
    if (Object.values(counts).some((c) => c !== n)) throw new Error(`the hops do not pair one to one: ${JSON.stringify(counts)}`);
    const each = (f) => median(total.map((_, i) => f(i)));
    const ns = 1e6;
    const g = (i) => (msgOut[i] - cmdIn[i]) / ns; // inside the coordinator's Conn, command in → answer out
    const w = (i) => (chanIn[i] - chanOut[i]) / ns; // the channel written → its answer read
    const s = (i) => sw.send[i] - sw.parse[i]; // the worker: the command parsed → the answer sent
    const d = (i) => sw.cmd1[i] - sw.cmd0[i]; // chrome.debugger.sendCommand
    const hops = [
      ['client → proxy → Conn, and back (the proxy, the virtual browser, the reach check)', each((i) => total[i] - g(i))],
      ['the Conn: command in → channel written, and answer read → handed out', each((i) => g(i) - w(i))],
      ['the channel: WebSocket both ways, and the worker\'s event dispatch', each((i) => w(i) - s(i))],
      ['the service worker: parse, the Bridge, the answer\'s JSON and send', each((i) => s(i) - d(i))],
      ['chrome.debugger.sendCommand (inside the worker)', each(d)],
      ['total, at the client', median(total)],
    ];
    const floorOut = { port: median(floor.port), worker: median(floor.worker), extension: median(floor.extension), n: floor.worker.length,
      means: { port: median(means.port), worker: median(means.worker), extension: median(means.extension) } };
    return { floor: floorOut, large: { port: median(large.port), extension: median(large.extension), n: large.port.length }, hops, counts, tool: await toolCall({ user, stateDir, port, pages, cwd, median, n: Math.max(20, Math.round(n / 10)), tab: tab.id }) };
  } finally {
    for (const close of closers) await close();
  }
}

/**
 * What a navigation's events cost through the bridge: Page.navigate and
 * the wait for its Page.loadEventFired, in the same tab, on the browser's
 * debugging port and through the extension (alternated); and what one
 * Playwright MCP browser_navigate + browser_snapshot through the extension
 * sends across the channel (commands in; answers and events out).
 */
async function toolCall({ user, stateDir, port, pages, cwd, median, n, tab }) {
  const endpoint = JSON.parse(fs.readFileSync(fs.readdirSync(stateDir).filter((f) => f.endsWith('.json')).map((f) => path.join(stateDir, f))[0], 'utf8')).cdpEndpoint;
  const viaPort = await eventClient(`ws://127.0.0.1:${port}/devtools/page/${tab}`);
  const viaExt = await eventClient(`${endpoint.replace(/^http/, 'ws')}/devtools/page/${tab}`);
  const pwE = await connect(childMCPs.playwright[0], [...childMCPs.playwright.slice(1), '--cdp-endpoint', endpoint], { cwd });
  // A browser started as the coordinator launches one (launcher.Flags), on a port: the same navigation there.
  const other = await startChromium({ profile: fs.mkdtempSync(path.join(path.dirname(stateDir), 'hopsl-')), args: launchedFlags });
  const page = (await (await fetch(`http://127.0.0.1:${other.port}/json/list`)).json()).find((t) => t.type === 'page');
  const viaLaunched = await eventClient(page.webSocketDebuggerUrl);
  try {
    await viaPort.call('Page.enable');
    await viaExt.call('Page.enable');
    await viaLaunched.call('Page.enable');
    let i = 0;
    const navigate = (c) => async () => {
      const loaded = c.next('Page.loadEventFired');
      const r = await c.call('Page.navigate', { url: `${pages.url}/?nav=${i++}` });
      if (r.error) throw new Error(`Page.navigate: ${JSON.stringify(r.error)}`);
      await loaded;
    };
    const nav = { port: [], ext: [], launched: [] };
    const roads = [['port', viaPort], ['ext', viaExt], ['launched', viaLaunched]];
    for (let k = 0; k < n + 5; k++) {
      for (const [name, c] of [...roads.slice(k % 3), ...roads.slice(0, k % 3)]) {
        const t = performance.now();
        await navigate(c)();
        if (k >= 5) nav[name].push(performance.now() - t);
      }
    }
    const one = async () => {
      const url = `${pages.url}/?n=${i++}`;
      await call(pwE.client, 'browser_navigate', { url });
      const snap = await call(pwE.client, 'browser_snapshot');
      if (!snap.text.includes(`Page URL: ${url}\n`) || !/button "Click me"/.test(snap.text)) throw new Error(`not a snapshot of ${url}: ${snap.text}`);
    };
    for (let k = 0; k < 3; k++) await one();
    await user.evalIn(isWorker, `(() => {
      const c = globalThis.__count = { commands: 0, lines: {}, writes: 0 };
      const parse = JSON.parse;
      JSON.parse = function (s, r) { if (typeof s === 'string' && s.includes('"type":"command"')) c.commands++; return parse.call(this, s, r); };
      const wsSend = WebSocket.prototype.send;
      WebSocket.prototype.send = function (d) { for (const l of String(d).split('\\n')) { const t = /"type":"(\\w+)"/.exec(l)?.[1] ?? '?'; c.lines[t] = (c.lines[t] ?? 0) + 1; } c.writes++; return wsSend.call(this, d); };
      return true;
    })()`);
    const calls = 10;
    for (let k = 0; k < calls; k++) await one();
    const count = await user.evalIn(isWorker, 'globalThis.__count');
    return {
      n,
      navigate: { port: median(nav.port), ext: median(nav.ext), launched: median(nav.launched) },
      perCall: { commands: count.commands / calls, writes: count.writes / calls, lines: Object.fromEntries(Object.entries(count.lines).map(([k, v]) => [k, v / calls])) },
    };
  } finally {
    await pwE.close();
    viaLaunched.close();
    await other.kill();
    viaExt.close();
    viaPort.close();
  }
}

/** A CDP client that also waits for events: { call, next(method), close }. */
function eventClient(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    let id = 0;
    const waiting = new Map();
    const events = new Map();
    ws.on('message', (data) => {
      const m = JSON.parse(data);
      if (m.id !== undefined) {
        waiting.get(m.id)?.(m);
        waiting.delete(m.id);
      } else {
        events.get(m.method)?.(m);
        events.delete(m.method);
      }
    });
    ws.once('open', () => resolve({
      call: (method, params = {}) => new Promise((res) => {
        waiting.set(++id, res);
        ws.send(JSON.stringify({ id, method, params }));
      }),
      next: (method) => new Promise((res) => events.set(method, res)),
      close: () => ws.close(),
    }));
    ws.once('error', reject);
  });
}
