// End to end: the HTTP transport (`--transport http`): official SDK clients
// over streamable HTTP and SSE at once, each with a session of its own, one
// coordinator and one browser between them; every refusal of the checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { call } from '../lib/mcp.mjs';
import { childMCPs } from '../lib/paths.mjs';
import { workspace } from '../lib/workspace.mjs';
import { alive, waitUntil } from '../lib/procs.mjs';
import { readStates } from '../lib/statefiles.mjs';
import { startHTTPCoordinator, connectHTTP, rawRequest, initializeBody } from '../lib/httpmcp.mjs';
import { startChromium } from '../lib/chromium.mjs';
import { cdp } from '../lib/cdpclient.mjs';

const ws = workspace('bchttp-');

async function status(conn) {
  return (await call(conn.client, 'coordinator_status')).structuredContent;
}

const opened = (hc) => [...hc.stderr().matchAll(/msg="MCP session opened" transport=(\S+) session=(\w+)/g)].map((m) => ({ transport: m[1], id: m[2] }));

test('two streamable HTTP clients and one SSE client at once: a session each, one browser', async (t) => {
  const { stateDir, cwd } = ws.dirs('multi');
  const hc = await startHTTPCoordinator({ stateDir, cwd });
  t.after(() => hc.stop());
  const [a, b, c] = await Promise.all([connectHTTP(hc, 'streamable'), connectHTTP(hc, 'streamable'), connectHTTP(hc, 'sse')]);
  // Closed whatever happens: an SSE client left open reconnects for ever,
  // and the file's process would never end after a failed assertion.
  t.after(() => Promise.all([a, b, c].map((conn) => conn.close().catch(() => {}))));
  let sseEnded = false;
  c.client.onerror = () => { sseEnded = true; }; // the event stream broke (it reconnects, and fails)

  const sessions = opened(hc);
  assert.deepEqual(sessions.map((s) => s.transport).sort(), ['sse', 'streamable-http', 'streamable-http']);
  assert.equal(new Set(sessions.map((s) => s.id)).size, 3, 'three sessions');
  assert.ok(sessions.some((s) => s.id === a.transport.sessionId) && sessions.some((s) => s.id === b.transport.sessionId));
  for (const conn of [a, b, c]) assert.equal((await conn.client.listTools()).tools.length, 12); // the coordinator's 12 tools, no page focused

  // One browser, whoever asks.
  const launched = (await call(a.client, 'coordinator_launch_browser', { url: `${ws.pages.url}/` })).structuredContent;
  const tab = (await call(b.client, 'coordinator_open_tab', { url: `${ws.pages.url}/second` })).structuredContent;
  const [ta, tb, tc] = await Promise.all([a, b, c].map((conn) => call(conn.client, 'coordinator_list_tabs')));
  for (const tabs of [ta, tb, tc]) {
    assert.equal(tabs.structuredContent.focusedTabId, tab.id, 'every session sees the tab another one opened');
  }
  for (const conn of [a, b, c]) assert.equal((await status(conn)).browser.pid, launched.browser.pid);

  // A client ends its session; the others go on.
  const ended = a.transport.sessionId;
  await a.transport.terminateSession();
  assert.match(hc.stderr(), new RegExp(`msg="MCP session closed" transport=streamable-http session=${ended} reason="client ended it \\(DELETE\\)"`));
  assert.equal((await status(c)).state, 'running');

  // SIGTERM: every session closed, the browser stopped, the state file gone, exit 0.
  const [state] = readStates(stateDir);
  assert.equal(await hc.stop('SIGTERM'), 0);
  assert.match(hc.stderr(), /msg="HTTP transport shutting down" sessions=2/);
  assert.equal(hc.stderr().match(/reason="(server shutdown|stream closed by the server|client disconnected)"/g)?.length, 2, 'both sessions closed');
  assert.match(hc.stderr(), /msg="HTTP transport stopped"/);
  assert.ok(!alive(launched.browser.pid), 'the browser stopped');
  assert.ok(!fs.existsSync(state.path), 'the state file was removed');
  await waitUntil(() => sseEnded, { what: 'the SSE client to see its stream end' });
  await Promise.all([a, b, c].map((conn) => conn.close().catch(() => {})));
});

