import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { argvJsonPath, readProduct, userDataDir } from '../src/product';
import { tempDir } from './helpers';

const code = { nameShort: 'Code', dataFolderName: '.vscode' };

test('readProduct: product.json in appRoot, else the app name, else VS Code', (t) => {
  const appRoot = tempDir(t);
  fs.writeFileSync(path.join(appRoot, 'product.json'), JSON.stringify({ nameShort: 'Cursor', dataFolderName: '.cursor', applicationName: 'cursor' }));
  assert.deepEqual(readProduct(appRoot), { nameShort: 'Cursor', dataFolderName: '.cursor' });
  assert.deepEqual(readProduct(tempDir(t), 'Visual Studio Code - Insiders'), { nameShort: 'Code - Insiders', dataFolderName: '.vscode-insiders' });
  assert.deepEqual(readProduct(undefined, 'VSCodium'), { nameShort: 'VSCodium', dataFolderName: '.vscode-oss' });
  assert.deepEqual(readProduct(undefined, 'Something Else'), code);
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
  assert.equal(userDataDir(code, { platform: 'win32', home, env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' } }), path.join('C:\\Users\\u\\AppData\\Roaming', 'Code'));
});
