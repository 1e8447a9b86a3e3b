// npm run soak: many agents on one coordinator at once, with and without
// --isolated, and every call that failed, by cause.
//
// One coordinator over HTTP with --mcp (Playwright MCP), and 8 agents on it
// as issue 19's soak had them: 4 MCP sessions over HTTP (each a child
// Playwright MCP of its own with --isolated, one shared child with
// --isolated=false) and 4 Playwright MCPs wrapped beside it (`wrap`, on the
// coordinator's endpoint). Every agent does the same round again and again
// until the time is up:
//
//   browser_navigate   to a page of its own (/p?who=AGENT&i=ROUND)
//   browser_snapshot   for the ref of the page's button
//   browser_click      the button, by that ref
//   browser_evaluate   document.title, which the click set to
//                      "AGENT ROUND clicked": what the page itself says
//
// A call fails when it answers an error (its cause read from the text:
// another navigation, ERR_ABORTED, a destroyed context, a ref not found...)
// or when the page it worked on is not the agent's round's ("another
// agent's page": the collision that reports success). The title is read in
// the page, never taken from the tool's word. Progress goes to stderr, the
// table to stdout.
//
//   npm run soak [-- --seconds 120]
import fs from 'node:fs';
import http from 'node:http';
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
const { call, startWrapped } = await import('./lib/mcp.mjs');
const { startHTTPCoordinator, connectHTTP } = await import('./lib/httpmcp.mjs');
const { childMCPs } = await import('./lib/paths.mjs');
const { listen } = await import('./lib/pageserver.mjs');

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const seconds = Number(arg('seconds', '120'));
const progress = (m) => process.stderr.write(`${m}\n`);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-soak-'));

// The site: a page per agent's round whose button sets the title (a
// concurrent server: Node's).
const server = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://x');
  if (u.pathname !== '/p') return res.writeHead(204).end();
  const who = u.searchParams.get('who') ?? '';
  const i = u.searchParams.get('i') ?? '';
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end(`<!doctype html><title>${who} ${i}</title><h1>${who}, round ${i}</h1><button onclick="document.title = '${who} ${i} clicked'">Click me</button>`);
});
const site = await listen(server, '127.0.0.1');

/** The cause of a failed call, from its text. */
function cause(text) {
  const causes = [
    [/interrupted by another navigation/i, 'interrupted by another navigation'],
    [/ERR_ABORTED/, 'net::ERR_ABORTED'],
    [/context (was )?destroyed|Execution context/i, 'context destroyed'],
    [/Ref \S+ not found|aria-ref|stale|does not match/i, 'ref not found (the snapshot is another page\'s)'],
    [/Target page, context or browser has been closed|Target closed/i, 'page or context closed'],
    [/timeout|timed out/i, 'timeout'],
  ];
  return causes.find(([re]) => re.test(text))?.[1] ?? `other: ${text.split('\n').find((l) => l.trim() && !l.startsWith('###'))?.slice(0, 100)}`;
}

/** One agent's rounds until end; counts into tally. */
async function agent(client, who, end, tally) {
  const fail = (why, text = '') => {
    tally.failed.set(why, (tally.failed.get(why) ?? 0) + 1);
    if (!tally.example.has(why)) tally.example.set(why, `${who}: ${text.slice(0, 300)}`);
  };
  const tool = async (name, args) => {
    tally.calls++;
    let r;
    try {
      r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
    } catch (err) {
      fail(cause(err.message), err.message);
      return undefined;
    }
    const text = (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    if (r.isError) {
      fail(cause(text), text);
      return undefined;
    }
    return text;
  };
  for (let i = 0; performance.now() < end; i++) {
    const title = `${who} ${i}`;
    const nav = await tool('browser_navigate', { url: `${site.url}/p?who=${who}&i=${i}` });
    if (nav === undefined) continue;
    if (/Page Title: (.*)/.exec(nav)?.[1] !== title) {
      fail('another agent\'s page (the call said it succeeded)');
      continue;
    }
    const snap = await tool('browser_snapshot', {});
    if (snap === undefined) continue;
    const ref = /button "Click me" \[ref=(\w+)\]/.exec(snap)?.[1];
    if (/Page Title: (.*)/.exec(snap)?.[1] !== title || !ref) {
      fail('another agent\'s page (the call said it succeeded)');
      continue;
    }
    if (await tool('browser_click', { element: 'Click me button', target: ref }) === undefined) continue;
    const seen = await tool('browser_evaluate', { function: '() => document.title' });
    if (seen === undefined) continue;
    if (!seen.includes(`"${title} clicked"`)) fail('another agent\'s page (the call said it succeeded)');
    else tally.rounds++;
  }
}

/** The soak on one coordinator started with args. */
async function soak(name, args) {
  const stateDir = path.join(work, name);
  const cwd = path.join(work, `${name}-ws`);
  fs.mkdirSync(cwd, { recursive: true });
  const hc = await startHTTPCoordinator({ stateDir, cwd, args: [...args, '--mcp', ...childMCPs.playwright] });
  const clients = [];
  try {
    for (let i = 0; i < 4; i++) clients.push({ who: `http${i}`, ...(await connectHTTP(hc, 'streamable', { name: `soak-http${i}` })) });
    for (let i = 0; i < 4; i++) clients.push({ who: `wrap${i}`, ...(await startWrapped('playwright', { stateDir, cwd })) });
    // The browser starts on the first call: one call first, so that the
    // soak measures agents at work, not eight racing a launch.
    await call(clients[0].client, 'coordinator_launch_browser');
    const tally = { calls: 0, rounds: 0, failed: new Map(), example: new Map(), load: [os.loadavg()[0]] };
    const end = performance.now() + seconds * 1000;
    const ticker = setInterval(() => {
      tally.load.push(os.loadavg()[0]);
      progress(`  ${name}: ${tally.calls} calls, ${[...tally.failed.values()].reduce((a, b) => a + b, 0)} failed`);
    }, 15_000);
    try {
      await Promise.all(clients.map((c) => agent(c.client, c.who, end, tally)));
    } finally {
      clearInterval(ticker);
    }
    tally.load.push(os.loadavg()[0]);
    for (const [why, text] of tally.example) progress(`  ${name}, first "${why}": ${text.replace(/\s+/g, ' ')}`);
    return tally;
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await hc.stop();
  }
}

const rows = [];
try {
  for (const [name, args] of [['--isolated=false', ['--isolated=false']], ['--isolated', ['--isolated']]]) {
    progress(`${name}: 8 agents (4 HTTP sessions, 4 wrapped Playwright MCPs) for ${seconds} s (load ${os.loadavg()[0].toFixed(1)}) ...`);
    rows.push({ name, ...(await soak(name.replace(/^--/, ''), args)) });
  }
} finally {
  await site.close();
  fs.rmSync(work, { recursive: true, force: true });
}

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)} %` : '-');
console.log(`\n8 agents on one coordinator for ${seconds} s each (4 MCP sessions over HTTP, 4 wrapped Playwright MCPs)\n`);
console.log('| setup | calls | rounds done | failed | causes | load (min–max) |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  const failed = [...r.failed.values()].reduce((a, b) => a + b, 0);
  const causes = [...r.failed].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}: ${v}`).join('; ') || 'none';
  console.log(`| ${r.name} | ${r.calls} | ${r.rounds} | ${failed} (${pct(failed, r.calls)}) | ${causes} | ${Math.min(...r.load).toFixed(1)}–${Math.max(...r.load).toFixed(1)} |`);
}
