// Benchmarks of the everyday browser, for scripts/bench.mjs: the user's own
// browser through the Browser Coordinator extension (scripts/lib/userbrowser.mjs),
// each figure measured next to the same work done the usual way in the same run.
import fs from 'node:fs';
import path from 'node:path';
import { connect, startCoordinator, call } from './mcp.mjs';
import { childMCPs } from './paths.mjs';
import { startUserBrowser } from './userbrowser.mjs';
import { waitUntil } from './procs.mjs';
import { cdp } from './cdpclient.mjs';
import { startPlaywrightBridge } from './pwbridge.mjs';

/** The launched browser's flags (launcher.Flags) a user's browser lacks. */
export const launchedFlags = ['--no-default-browser-check', '--disable-default-apps', '--disable-breakpad', '--disable-client-side-phishing-detection',
  '--disable-domain-reliability', '--disable-hang-monitor', '--disable-popup-blocking', '--disable-prompt-on-repost',
  '--disable-background-timer-throttling', '--disable-backgrounding-occluded-windows', '--disable-renderer-backgrounding',
  '--disable-features=Translate,MediaRouter,OptimizationHints,WebUIOmniboxPopup,WebUIOmniboxAimPopup',
  '--metrics-recording-only', '--password-store=basic', '--use-mock-keychain', '--hide-scrollbars', '--mute-audio'];

/**
 * Playwright MCP's navigate + snapshot in the user's browser through the
 * extension vs in a browser the coordinator launched, and a CDP round trip
 * (Runtime.evaluate) in one tab of the user's browser through the extension
 * vs through that same browser's debugging port. With pwExtension (the
 * built Playwright Extension's folder), the same navigate + snapshot through
 * Playwright MCP's own --extension bridge (scripts/lib/pwbridge.mjs), in the
 * same alternation. Returns the medians (ms):
 * { pwLaunched, pwEveryday, pwBridge (undefined without pwExtension), pwPort (undefined without
 * BENCH_EVERYDAY_PORT), rtPort, rtExtension }.
 */
