// The page-tools engine's benchmarks, for scripts/bench.mjs: Go benchmarks
// against a real Chromium (sidecar/internal/pagetools/bench_test.go), run
// with `go test -bench` and read from its output.
import { spawnSync } from 'node:child_process';
import { root } from './paths.mjs';

/** Runs the benchmarks; returns { name: { metric: value } }, e.g. r.Discover['ms-median']. */
export function pageToolsBenchmarks({ quick = false } = {}) {
  const r = spawnSync('go', ['test', '-run', '^$', '-bench', '.', '-benchtime', quick ? '10x' : '40x', './sidecar/internal/pagetools/'], {
    cwd: root, encoding: 'utf8', maxBuffer: 16 << 20,
  });
  if (r.status !== 0) throw new Error(`page-tools benchmarks failed:\n${r.stdout}\n${r.stderr}`);
  const out = {};
  for (const line of r.stdout.split('\n')) {
    const m = line.match(/^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$/);
    if (!m) continue;
    const metrics = {};
    for (const [, value, unit] of m[2].matchAll(/([-\d.]+) (\S+)/g)) metrics[unit] = Number(value);
    out[m[1]] = metrics;
  }
  return out;
}

/**
 * Page tools as an MCP client sees them, with a real Chromium and the
 * fixture site (site: startSiteServer()). Answers:
 *   loadToListChanged  ms, median: the page's load event (Page.loadEventFired
 *                      on a CDP client of the page, through the proxy) →
 *                      notifications/tools/list_changed at an MCP client, the
 *                      focused tab going back and forth between two pages
 *                      with different tools (negative: the tools were known
 *                      and listed before the load event)
 *   listBytes          { page: { total, pagePart } } bytes of the tools/list
 *                      answer with that page focused, and the page tools' part
 *   flight             the flight search filled and submitted: one page-tool
 *                      call vs Playwright MCP (browser_snapshot,
 *                      browser_fill_form, browser_click), same browser,
 *                      alternated: { pageTool: {ms, calls, bytes},
 *                      playwright: {ms, calls, bytes} }, ms the medians,
 *                      bytes what the calls answered (the agent's context)
 */