// The default gives each session a child and a context of its own
// (isolated.test.mjs); --isolated=false shares one child between them.
test('HTTP with single-entry mode and --isolated=false: one Playwright MCP for several clients, one browser', async (t) => {
  const { stateDir, cwd } = ws.dirs('pw');
  const hc = await startHTTPCoordinator({ stateDir, cwd, args: ['--isolated=false', '--mcp', ...childMCPs.playwright] });
  t.after(() => hc.stop());
  const a = await connectHTTP(hc, 'streamable');
  const b = await connectHTTP(hc, 'sse');
  t.after(() => Promise.all([a.close(), b.close()]));
  assert.ok((await b.client.listTools()).tools.some((x) => x.name === 'browser_snapshot'));
  assert.match((await call(a.client, 'browser_navigate', { url: `${ws.pages.url}/` })).text, /Coordinator test page/);
  assert.match((await call(b.client, 'browser_snapshot')).text, /button "Click me"/, 'the SSE client sees the page the other client opened');
  const [sa, sb] = [await status(a), await status(b)];
  assert.equal(sa.browser.pid, sb.browser.pid);
  assert.equal(sa.child.state, 'running');
});

test('HTTP refusals: a foreign Host or Origin, malformed JSON, an unknown session, a missing or wrong token; none changes anything', async (t) => {
  const { stateDir, cwd } = ws.dirs('refuse');
  const hc = await startHTTPCoordinator({ stateDir, cwd });
  t.after(() => hc.stop());
  const client = await connectHTTP(hc, 'streamable');
  t.after(() => client.close());
  const session = client.transport.sessionId;
  const sessionHeaders = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18', ...hc.auth };
  const callBody = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'coordinator_launch_browser', arguments: {} } });

  for (const [what, url, opts, status, want] of [
    ['a foreign Host (DNS rebinding)', hc.url, { headers: { host: 'evil.example', ...hc.auth }, body: initializeBody }, 403, /DNS rebinding/],
    ['a foreign Host on the SSE stream', `${hc.base}/sse`, { method: 'GET', headers: { host: 'rebind.attacker.test:80', ...hc.auth } }, 403, /DNS rebinding/],
    ['a foreign browser Origin', hc.url, { headers: { origin: 'https://evil.example', ...sessionHeaders }, body: callBody }, 403, /web pages may not use this server; a web client you trust can be let in with --allow-origin/],
    ['a page on another local port', hc.url, { headers: { origin: 'http://localhost:6274', ...hc.auth }, body: initializeBody }, 403, /refused Origin "http:\/\/localhost:6274"/],
    ['malformed JSON', hc.url, { headers: sessionHeaders, body: '{"jsonrpc":"2.0","id":9,"method":' }, 400, /not valid JSON/],
    ['a batch', hc.url, { headers: sessionHeaders, body: `[${callBody}]` }, 400, /batches are not supported/],
    ['an id that is not a string or a number', hc.url, { headers: sessionHeaders, body: callBody.replace('"id":9', '"id":true') }, 400, /the id must be a string or a number/],
    ['an unknown session id', hc.url, { headers: { ...sessionHeaders, 'mcp-session-id': 'f'.repeat(32) }, body: callBody }, 404, /Session not found/],
    ['an unknown SSE session id', `${hc.base}/message?sessionId=${'0'.repeat(32)}`, { body: callBody, headers: hc.auth }, 404, /Session not found/],
    ['no token at all', hc.url, { body: initializeBody }, 401, /bearer token.*http-token/],
  ]) {
    const res = await rawRequest(url, opts);
    assert.equal(res.status, status, `${what}: ${res.body}`);
    assert.match(res.body, want, what);
  }
  assert.equal(opened(hc).length, 1, 'no session was opened by a refused request');
  assert.equal((await status(client)).state, 'idle', 'no refused request launched the browser');

  // With a token (here from BROWSER_COORDINATOR_TOKEN) every request needs it.
  const secured = await startHTTPCoordinator({ ...ws.dirs('token'), env: { BROWSER_COORDINATOR_TOKEN: 'tok-123' } });
  t.after(() => secured.stop());
  assert.match(secured.stderr(), /auth="bearer token"/);
  for (const authorization of [undefined, 'Bearer wrong', 'tok-123']) {
    const res = await rawRequest(secured.url, { headers: authorization ? { authorization } : {}, body: initializeBody });
    assert.equal(res.status, 401, `Authorization ${authorization}`);
    assert.match(res.headers['www-authenticate'], /^Bearer/);
  }
  await assert.rejects(connectHTTP(secured, 'streamable', { headers: {} }), /401|Unauthorized|bearer token/);
  await assert.rejects(connectHTTP(secured, 'sse', { headers: {} }), /401|Unauthorized|bearer token/);
  assert.equal(opened(secured).length, 0);
  const headers = { authorization: 'bearer tok-123' }; // the scheme in any case (RFC 7235)
  const ok = [await connectHTTP(secured, 'streamable', { headers }), await connectHTTP(secured, 'sse', { headers })];
  t.after(() => Promise.all(ok.map((c) => c.close())));
  for (const conn of ok) assert.equal((await status(conn)).state, 'idle');
});

