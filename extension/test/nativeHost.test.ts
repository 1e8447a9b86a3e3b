import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hostBrowsers, nextSteps, registerNativeHost, remember, staleRegistrations } from '../src/nativeHost';
import { requireSidecar, script, tempDir } from './helpers';

const MANIFEST = 'com.browser_coordinator.native_host.json';
const EXTENSION_ID = 'ccgooljpoihlpcjlebchdcobkpcdkffa';

test('the real sidecar registers the host where the browser looks (a profile of its own, then the per-user place)', async (t) => {
  const sidecar = requireSidecar();
  const profile = tempDir(t);
  const r = await registerNativeHost({ sidecar, browser: 'chromium', userDataDir: profile });
  const file = path.join(profile, 'NativeMessagingHosts', MANIFEST);
  assert.match(r.message, /registered the native host for chromium/);
  assert.ok(r.message.includes(file), r.message);
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(manifest.path, sidecar, 'the manifest names the sidecar that registered it');
  assert.deepEqual(manifest.allowed_origins, [`chrome-extension://${EXTENSION_ID}/`]);

  if (process.platform === 'linux') {
    const config = tempDir(t);
    await registerNativeHost({ sidecar, browser: 'brave', env: { ...process.env, XDG_CONFIG_HOME: config } });
    assert.ok(fs.existsSync(path.join(config, 'BraveSoftware', 'Brave-Browser', 'NativeMessagingHosts', MANIFEST)));
  }
});

test('a browser the host cannot be registered for runs nothing and says what is allowed', async (t) => {
  const marker = path.join(tempDir(t), 'ran');
  const fake = script(path.join(tempDir(t), 'bc'), `touch ${marker}`);
  for (const browser of ['firefox', '', undefined, 'chrome --dry-run']) {
    await assert.rejects(registerNativeHost({ sidecar: fake, browser }), /choose chrome, edge, chromium, brave/);
  }
  assert.ok(!fs.existsSync(marker), 'the sidecar never ran');
});

test('a failing sidecar: the error carries what it said', async (t) => {
  const fake = script(path.join(tempDir(t), 'bc'), 'echo "browser-coordinator: install: cannot write /x: permission denied" >&2; exit 1');
  await assert.rejects(registerNativeHost({ sidecar: fake, browser: 'edge' }), /install --host edge failed: install: cannot write \/x: permission denied/);
});

test('registrations are remembered and made again when the sidecar moves', () => {
  let rec = remember(undefined, '/ext-0.1.0/bin/bc', 'chrome');
  rec = remember(rec, '/ext-0.1.0/bin/bc', 'edge');
  rec = remember(rec, '/ext-0.1.0/bin/bc', 'chrome');
  assert.deepEqual(rec, { sidecar: '/ext-0.1.0/bin/bc', browsers: ['chrome', 'edge'] });
  assert.deepEqual(staleRegistrations(rec, '/ext-0.1.0/bin/bc'), [], 'the same sidecar: nothing to do');
  assert.deepEqual(staleRegistrations(rec, '/ext-0.2.0/bin/bc'), ['chrome', 'edge']);
  assert.deepEqual(staleRegistrations(undefined, '/x'), []);
  assert.deepEqual(staleRegistrations({ sidecar: '/old', browsers: ['chrome', 'firefox' as never] }, '/new'), ['chrome'], 'a corrupt record registers only what is allowed');
});

test('the next steps name the browser and the two ways to choose it', () => {
  for (const b of hostBrowsers) assert.match(nextSteps(b), /--browser everyday.*browserType "everyday"/s);
  assert.match(nextSteps('edge'), /^Microsoft Edge/);
});
