// End to end, on every OS (CI runs it on Linux, macOS and Windows): where
// the binary puts things is where each OS's programs look for them. The
// places are this file's own table, written from the hosts' and browsers'
// documentation, not read from the code under test: the MCP hosts' user
// configuration (install --host claude-desktop, vscode --scope user), the
// native-messaging manifest each browser reads (and, on Windows, the
// registry key that points at it), and the per-user state folder that the
// coordinator, wrap and the CLI share. Every test runs in a private home.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '../lib/mcp.mjs';
import { binaryPath } from '../lib/paths.mjs';
import { packageVersion } from '../lib/build.mjs';

const bin = binaryPath();
const win = process.platform === 'win32';
const mac = process.platform === 'darwin';
const extensionOrigin = 'chrome-extension://ccgooljpoihlpcjlebchdcobkpcdkffa/';
const hostName = 'com.browser_coordinator.native_host';

/**
 * A private home: the environment that points every per-user folder of
 * this OS into it (HOME, and USERPROFILE, APPDATA, LOCALAPPDATA on Windows;
 * XDG folders unset on Linux, so their defaults below HOME apply).
 */
function privateHome(t) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-home-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const env = { ...process.env, HOME: home, BROWSER_COORDINATOR_STATE_DIR: '' };
  for (const k of ['XDG_CONFIG_HOME', 'XDG_RUNTIME_DIR', 'XDG_STATE_HOME']) delete env[k];
  if (win) {
    Object.assign(env, { USERPROFILE: home, APPDATA: path.join(home, 'AppData', 'Roaming'), LOCALAPPDATA: path.join(home, 'AppData', 'Local') });
    for (const d of [env.APPDATA, env.LOCALAPPDATA]) fs.mkdirSync(d, { recursive: true });
  }
  return { home, env };
}

function run(args, env, cwd) {
  const r = spawnSync(bin, args, { env, cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `browser-coordinator ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Where desktop (Electron) apps keep their user data: Electron's app.getPath('appData'). */
function appData(home) {
  if (win) return path.join(home, 'AppData', 'Roaming');
  if (mac) return path.join(home, 'Library', 'Application Support');
  return path.join(home, '.config');
}

test('install --host claude-desktop and vscode --scope user write where those apps read, naming this binary', (t) => {
  const { home, env } = privateHome(t);
  run(['install', '--host', 'claude-desktop'], env, home);
  const desktop = JSON.parse(fs.readFileSync(path.join(appData(home), 'Claude', 'claude_desktop_config.json'), 'utf8'));
  const entry = desktop.mcpServers['browser-coordinator'];
  assert.equal(fs.realpathSync(entry.command), fs.realpathSync(bin), 'Claude Desktop runs this binary, by its absolute path');
  assert.ok(entry.args.includes('--mcp'), `one entry with --mcp: ${JSON.stringify(entry.args)}`);

  run(['install', '--host', 'vscode', '--scope', 'user'], env, home);
  const vscode = JSON.parse(fs.readFileSync(path.join(appData(home), 'Code', 'User', 'mcp.json'), 'utf8'));
  assert.ok(vscode.servers['browser-coordinator'], `VS Code's user mcp.json has the coordinator: ${JSON.stringify(vscode)}`);
});

/** Where a browser looks for this user's native-messaging manifests (Chrome's and Edge's documentation). */
function manifestDir(home, browser) {
  if (win) return path.join(home, 'AppData', 'Local', 'browser-coordinator', 'NativeMessagingHosts'); // ours: the registry points at it
  const vendor = mac ? { chrome: 'Google/Chrome', edge: 'Microsoft Edge' } : { chrome: 'google-chrome', edge: 'microsoft-edge' };
  return path.join(mac ? path.join(home, 'Library', 'Application Support') : path.join(home, '.config'), vendor[browser], 'NativeMessagingHosts');
}

const registryKeys = { chrome: 'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts', edge: 'HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts' };

/** The default value of a registry key (reg query), or undefined when the key is absent. */
function registryDefault(key) {
  const r = spawnSync('reg', ['query', key, '/ve'], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  return /REG_SZ\s+(.*\S)\s*$/m.exec(r.stdout)?.[1];
}

/**
 * The real HKCU is the only registry there is: keep the user's own value of
 * key, and put it back (or remove the key) when the test ends.
 */
function keepRegistryValue(t, key) {
  const before = registryDefault(key);
  t.after(() => {
    if (before === undefined) execFileSync('reg', ['delete', key, '/f'], { stdio: 'ignore' });
    else execFileSync('reg', ['add', key, '/ve', '/t', 'REG_SZ', '/d', before, '/f'], { stdio: 'ignore' });
  });
}

/** Writes one native-messaging frame: its length (native byte order, as Chrome writes it), then the JSON. */
function frame(message) {
  const body = Buffer.from(JSON.stringify(message));
  const head = Buffer.alloc(4);
  if (os.endianness() === 'LE') head.writeUInt32LE(body.length);
  else head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

/** Reads the first frame from a stream. */
function firstFrame(stream) {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length < 4) return;
      const n = os.endianness() === 'LE' ? buf.readUInt32LE(0) : buf.readUInt32BE(0);
      if (buf.length < 4 + n) return;
      stream.off('data', onData);
      resolve(JSON.parse(buf.subarray(4, 4 + n).toString('utf8')));
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error(`the host closed its stdout before answering (${buf.length} bytes)`)));
  });
}

