// The vscode:uninstall hook, run the way VS Code runs it: `node
// out/src/uninstall.js --type=extensionUninstall` from the extension's
// folder, here a copy of the built extension inside a temporary home.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { enableNativeCdp } from '../src/argv';
import { readPortFile, writePortFile } from '../src/cdpPort';
import { argvJsonOf, uninstall } from '../src/uninstall';
import { requireSidecar, root, tempDir } from './helpers';

const argvBefore = '// VS Code\'s own comment\n{\n\t"enable-crash-reporter": true\n}\n';

/** A home with the extension installed in ~/.vscode/extensions (its out/, jsonc-parser and the built sidecar copied), argv.json, a port file, Claude Code entries. */
function installed(t: Parameters<typeof tempDir>[0]) {
  const home = fs.realpathSync(tempDir(t, 'bc-uninstall-'));
  const ext = path.join(home, '.vscode', 'extensions', 'browser-coordinator.browser-coordinator-0.1.0-linux-x64');
  fs.cpSync(path.join(root, 'out', 'src'), path.join(ext, 'out', 'src'), { recursive: true });
  fs.cpSync(path.join(root, 'node_modules', 'jsonc-parser'), path.join(ext, 'node_modules', 'jsonc-parser'), { recursive: true });
  const sidecar = path.join(ext, 'bin', 'linux-x64', 'browser-coordinator');
  fs.mkdirSync(path.dirname(sidecar), { recursive: true });
  fs.copyFileSync(requireSidecar(), sidecar);
  fs.chmodSync(sidecar, 0o755);
  const argv = path.join(home, '.vscode', 'argv.json');
  fs.writeFileSync(argv, argvBefore);
  enableNativeCdp(argv);
  const state = path.join(home, '.local', 'state', 'browser-coordinator');
  const portFile = path.join(state, 'vscode-cdp-port');
  writePortFile(9333, portFile);
  const app = path.join(home, 'src', 'app');
  const other = path.join(home, 'src', 'other');
  // The extension's two local entries in app, someone else's server beside them, and another folder's entry of a sidecar elsewhere: those two stay.
  const claudeJson = path.join(home, '.claude.json');
  fs.writeFileSync(claudeJson, JSON.stringify({
    projects: {
      [app]: { mcpServers: {
        'browser-coordinator': { type: 'stdio', command: sidecar, args: [] },
        playwright: { type: 'stdio', command: sidecar, args: ['wrap', '--', 'npx', '-y', '@playwright/mcp@latest', '--cdp-endpoint', '{cdp_endpoint}'] },
        github: { type: 'stdio', command: 'gh-mcp', args: [] },
      } },
      [other]: { mcpServers: { 'browser-coordinator': { type: 'stdio', command: '/usr/local/bin/browser-coordinator', args: [] } } },
    },
  }, null, 2), { mode: 0o600 });
  const servers = (folder: string) => JSON.parse(fs.readFileSync(claudeJson, 'utf8')).projects[folder].mcpServers;
  return { home, ext, argv, portFile, app, other, servers };
}

test('argvJsonOf: the data folder around the extensions folder', () => {
  assert.equal(argvJsonOf('/h/.vscode/extensions/browser-coordinator.browser-coordinator-0.1.0'), '/h/.vscode/argv.json');
  assert.equal(argvJsonOf('/h/.cursor/extensions/x-1.0.0'), '/h/.cursor/argv.json');
  assert.equal(argvJsonOf('/portable/data/extensions/x-1.0.0'), '/portable/data/argv.json');
  assert.equal(argvJsonOf('/custom/dir/x-1.0.0'), undefined, 'a custom --extensions-dir says nothing about the product');
});

test('uninstall: removes the key the extension set, the port file and the local entries that run its sidecar — nothing else', (t) => {
  const h = installed(t);
  const done = uninstall({ extensionDir: h.ext, platform: { platform: 'linux', home: h.home, tmpdir: '/tmp', env: {} } });
  assert.equal(fs.readFileSync(h.argv, 'utf8'), argvBefore, `argv.json is as it was:\n${done.join('\n')}`);
  assert.equal(fs.existsSync(h.portFile), false);
  assert.deepEqual(Object.keys(h.servers(h.app)), ['github'], 'the extension\'s two entries are gone, the other server stays');
  assert.ok(h.servers(h.other)['browser-coordinator'], 'a sidecar outside the extension stays');
  assert.ok(done.some((l) => /removed "remote-debugging-port" \(set by Browser Coordinator\)/.test(l)), done.join('\n'));
  assert.ok(done.some((l) => /removed .*vscode-cdp-port/.test(l)), done.join('\n'));
  assert.ok(done.some((l) => /removed from .*\.claude\.json: browser-coordinator, playwright of /.test(l)), done.join('\n'));
});

test('uninstall leaves a key the user wrote, and a port file that is not the user\'s own', (t) => {
  const h = installed(t);
  const mine = '{\n\t"remote-debugging-port": "9222"\n}\n';
  fs.writeFileSync(h.argv, mine);
  fs.chmodSync(h.portFile, 0o644);
  uninstall({ extensionDir: h.ext, platform: { platform: 'linux', home: h.home, tmpdir: '/tmp', env: {} } });
  assert.equal(fs.readFileSync(h.argv, 'utf8'), mine);
  assert.ok(fs.existsSync(h.portFile), 'a port file others could have written is not touched');
});

test('the hook as VS Code runs it: node out/src/uninstall.js --type=extensionUninstall, within its 5 s', (t) => {
  const h = installed(t);
  assert.equal(readPortFile(h.portFile), 9333);
  const t0 = Date.now();
  const out = execFileSync(process.execPath, [path.join(h.ext, 'out', 'src', 'uninstall.js'), '--type=extensionUninstall'], {
    cwd: h.ext,
    env: { PATH: process.env.PATH, HOME: h.home },
    encoding: 'utf8',
    timeout: 5000,
  });
  assert.ok(Date.now() - t0 < 5000);
  assert.equal(fs.readFileSync(h.argv, 'utf8'), argvBefore, out);
  assert.equal(fs.existsSync(h.portFile), false, out);
  assert.deepEqual(Object.keys(h.servers(h.app)), ['github'], out);
  assert.match(out, /removed "remote-debugging-port"/);
});
