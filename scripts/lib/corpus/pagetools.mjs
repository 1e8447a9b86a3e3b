// The corpus's page-tools run: a task tried with page tools alone, through
// a coordinator and the official MCP SDK as its client, by the agent of
// agent.mjs. What the agent sees is the focused tab's page tools (read with
// coordinator_page_tools, which discovers afresh: the list a client that
// follows list_changed has) and the coordinator's tools about dialogs; it
// calls a page tool with coordinator_call_page_tool, which takes the
// engine's own names whatever the dynamic list shows at that instant.
import { plan, planReveal, planDialog, remaining, nothingLeft, key } from './agent.mjs';
import { saysAction, tokens, overlap } from './words.mjs';

/** How long one page-tool call may take before the corpus calls it unanswered. */
export const callTimeout = 15_000;

const bytesOf = (v) => Buffer.byteLength(JSON.stringify(v ?? null));
const textOf = (res) => (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

/** Calls tool name with args on client, timed and measured; never throws for a tool error or a time-out. */
export async function measuredCall(client, name, args, timeout = callTimeout) {
  const request = { name, arguments: args };
  const t0 = performance.now();
  try {
    const res = await client.callTool(request, undefined, { timeout });
    return { name, args, ms: performance.now() - t0, bytes: bytesOf(request) + bytesOf(res), isError: !!res.isError, text: textOf(res), structured: res.structuredContent };
  } catch (err) {
    const timedOut = /timed out|timeout/i.test(err.message);
    return { name, args, ms: performance.now() - t0, bytes: bytesOf(request), isError: true, text: err.message, timedOut, protocolError: !timedOut };
  }
}

/** The focused tab's page tools, discovered afresh: { tools, bytes } (bytes: the tools as a client lists them). */
export async function pageTools(client) {
  const res = await client.callTool({ name: 'coordinator_page_tools', arguments: {} }, undefined, { timeout: callTimeout });
  const tools = res.structuredContent?.tools ?? [];
  return { tools, bytes: bytesOf(tools) };
}

const dialogShown = (text) => /\b(alert|confirm|prompt|dialog)\b/i.test(text ?? '');

/**
 * Tries intent with page tools alone. coordinatorTools: the coordinator's
 * own tools (tools/list), for a dialog tool. Returns { calls, listBytes,
 * verdict: answered-ok | answered-error | no-tool | timeout, reason }.
 */
export async function tryWithPageTools(client, intent, coordinatorTools) {
  const out = { calls: [], listBytes: 0 };
  let rest = intent, answered = false;
  const tried = new Set();
  for (let step = 0; step < 4; step++) {
    const { tools, bytes } = await pageTools(client);
    out.listBytes += bytes;
    const p = plan(tools, rest, tried) ?? planReveal(tools, rest, tried);
    if (!p) {
      if (step === 0) return { ...out, verdict: 'no-tool', reason: tools.length ? `no tool fits among ${tools.map((t) => t.name).join(', ')}` : 'the page has no tools' };
      break;
    }
    const r = await measuredCall(client, 'coordinator_call_page_tool', { name: p.tool.name, arguments: p.args });
    r.tool = p.tool.name;
    out.calls.push(r);
    if (r.timedOut) return { ...out, verdict: 'timeout', reason: `${p.tool.name}: no answer in ${callTimeout / 1000} s` };
    if (intent.dialog && !answered && dialogShown(r.text)) {
      const d = planDialog(coordinatorTools, intent.dialog);
      if (d) {
        answered = true;
        const dr = await measuredCall(client, d.tool.name, d.args);
        dr.tool = d.tool.name;
        out.calls.push(dr);
        if (dr.isError) return { ...out, verdict: 'answered-error', reason: `${d.tool.name}: ${dr.text.slice(0, 300)}` };
      }
    }
    if (r.isError) return { ...out, verdict: r.protocolError ? 'protocol-error' : 'answered-error', reason: `${p.tool.name}: ${r.text.slice(0, 300)}` };
    tried.add(key(p));
    rest = remaining(rest, p.uses);
    // (A tool named for the object, "Returns pet inventories", is the task's.)
    const acted = p.uses.fields.length || p.uses.choose.length || p.uses.item || p.uses.text || saysAction(intent.action, tokens(p.tool.name)) || overlap(intent.object ?? '', tokens(p.tool.name)) >= 0.75;
    if (nothingLeft(rest) && acted) break;
  }
  return { ...out, verdict: 'answered-ok' };
}