export async function pageToolsMCP({ work, site, n = 20, median }) {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { default: WebSocket } = await import('ws');
  const { startCoordinator, startWrapped, call } = await import('./mcp.mjs');
  const { watchListChanged, untilTools } = await import('./listchanged.mjs');
  const stateDir = path.join(work, 'pt-state');
  const cwd = path.join(work, 'pt-ws');
  fs.mkdirSync(cwd, { recursive: true });
  const coord = await startCoordinator({ stateDir, cwd });
  const pw = await startWrapped('playwright', { stateDir, cwd });
  try {
    const changes = watchListChanged(coord.client);
    const listBytes = async () => JSON.stringify((await coord.client.listTools()).tools).length;
    const coordinatorOnly = await listBytes();

    // Bytes: each typical page, focused.
    const bytes = {};
    const tab = (await call(coord.client, 'coordinator_open_tab', { url: `${site.url}/index.html` })).structuredContent;
    for (const page of ['flights.html', 'inbox.html', 'webmcp.html', 'signin.html', 'results.html?shop=skyways&from=SFO&to=JFK']) {
      const opened = (await call(coord.client, 'coordinator_open_tab', { url: `${site.url}/${page}` })).structuredContent;
      await untilTools(coord.client, changes, (names) => opened.toolsAvailable.every((t) => names.includes(t)));
      const total = await listBytes();
      bytes[page.replace(/\.html.*/, '')] = { total, pagePart: total - coordinatorOnly, tools: opened.toolsAvailable.length };
      await call(coord.client, 'coordinator_close_tab');
    }

    // Load event → list_changed: a CDP client of the focused page
    // navigates it (as a child MCP would) and hears its load event.
    await call(coord.client, 'coordinator_focus_tab', { tabId: tab.id });
    const st = (await call(coord.client, 'coordinator_status')).structuredContent;
    const { readStates } = await import('./statefiles.mjs');
    const endpoint = readStates(stateDir).find((s) => s.pid === st.pid).cdpEndpoint;
    const target = (await (await fetch(`${endpoint}/json/list`)).json()).find((t) => t.id === tab.id);
    const ws = new WebSocket(target.webSocketDebuggerUrl, { perMessageDeflate: false });
    await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
    let id = 0;
    let onLoad = () => {};
    ws.on('message', (d) => { const m = JSON.parse(d); if (m.method === 'Page.loadEventFired') onLoad(performance.now()); });
    ws.send(JSON.stringify({ id: ++id, method: 'Page.enable' }));
    const deltas = [];
    for (let i = 0; i < n + 2; i++) {
      const page = i % 2 ? 'inbox.html' : 'flights.html';
      const loaded = new Promise((r) => { onLoad = r; });
      const changed = changes.next(`list_changed after loading ${page}`).then(() => performance.now());
      ws.send(JSON.stringify({ id: ++id, method: 'Page.navigate', params: { url: `${site.url}/${page}?i=${i}` } }));
      const [tl, tc] = await Promise.all([loaded, changed]);
      if (i >= 2) deltas.push(tc - tl); // the first two warm up
    }
    ws.close();

    // The flight search: one page-tool call vs Playwright MCP's way.
    const answered = (r) => JSON.stringify(r.content).length;
    const toFlights = async () => {
      await call(pw.client, 'browser_navigate', { url: `${site.url}/flights.html` });
      await untilTools(coord.client, changes, (names) => names.includes('search_flights'));
    };
    const flight = { pageTool: { calls: 1, bytes: 0 }, playwright: { calls: 3, bytes: 0 } };
    const pageTool = async () => {
      const r = await call(coord.client, 'search_flights', { from: 'SFO', to: 'JFK', depart_date: '2026-05-01' });
      if (!/\$450/.test(r.text)) throw new Error(`search_flights: ${r.text}`);
      flight.pageTool.bytes = answered(r);
    };
    const playwright = async () => {
      const snap = await call(pw.client, 'browser_snapshot');
      const ref = (re) => snap.text.match(re)?.[1] ?? (() => { throw new Error(`no ${re} in\n${snap.text}`); })();
      const fill = await call(pw.client, 'browser_fill_form', { fields: [
        { name: 'From', type: 'textbox', target: ref(/textbox "From" \[ref=(\w+)\]/), value: 'SFO' },
        { name: 'To', type: 'textbox', target: ref(/textbox "To" \[ref=(\w+)\]/), value: 'JFK' },
        { name: 'Depart date', type: 'textbox', target: ref(/textbox "Depart date" \[ref=(\w+)\]/), value: '2026-05-01' },
      ] });
      const click = await call(pw.client, 'browser_click', { element: 'Search flights button', target: ref(/button "Search flights" \[ref=(\w+)\]/) });
      // Playwright MCP 0.0.83 answers a click with the page's URL and a
      // snapshot saved to a file: reading the prices would be one call more.
      if (!/Page URL: \S+results\.html\?shop=skyways&from=SFO&to=JFK/.test(click.text)) throw new Error(`browser_click: ${click.text}`);
      flight.playwright.bytes = answered(snap) + answered(fill) + answered(click);
    };
    // Playwright MCP's page in front (Chromium throttles the animation
    // frames of a tab behind, which Playwright's clicks wait for).
    await toFlights();
    const front = (await call(coord.client, 'coordinator_list_tabs')).structuredContent.focusedTabId;
    await call(coord.client, 'coordinator_focus_tab', { tabId: front });
    const timed = (fn) => async () => { await toFlights(); const t = performance.now(); await fn(); return performance.now() - t; };
    const tp = [], tw = [];
    for (let i = 0; i < n; i++) {
      for (const [fn, out] of i % 2 ? [[pageTool, tp], [playwright, tw]] : [[playwright, tw], [pageTool, tp]]) out.push(await timed(fn)());
    }
    flight.pageTool.ms = median(tp);
    flight.playwright.ms = median(tw);
    return { loadToListChanged: median(deltas), coordinatorOnly, listBytes: bytes, flight };
  } finally {
    await pw.close();
    await coord.close();
  }
}