// A web page the user's browser shows, served from another loopback port,
// tries the HTTP transport as a page can: a CORS request (with its
// preflight), a no-cors POST (no preflight) and a no-cors GET of the SSE
// stream (which carries no Origin). None opens a session, with a token or
// without one (--insecure-no-token); only a page let in with --allow-origin
// gets CORS, and it still needs the token.
test('HTTP: a page on another loopback port gets no CORS and no session, with or without a token', async (t) => {
  const browser = await startChromium({ profile: fs.mkdtempSync(path.join(ws.work, 'page-browser-')), url: `${ws.pages.url}/` });
  t.after(() => browser.kill());
  const page = await pageOf(browser, `${ws.pages.url}/`);
  t.after(() => page.close());
  const attempt = async (hc, token) => {
    const res = await page.call('Runtime.evaluate', { expression: `(${pageAttempt})(${JSON.stringify(hc.base)}, ${JSON.stringify(token ?? '')})`, awaitPromise: true, returnByValue: true });
    return res.result.result.value;
  };
  const refusals = (hc) => hc.stderr().match(/msg="refused an HTTP request" status=403/g)?.length ?? 0;

  for (const [what, extra] of [['with --insecure-no-token', ['--insecure-no-token']], ['with a token', []]]) {
    const hc = await startHTTPCoordinator({ ...ws.dirs(`page-${extra.length}`), args: extra });
    t.after(() => hc.stop());
    const got = await attempt(hc);
    assert.deepEqual(got, { cors: 'blocked', noCorsPost: 'opaque', noCorsSSE: 'opaque' }, what);
    await waitUntil(() => refusals(hc) >= 3, { what: `the server to refuse the page's preflight, no-cors POST and no-cors GET (${what})`, timeout: 30_000 });
    assert.match(hc.stderr(), /msg="refused an HTTP request" status=403 method=OPTIONS path=\/mcp .*reason="browser-coordinator: refused Origin/, what);
    assert.match(hc.stderr(), /msg="refused an HTTP request" status=403 method=GET path=\/sse .*Sec-Fetch-Site: same-site/, what);
    assert.equal(opened(hc).length, 0, `no session was opened by the page (${what})`);
  }

  // The same page, let in: CORS, and a session with the token.
  const origin = new URL(ws.pages.url).origin;
  const trusted = await startHTTPCoordinator({ ...ws.dirs('page-trusted'), args: ['--allow-origin', origin] });
  t.after(() => trusted.stop());
  assert.equal((await attempt(trusted, trusted.token)).cors, '200 with a session', 'a page let in, with the token');
  assert.equal((await attempt(trusted)).cors, 'blocked', 'a page let in, without the token');
  assert.equal(opened(trusted).length, 1);
});

/** What the page runs: base is the HTTP transport's, token what the page knows. */
const pageAttempt = async (base, token) => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } } });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (token) headers.authorization = `Bearer ${token}`;
  const out = {};
  try {
    const r = await fetch(`${base}/mcp`, { method: 'POST', headers, body });
    out.cors = `${r.status} ${r.headers.get('mcp-session-id') ? 'with a session' : 'without a session'}`;
  } catch {
    out.cors = 'blocked';
  }
  const noCors = async (url, init) => {
    const ac = new AbortController();
    try {
      return (await fetch(url, { ...init, mode: 'no-cors', signal: ac.signal })).type;
    } catch {
      return 'failed';
    } finally {
      ac.abort(); // an SSE stream the server opened would stay open
    }
  };
  out.noCorsPost = await noCors(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
  out.noCorsSSE = await noCors(`${base}/sse`, {});
  return out;
};

/** A CDP client of the browser's page at url, once its document is url's. */
async function pageOf(browser, url) {
  const list = await (await fetch(`http://127.0.0.1:${browser.port}/json/list`)).json();
  const target = list.find((x) => x.type === 'page' && x.url === url);
  assert.ok(target, `the browser shows ${url}: ${JSON.stringify(list)}`);
  const page = await cdp(target.webSocketDebuggerUrl);
  const origin = new URL(url).origin;
  await waitUntil(async () => (await page.call('Runtime.evaluate', { expression: 'location.origin', returnByValue: true })).result?.result?.value === origin,
    { what: `the page's document to be ${url}`, timeout: 30_000 });
  return page;
}
