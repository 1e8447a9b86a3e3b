// What --isolated costs a CDP client (npm run bench): the same work through
// two coordinators started side by side, one sharing its browser (every
// client a browser session of its own), one isolated (every connection a
// browser context of its own, its Target domain narrowed). Each client opens
// a page and works in it; the figures are the medians of the same calls,
// alternated, and the coordinator's own CPU time per call (/proc/PID/stat,
// less noisy than wall time on a loaded machine), so that the narrowing's
// cost is seen apart from the browser's.
import fs from 'node:fs';
import path from 'node:path';
import { cdp } from './cdpclient.mjs';
import { startHTTPCoordinator } from './httpmcp.mjs';
import { readStates } from './statefiles.mjs';

/** CPU time (user + system) the process pid has used, in ms. */
function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100); // clock ticks: 100 per second on Linux
}

/** A raw client of a coordinator's endpoint, attached to a page of its own at url. */
async function clientOn(stateDir, url) {
  const [st] = readStates(stateDir);
  const version = await (await fetch(`${st.cdpEndpoint}/json/version`)).json();
  const c = await cdp(version.webSocketDebuggerUrl);
  const { targetId } = (await c.call('Target.createTarget', { url })).result;
  const { sessionId } = (await c.call('Target.attachToTarget', { targetId, flatten: true })).result;
  return { ...c, on: (method, params) => c.call(method, params, sessionId) };
}

/**
 * Runs the figures; resolves to rows [metric, shared, isolated, ratio, goal, met].
 * n: round trips; events: console messages a page sends.
 */
export async function isolatedRows({ work, pages, alternate, median, n = 2000, events = 20000 }) {
  const coords = {};
  const clients = {};
  try {
    // Page tools off in both: a shared coordinator's page tools follow the
    // tab in front (the client's page here) on a session of their own,
    // which would count against it.
    for (const [name, args] of [['shared', ['--page-tools', 'off']], ['isolated', ['--page-tools', 'off', '--isolated']]]) {
      const stateDir = path.join(work, `iso-${name}`);
      coords[name] = await startHTTPCoordinator({ stateDir, cwd: work, args });
      clients[name] = await clientOn(stateDir, `${pages.url}/`);
    }
    const { shared, isolated } = clients;
    const rt = (c) => () => c.on('Runtime.evaluate', { expression: '1+1' });
    await alternate(200, rt(shared), rt(isolated)); // warm up
    const cpu = { shared: 0, isolated: 0 };
    const timed = (name) => async () => {
      const before = cpuMs(coords[name].pid);
      await rt(clients[name])();
      cpu[name] += cpuMs(coords[name].pid) - before;
    };
    const [ts, ti] = await alternate(n, timed('shared'), timed('isolated'));
    const per = (name) => (cpu[name] / n) * 1000; // µs of coordinator CPU per round trip
    const rows = [
      ['CDP round trip, isolated client (Runtime.evaluate on its page, median)', `shared ${ts.toFixed(3)} ms`, `isolated ${ti.toFixed(3)} ms`,
        `${(ti / ts).toFixed(3)}× (${ti >= ts ? '+' : ''}${((ti - ts) * 1000).toFixed(0)} µs)`, '≤ 1.05×', ti / ts <= 1.05],
      ['coordinator CPU per round trip', `shared ${per('shared').toFixed(1)} µs`, `isolated ${per('isolated').toFixed(1)} µs`,
        `${(per('isolated') / per('shared')).toFixed(2)}×`, '(context)', true],
    ];

    // Events: a page's console messages, each an event through the relay
    // (not of the Target domain: an isolated client's pass undecoded).
    const flood = async (name) => {
      const c = clients[name];
      await c.on('Runtime.enable');
      const before = cpuMs(coords[name].pid);
      const t = performance.now();
      await c.on('Runtime.evaluate', { expression: `for (let i = 0; i < ${events}; i++) console.log('event', i); 0` });
      await c.on('Runtime.evaluate', { expression: '0' }); // after the last event
      const took = performance.now() - t;
      await c.on('Runtime.disable');
      return { took, cpu: cpuMs(coords[name].pid) - before };
    };
    const runs = { shared: [], isolated: [] };
    for (let i = 0; i < 5; i++) for (const name of i % 2 ? ['shared', 'isolated'] : ['isolated', 'shared']) runs[name].push(await flood(name));
    const evCPU = (name) => (median(runs[name].map((r) => r.cpu)) / events) * 1000;
    const evTook = (name) => median(runs[name].map((r) => r.took));
    rows.push([`${events.toLocaleString('en')} CDP events (console messages) to a client, median`, `shared ${evTook('shared').toFixed(0)} ms, ${evCPU('shared').toFixed(2)} µs CPU each`,
      `isolated ${evTook('isolated').toFixed(0)} ms, ${evCPU('isolated').toFixed(2)} µs CPU each`, `${(evTook('isolated') / evTook('shared')).toFixed(3)}×`, '≤ 1.05×', evTook('isolated') / evTook('shared') <= 1.05]);
    return rows;
  } finally {
    for (const c of Object.values(clients)) c.close();
    await Promise.all(Object.values(coords).map((c) => c.stop()));
  }
}
