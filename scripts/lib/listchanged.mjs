// notifications/tools/list_changed as an MCP client sees it, for the page
// tools' end-to-end tests and benchmarks: count them, wait for the next one,
// and read the tool list again until it is what a test expects.
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * How long a wait for a list_changed lasts before it fails: a guard only a
 * failure reaches (a lazy launch and a page's load at load average 47 took
 * more than 20 s), as the Go tests' testutil.Guard.
 */
const GUARD_MS = 120_000;

/**
 * Follows a client's list_changed notifications. Returns { count(), at
 * (arrival times, performance.now()), next(what, ms) → Promise, since(n) }.
 */
export function watchListChanged(client) {
  const at = [];
  let waiters = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    at.push(performance.now());
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  });
  return {
    at,
    count: () => at.length,
    /** Resolves at the next list_changed; rejects after ms. */
    next(what = 'list_changed', ms = GUARD_MS) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no list_changed within ${ms} ms: ${what}`)), ms);
        waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    },
  };
}

/** The names of the tools listed now, sorted. */
export async function toolNames(client) {
  return (await client.listTools()).tools.map((t) => t.name).sort();
}

/**
 * Reads the tool list again at every list_changed until pick(names) is
 * true; resolves to the names. A client that trusts list_changed needs
 * nothing else.
 */
export async function untilTools(client, changes, pick, { what = 'the expected tools', ms = GUARD_MS } = {}) {
  const deadline = Date.now() + ms;
  for (;;) {
    const next = changes.next(what, Math.max(1, deadline - Date.now())).catch((e) => e);
    const names = await toolNames(client);
    if (pick(names)) return names;
    const r = await next;
    if (r instanceof Error) throw new Error(`${r.message}; listed: ${names.join(', ')}`);
  }
}

/** Resolves after ms unless a list_changed comes first, which rejects. */
export function noListChanged(changes, ms, what) {
  const before = changes.count();
  return new Promise((resolve, reject) => setTimeout(() => {
    if (changes.count() !== before) reject(new Error(`list_changed for ${what}`));
    else resolve();
  }, ms));
}

/** The prices a flight results text shows, lowest first. */
export function prices(text) {
  return [...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
}