for (const browser of ['chrome', 'edge']) {
  test(`install --host ${browser}: the manifest where ${browser} reads it${win ? ' (through HKCU)' : ''}, and the host it names answers as the browser would talk to it`, async (t) => {
    const { home, env } = privateHome(t);
    if (win) keepRegistryValue(t, `${registryKeys[browser]}\\${hostName}`);
    run(['install', '--host', browser], env, home);

    const file = path.join(manifestDir(home, browser), `${hostName}.json`);
    if (win) {
      const registered = registryDefault(`${registryKeys[browser]}\\${hostName}`);
      assert.equal(registered && path.resolve(registered), path.resolve(file), `HKCU\\...\\${hostName} points at the manifest`);
    }
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(manifest.name, hostName);
    assert.equal(manifest.type, 'stdio');
    assert.ok(manifest.allowed_origins.includes(extensionOrigin), `the extension may connect: ${manifest.allowed_origins}`);
    assert.ok(path.isAbsolute(manifest.path), `an absolute path: ${manifest.path}`);

    // Start the host the way the browser does (the manifest's path, the
    // caller's origin; on Windows also --parent-window) and say hello.
    const stateDir = fs.mkdtempSync(path.join(home, 'state-'));
    const host = spawn(manifest.path, [extensionOrigin, ...(win ? ['--parent-window=0'] : [])], {
      env: { ...env, BROWSER_COORDINATOR_STATE_DIR: stateDir }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    host.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise((resolve) => host.once('exit', resolve));
    t.after(() => { host.kill(); return exited; });
    host.stdin.write(frame({ type: 'hello', protocol: extensionProtocol(), browser: { name: browser, version: '1' } }));
    const reply = await firstFrame(host.stdout).catch((err) => { throw new Error(`${err.message}\n${stderr}`); });
    assert.equal(reply.type, 'hello', JSON.stringify(reply));
    assert.equal(reply.host.version, packageVersion(), 'the host is this build');
    assert.ok(fs.existsSync(path.join(stateDir, 'everyday', `${reply.host.pid}.host`)), 'the host announced itself in the state folder, for coordinators');
    host.stdin.end(); // the browser closes the port: the host removes its announcement and exits
    assert.equal(await exited, 0, stderr);
    assert.ok(!fs.existsSync(path.join(stateDir, 'everyday', `${reply.host.pid}.host`)), 'the announcement went with the host');
  });
}

/** The protocol the browser extension of this checkout speaks (extension/browser/src/protocol.ts). */
function extensionProtocol() {
  const src = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'extension', 'browser', 'src', 'protocol.ts'), 'utf8');
  const m = src.match(/export const PROTOCOL = (\d+);/);
  assert.ok(m, 'extension/browser/src/protocol.ts declares PROTOCOL');
  return Number(m[1]);
}

/** The per-user base folder of this OS, and the environment variable that moves it. */
function stateBase(home) {
  const base = path.join(home, 'base');
  fs.mkdirSync(base, { mode: 0o700 });
  if (win) return { base: path.join(home, 'AppData', 'Local'), vars: {} }; // %LOCALAPPDATA%
  return { base, vars: mac ? { TMPDIR: base } : { XDG_RUNTIME_DIR: base } }; // macOS: the private $TMPDIR; Linux: the session's runtime folder
}

test('the per-user state folder: the coordinator writes there, private; wrap and status find it with no flag', async (t) => {
  const { home, env: homeEnv } = privateHome(t);
  const { base, vars } = stateBase(home);
  const env = { ...homeEnv, ...vars };
  const coord = await connect(bin, ['--no-vscode'], { env, cwd: home, name: 'platform-test' });
  t.after(() => coord.close());

  const dir = path.join(base, 'browser-coordinator');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.equal(files.length, 1, `one state file in ${dir}: ${files}`);
  const state = JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8'));
  assert.equal(state.pid, coord.pid);
  if (!win) {
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700, 'the folder is the user\'s alone');
    assert.equal(fs.statSync(path.join(dir, files[0])).mode & 0o777, 0o600, 'the state file is the user\'s alone');
  }

  const status = JSON.parse(run(['status', '--json'], env, home));
  assert.deepEqual(status.map((s) => s.pid), [coord.pid], 'status reads the same folder');
  // wrap fills in the endpoint from the same folder; the child prints it.
  const printed = run(['wrap', '--timeout', '60s', '--', process.execPath, '-e', 'console.log(process.argv[1])', '{cdp_endpoint}'], env, home).trim();
  assert.equal(printed, state.cdpEndpoint, 'wrap found the coordinator in the per-user folder');
});
