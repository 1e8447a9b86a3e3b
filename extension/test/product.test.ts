import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ARGV_DEBUGGING_PORT_SINCE, argvJsonPath, compareVersions, Host, nativeCdpSupport, readProduct, userDataDir } from '../src/product';
import { osCases, platformOf, tempDir } from './helpers';

const code = { nameShort: 'Code', dataFolderName: '.vscode' };

test('readProduct: product.json in appRoot, else the app name, else VS Code', (t) => {
  const appRoot = tempDir(t);
  fs.writeFileSync(path.join(appRoot, 'product.json'), JSON.stringify({ nameShort: 'Cursor', dataFolderName: '.cursor', applicationName: 'cursor' }));
  assert.deepEqual(readProduct(appRoot), { nameShort: 'Cursor', dataFolderName: '.cursor', applicationName: 'cursor', source: 'product.json' });
  assert.deepEqual(readProduct(tempDir(t), 'Visual Studio Code - Insiders'), { nameShort: 'Code - Insiders', dataFolderName: '.vscode-insiders', applicationName: 'code-insiders', source: 'appName' });
  assert.deepEqual(readProduct(undefined, 'VSCodium'), { nameShort: 'VSCodium', dataFolderName: '.vscode-oss', applicationName: 'codium', source: 'appName' });
  assert.deepEqual(readProduct(undefined, 'Something Else'), { ...code, applicationName: 'code', source: 'guess' });
});

test('argv.json: ~/<dataFolderName>/argv.json, or $VSCODE_PORTABLE/argv.json', () => {
  const home = '/home/u';
  assert.equal(argvJsonPath(code, { platform: 'linux', home, env: {} }), '/home/u/.vscode/argv.json');
  assert.equal(argvJsonPath({ nameShort: 'Code - Insiders', dataFolderName: '.vscode-insiders' }, { platform: 'darwin', home, env: {} }), '/home/u/.vscode-insiders/argv.json');
  assert.equal(argvJsonPath({ nameShort: 'Cursor', dataFolderName: '.cursor' }, { platform: 'linux', home, env: {} }), '/home/u/.cursor/argv.json');
  assert.equal(argvJsonPath(code, { platform: 'linux', home, env: { VSCODE_PORTABLE: '/opt/code/data' } }), '/opt/code/data/argv.json');
});

test('user data folder: from globalStorage (honours --user-data-dir), portable, VSCODE_APPDATA, per OS', () => {
  const home = '/home/u';
  assert.equal(userDataDir(code, { platform: 'linux', home, env: {} }, '/tmp/custom-udd/User/globalStorage/browser-coordinator.browser-coordinator'), '/tmp/custom-udd');
  assert.equal(userDataDir(code, { platform: 'linux', home, env: {} }, '/somewhere/else'), '/home/u/.config/Code', 'an unexpected globalStorage path is not trusted');
  assert.equal(userDataDir(code, { platform: 'linux', home, env: { VSCODE_PORTABLE: '/opt/code/data' } }), '/opt/code/data/user-data');
  assert.equal(userDataDir(code, { platform: 'linux', home, env: { VSCODE_APPDATA: '/appdata' } }), '/appdata/Code');
  assert.equal(userDataDir(code, { platform: 'linux', home, env: { XDG_CONFIG_HOME: '/xdg' } }), '/xdg/Code');
  assert.equal(userDataDir({ nameShort: 'Code - Insiders', dataFolderName: '.vscode-insiders' }, { platform: 'darwin', home, env: {} }), '/home/u/Library/Application Support/Code - Insiders');
  assert.equal(userDataDir(code, { platform: 'win32', home, env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' } }), 'C:\\Users\\u\\AppData\\Roaming\\Code');
});

test('user data folder without globalStorage agrees with the sidecar\'s app data folder on every OS', () => {
  for (const c of osCases) {
    if (c.appData === null) continue; // no home folder: VS Code always has one
    const platform = platformOf(c.os);
    const sep = platform === 'win32' ? '\\' : '/';
    assert.equal(userDataDir(code, { platform, home: c.home, env: c.env }), `${c.appData}${sep}Code`, c.name);
  }
});

test('compareVersions: numeric, dotted, pre-release suffixes ignored', () => {
  assert.equal(compareVersions('1.104.0', '1.103.2'), 1);
  assert.equal(compareVersions('1.99.3', '1.104.0'), -1);
  assert.equal(compareVersions('1.104.0-insider', '1.104.0'), 0);
  assert.equal(compareVersions('1.104', '1.104.0'), 0);
  assert.equal(compareVersions('2.0.0', '1.200.0'), 1);
});

test('the Tier 2 gate: desktop VS Code 1.104+ of a known product; older ones and guesses say what to do; web and remote say why not', () => {
  const desktop = (over: Partial<Host>): Host => ({ ui: 'desktop', version: '1.104.0', appName: 'Visual Studio Code', product: readProduct(undefined, 'Visual Studio Code'), ...over });
  assert.equal(ARGV_DEBUGGING_PORT_SINCE, '1.104.0');
  assert.deepEqual(nativeCdpSupport(desktop({})), { kind: 'supported' });
  assert.deepEqual(nativeCdpSupport(desktop({ version: '1.110.1' })), { kind: 'supported' });

  const old = nativeCdpSupport(desktop({ version: '1.103.2' }));
  assert.equal(old.kind, 'argvIgnored');
  assert.match(old.kind === 'argvIgnored' ? old.reason : '', /1\.103\.2 ignores "remote-debugging-port" in argv\.json \(VS Code reads it from 1\.104\.0 on\)/);
  assert.match(old.kind === 'argvIgnored' ? old.needs : '', /update to VS Code 1\.104\.0 or later, or start it with `code --remote-debugging-port=0`/);

  const cursor = nativeCdpSupport(desktop({ version: '1.99.3', appName: 'Cursor', product: readProduct(undefined, 'Cursor') }));
  assert.match(cursor.kind === 'argvIgnored' ? cursor.needs : '', /`cursor --remote-debugging-port=0`/, 'the fork\'s own launcher');

  const unknown = nativeCdpSupport(desktop({ appName: 'Some Fork', product: readProduct(undefined, 'Some Fork') }));
  assert.equal(unknown.kind, 'argvIgnored', 'a product whose argv.json is a guess is never edited');

  const web = nativeCdpSupport({ ui: 'web', version: '1.139.0', appName: 'code-server', product: readProduct(undefined, 'code-server') });
  assert.equal(web.kind, 'unavailable');
  assert.match(web.kind === 'unavailable' ? web.reason : '', /runs in a browser here/);
  const remote = nativeCdpSupport(desktop({ remoteName: 'ssh-remote' }));
  assert.match(remote.kind === 'unavailable' ? remote.reason : '', /remote window \(ssh-remote\)/);
});
