import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { actionItems, availability, commandOf, contextKeys, md, NativeCdp, statusView, tierOf } from '../src/statusBar';
import type { CoordinatorState } from '../src/stateFile';
import { coordinatorState } from './helpers';

const base: CoordinatorState = coordinatorState({ pid: 10, controlToken: 't', startedAt: '2026-01-01T00:00:00Z' });
const off: NativeCdp = { support: 'supported', enabled: false };
const running = { ...base, state: 'running' as const, currentUrl: 'http://localhost:3000/', browser: { type: 'chromium', version: '156.0', pid: 77, headless: true } };

test('no coordinator: Tier 1 (or Tier 2 when VS Code\'s port is live), off', () => {
  const v = statusView({ native: off });
  assert.equal(v.text, '$(circle-slash) Tier 1 · off');
  assert.equal(v.severity, 'normal');
  assert.match(v.plain, /No coordinator runs for this workspace/);
  assert.equal(statusView({ native: { ...off, enabled: true, port: 9333 } }).text, '$(circle-slash) Tier 2 · off');
});

test('the tier follows the coordinator\'s backend, in the README\'s words', () => {
  assert.equal(tierOf({ native: off, coordinator: { ...base, backend: 'tier2' } }), 'Tier 2');
  assert.equal(tierOf({ native: { ...off, enabled: true, port: 1 }, coordinator: base }), 'Tier 1');
  assert.equal(tierOf({ native: off, coordinator: { ...base, backend: 'attach' } }), 'attach');
  assert.equal(tierOf({ native: off, coordinator: { ...base, backend: 'everyday' } }), 'everyday');
  assert.equal(tierOf({ native: off, coordinator: { ...base, backend: 'service' } }), 'service');
  assert.match(statusView({ native: off, coordinator: { ...base, backend: 'everyday' } }).plain, /everyday, your own browser/);
});