export async function everydayBenchmarks({ work, pages, alternate, n, pwExtension }) {
  const stateDir = fs.mkdtempSync(path.join(work, 'ev-'));
  const cwd = fs.mkdtempSync(path.join(work, 'evw-'));
  // The user's browser, with a debugging port too: the straight way to the same tab.
  // BENCH_EVERYDAY_AS_LAUNCHED=1 gives it the launched browser's flags
  // (launcher.Flags) a user's browser does not have, to tell the bridge's
  // share of the gap from the browser's.
  const asLaunched = process.env.BENCH_EVERYDAY_AS_LAUNCHED ? launchedFlags : [];
  const user = await startUserBrowser({ stateDir, profileRoot: work, args: ['--remote-debugging-port=0', ...asLaunched] });
  const closers = [() => user.stop()];
  try {
    // BENCH_EVERYDAY_PAGE_TOOLS=off|static: both coordinators with --page-tools so (their
    // discovery runs in the agent's tab on each load; the port's Playwright MCP has none).
    const pageTools = process.env.BENCH_EVERYDAY_PAGE_TOOLS ? ['--page-tools', process.env.BENCH_EVERYDAY_PAGE_TOOLS] : [];
    const everyday = await startCoordinator({ stateDir, cwd, args: ['--browser', 'everyday', ...pageTools] });
    closers.unshift(() => everyday.close());
    const launchedState = fs.mkdtempSync(path.join(work, 'evl-'));
    const launched = await startCoordinator({ stateDir: launchedState, cwd, args: pageTools });
    closers.unshift(() => launched.close());
    await call(launched.client, 'coordinator_launch_browser');
    let ev;
    await waitUntil(async () => (ev = (await call(everyday.client, 'coordinator_status')).structuredContent).state === 'running',
      { timeout: 30_000, what: 'the coordinator to connect to the user\'s browser' });
    const lt = (await call(launched.client, 'coordinator_status')).structuredContent;

    // Playwright MCP on each coordinator's endpoint (with its secret, from the state file).
    const endpointOf = (dir) => JSON.parse(fs.readFileSync(fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => path.join(dir, f))[0], 'utf8')).cdpEndpoint;
    const pwL = await connect(childMCPs.playwright[0], [...childMCPs.playwright.slice(1), '--cdp-endpoint', endpointOf(launchedState)], { cwd });
    closers.unshift(() => pwL.close());
    const pwE = await connect(childMCPs.playwright[0], [...childMCPs.playwright.slice(1), '--cdp-endpoint', endpointOf(stateDir)], { cwd });
    closers.unshift(() => pwE.close());
    let pwX;
    if (pwExtension) {
      pwX = await startPlaywrightBridge({ dir: pwExtension, profileRoot: work, cwd });
      closers.unshift(() => pwX.close());
    }
    // BENCH_EVERYDAY_PORT=1: Playwright MCP on the user's browser's own
    // debugging port too, in the same alternation: the same browser without
    // the bridge, to tell the bridge's share of the gap from the browser's.
    let pwP;
    if (process.env.BENCH_EVERYDAY_PORT) {
      const port = fs.readFileSync(path.join(user.profile, 'DevToolsActivePort'), 'utf8').split('\n')[0];
      // On the port Playwright attaches to every target, our extension's service
      // worker too, and enables Network there: each frame of the bridge's
      // WebSocket (the 337 KB injected script included) would come back to it
      // as a Network.webSocketFrame* event, a cost the bridge pays only here.
      pwP = await connect(childMCPs.playwright[0], [...childMCPs.playwright.slice(1), '--cdp-endpoint', `http://127.0.0.1:${port}`],
        { cwd, env: { PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK: '1' } });
      closers.unshift(() => pwP.close());
    }
    let i = 0;
    const navSnap = (c) => async () => {
      const url = `${pages.url}/?n=${i++}`;
      await call(c.client, 'browser_navigate', { url });
      const snap = await call(c.client, 'browser_snapshot');
      if (!snap.text.includes(`Page URL: ${url}\n`)) throw new Error(`the snapshot is not of ${url}: ${snap.text}`);
      if (!/button "Click me"/.test(snap.text)) throw new Error(`no snapshot of ${url}: ${snap.text}`);
    };
    // The bridge connects on its first call (relay, connect page, token): in the warm-up.
    const contenders = [pwL, pwE, ...(pwX ? [pwX] : []), ...(pwP ? [pwP] : [])].map(navSnap);
    await alternate(5, ...contenders);
    const medians = await alternate(n.pw, ...contenders);
    const [pwLaunched, pwEveryday] = medians;
    const pwBridge = pwX ? medians[2] : undefined;
    const pwPort = pwP ? medians.at(-1) : undefined;

    // The CDP round trip in the agent's tab: the coordinator's proxy
    // (through the extension) vs the browser's own port.
    const tab = (await call(everyday.client, 'coordinator_open_tab', { url: `${pages.url}/second` })).structuredContent;
    const port = fs.readFileSync(path.join(user.profile, 'DevToolsActivePort'), 'utf8').split('\n')[0];
    const viaExtension = await cdp(`${endpointOf(stateDir).replace(/^http/, 'ws')}/devtools/page/${tab.id}`);
    closers.unshift(() => viaExtension.close());
    const viaPort = await cdp(`ws://127.0.0.1:${port}/devtools/page/${tab.id}`);
    closers.unshift(() => viaPort.close());
    const evaluate = (c) => async () => {
      const r = await c.call('Runtime.evaluate', { expression: '1+1' });
      if (r.result?.result?.value !== 2) throw new Error(`Runtime.evaluate: ${JSON.stringify(r)}`);
    };
    await alternate(50, evaluate(viaPort), evaluate(viaExtension));
    const [rtPort, rtExtension] = await alternate(n.rt, evaluate(viaPort), evaluate(viaExtension));
    return { pwLaunched, pwEveryday, pwBridge, pwPort, rtPort, rtExtension, browser: ev.browser, launchedBrowser: lt.browser };
  } finally {
    for (const close of closers) await close();
  }
}
