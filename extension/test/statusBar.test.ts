import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { actionItems, statusView, tierOf } from '../src/statusBar';
import type { CoordinatorState } from '../src/stateFile';
import { coordinatorState } from './helpers';

const base: CoordinatorState = coordinatorState({ pid: 10, controlToken: 't', startedAt: '2026-01-01T00:00:00Z' });
const off = { enabled: false };

test('no coordinator: external (or native when the port is live), off', () => {
  const v = statusView({ native: off });
  assert.equal(v.text, '$(circle-slash) external · off');
  assert.equal(v.severity, 'normal');
  assert.match(v.tooltip, /No coordinator runs for this workspace/);
  assert.equal(statusView({ native: { enabled: true, port: 9333 } }).text, '$(circle-slash) native · off');
});

test('tier follows the coordinator\'s backend', () => {
  assert.equal(tierOf({ native: off, coordinator: { ...base, backend: 'tier2' } }), 'native');
  assert.equal(tierOf({ native: { enabled: true, port: 1 }, coordinator: base }), 'external');
  assert.equal(tierOf({ native: off, coordinator: { ...base, backend: 'attach' } }), 'attach');
});

test('running headless: text, tooltip details', () => {
  const v = statusView({ native: off, coordinator: { ...base, state: 'running', currentUrl: 'http://localhost:3000/', browser: { type: 'chromium', version: '156.0', pid: 77, headless: true } } });
  assert.equal(v.text, '$(vm-running) external · running');
  assert.match(v.tooltip, /Browser: running · chromium 156\.0, pid 77, headless/);
  assert.match(v.tooltip, /Endpoint: http:\/\/127\.0\.0\.1:41000 \(coordinator pid 10, 0\.1\.0\)/);
  assert.match(v.tooltip, /Page: http:\/\/localhost:3000\//);
});

test('severity: crashed and a missing sidecar are errors, a native CDP problem a warning; busy shows a spinner', () => {
  assert.equal(statusView({ native: off, coordinator: { ...base, state: 'crashed' } }).severity, 'error');
  assert.equal(statusView({ native: off, sidecarError: 'no binary' }).severity, 'error');
  const warn = statusView({ native: { enabled: true, problem: 'restart VS Code' } });
  assert.equal(warn.severity, 'warning');
  assert.match(warn.tooltip, /⚠ restart VS Code/);
  assert.equal(statusView({ native: off, coordinator: base, busy: 'launching' }).text, '$(loading~spin) external · launching…');
});

test('actions: what makes sense in each state', () => {
  const ids = (input: Parameters<typeof actionItems>[0]) => actionItems(input).map((a) => a.id);
  assert.deepEqual(ids({ native: off }), ['enableNativeCdp', 'writeMcpJson', 'showLog']);
  assert.deepEqual(ids({ native: off, coordinator: base }), ['launch', 'toggleHeadless', 'enableNativeCdp', 'writeMcpJson', 'showLog']);
  const running = { ...base, state: 'running' as const, currentUrl: 'http://localhost/', browser: { type: 'chromium', headless: true } };
  assert.deepEqual(ids({ native: { enabled: true, port: 1 }, coordinator: running }), ['stop', 'restart', 'toggleHeadless', 'openPreview', 'disableNativeCdp', 'writeMcpJson', 'showLog']);
  assert.match(actionItems({ native: off, coordinator: running }).find((a) => a.id === 'toggleHeadless')!.label, /Show the browser window/);
  const visible = { ...running, browser: { type: 'chromium', headless: false } };
  assert.match(actionItems({ native: off, coordinator: visible }).find((a) => a.id === 'toggleHeadless')!.label, /Hide the browser window/);
  assert.ok(!ids({ native: off, coordinator: { ...running, backend: 'tier2', currentUrl: 'about:blank' } }).includes('toggleHeadless'), 'VS Code\'s own browser has no headless switch');
});

test('busy: every control action shows a spinner, whatever the state file says', () => {
  const running = { ...base, state: 'running' as const };
  assert.equal(statusView({ native: off, coordinator: running, busy: 'stopping' }).text, '$(loading~spin) external · stopping…');
  assert.equal(statusView({ native: off, coordinator: running, busy: 'restarting' }).text, '$(loading~spin) external · restarting…');
  assert.equal(statusView({ native: off, coordinator: running }).text, '$(vm-running) external · running');
});