test('running headless: text, details, the endpoint without its secret', () => {
  const v = statusView({ native: off, coordinator: { ...running, proxySecret: 'S3CRET', cdpEndpoint: 'http://127.0.0.1:41000/S3CRET' } });
  assert.equal(v.text, '$(vm-running) Tier 1 · running');
  assert.match(v.plain, /Browser: running · chromium 156\.0, pid 77, headless/);
  assert.match(v.plain, /Endpoint: http:\/\/127\.0\.0\.1:41000\/… \(coordinator pid 10, 0\.1\.0\)/);
  assert.doesNotMatch(v.tooltip + v.plain, /S3CRET/);
  assert.match(v.plain, /Page: http:\/\/localhost:3000\//);
});

test('the tooltip is Markdown whose actions are links to exactly the commands that can act', () => {
  const v = statusView({ native: off, coordinator: running, folders: 1 });
  const links = [...v.tooltip.matchAll(/\]\(command:([\w.]+)/g)].map((m) => m[1]);
  assert.deepEqual(links, v.commands, 'only the listed commands are trusted');
  assert.ok(links.includes(commandOf.stop) && links.includes(commandOf.restart) && links.includes(commandOf.openPreview) && links.includes(commandOf.enableNativeCdp));
  assert.ok(!links.includes(commandOf.launch), 'no Launch while it runs');
  assert.match(v.tooltip, /^\*\*Browser Coordinator: Tier 1, a browser the coordinator launches\*\*/);
  assert.ok(v.tooltip.includes('Page: http://localhost:3000/'.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`)), v.tooltip);
  const idle = statusView({ native: { support: 'unavailable', enabled: false }, coordinator: base });
  const idleLinks = [...idle.tooltip.matchAll(/\]\(command:([\w.]+)/g)].map((m) => m[1]);
  assert.ok(idleLinks.includes(commandOf.launch));
  assert.ok(!idleLinks.includes(commandOf.enableNativeCdp), 'no Tier 2 link where it cannot be set up (code-server)');
  assert.ok(!idleLinks.includes(commandOf.addToClaudeCode), 'no folder open: nothing to add to');
  assert.equal(md('a_b*[c](d)'), 'a\\_b\\*\\[c\\]\\(d\\)');
});

test('severity: crashed, a missing sidecar and failed steps are errors; Tier 2 and Claude Code problems warnings; busy spins', () => {
  assert.equal(statusView({ native: off, coordinator: { ...base, state: 'crashed' } }).severity, 'error');
  assert.equal(statusView({ native: off, sidecarError: 'no binary' }).severity, 'error');
  const failed = statusView({ native: off, problems: [{ step: "VS Code's CDP port", message: 'run chmod 700 /tmp/x' }] });
  assert.equal(failed.severity, 'error');
  assert.match(failed.plain, /✖ VS Code's CDP port: run chmod 700 \/tmp\/x/);
  assert.ok(failed.commands.includes(commandOf.retrySetup));
  const warn = statusView({ native: { ...off, enabled: true, problem: 'restart VS Code' } });
  assert.equal(warn.severity, 'warning');
  assert.match(warn.plain, /⚠ restart VS Code/);
  const stale = statusView({ native: off, claude: { hasEntries: true, stale: 'it runs /gone/bc' } });
  assert.equal(stale.severity, 'warning');
  assert.ok(stale.commands.includes(commandOf.repairClaudeCode));
  assert.equal(statusView({ native: off, coordinator: base, busy: 'launching' }).text, '$(loading~spin) Tier 1 · launching…');
});

test('actions and context keys follow one rule: what can act in each state', () => {
  const ids = (input: Parameters<typeof actionItems>[0]) => actionItems(input).map((a) => a.id);
  assert.deepEqual(ids({ native: off }), ['enableNativeCdp', 'walkthrough', 'showLog']);
  assert.deepEqual(ids({ native: off, coordinator: base, folders: 1 }), ['launch', 'toggleHeadless', 'enableNativeCdp', 'addToClaudeCode', 'walkthrough', 'showLog']);
  assert.deepEqual(ids({ native: { ...off, enabled: true, port: 1 }, coordinator: running, folders: 1, claude: { hasEntries: true } }),
    ['stop', 'restart', 'toggleHeadless', 'openPreview', 'disableNativeCdp', 'addToClaudeCode', 'removeFromClaudeCode', 'walkthrough', 'showLog']);
  assert.match(actionItems({ native: off, coordinator: running }).find((a) => a.id === 'toggleHeadless')!.label, /Show the browser window/);
  const visible = { ...running, browser: { type: 'chromium', headless: false } };
  assert.match(actionItems({ native: off, coordinator: visible }).find((a) => a.id === 'toggleHeadless')!.label, /Hide the browser window/);
  assert.ok(!ids({ native: off, coordinator: { ...running, backend: 'tier2', currentUrl: 'about:blank' } }).includes('toggleHeadless'), 'VS Code\'s own browser has no headless switch');
  assert.ok(!ids({ native: { support: 'argvIgnored', enabled: false } }).includes('enableNativeCdp'), 'VS Code older than 1.104: no Enable');
  assert.ok(ids({ native: { support: 'argvIgnored', enabled: true } }).includes('disableNativeCdp'), 'but a key that is there can still be removed');
  assert.ok(!ids({ native: off, coordinator: running, busy: 'stopping' }).includes('stop'), 'nothing twice while busy');

  const keys = contextKeys({ native: off });
  assert.equal(keys['browserCoordinator.coordinator'], false);
  assert.equal(keys['browserCoordinator.canLaunch'], false);
  assert.equal(keys['browserCoordinator.tier2.canEnable'], true);
  assert.equal(keys['browserCoordinator.claudeCode.hasEntries'], false);
  const runningKeys = contextKeys({ native: off, coordinator: running });
  assert.equal(runningKeys['browserCoordinator.canStop'], true);
  assert.equal(runningKeys['browserCoordinator.canLaunch'], false);
  assert.equal(runningKeys['browserCoordinator.hasPage'], true);
  const a = availability({ native: { support: 'unavailable', enabled: false } });
  assert.equal(a.enableNativeCdp || a.disableNativeCdp, false, 'code-server: neither Tier 2 command');
});

test('busy: every control action shows a spinner, whatever the state file says', () => {
  assert.equal(statusView({ native: off, coordinator: running, busy: 'stopping' }).text, '$(loading~spin) Tier 1 · stopping…');
  assert.equal(statusView({ native: off, coordinator: running, busy: 'restarting' }).text, '$(loading~spin) Tier 1 · restarting…');
  assert.equal(statusView({ native: off, coordinator: running }).text, '$(vm-running) Tier 1 · running');
});
