import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsonc from 'jsonc-parser';
import { ArgvParseError, argvStatus, BACKUP_SUFFIX, disableNativeCdp, enableNativeCdp, MARKER, removeOwnKey } from '../src/argv';
import { tempDir } from './helpers';

function valueIn(text: string): unknown {
  return jsonc.parse(text.replace(/^\ufeff/, ''), [], { allowTrailingComma: true })['remote-debugging-port'];
}

// The file VS Code writes on first start (abridged), tabs and comments.
const vscodeDefault = `// This configuration file allows you to pass permanent command line arguments to VS Code.
// Only a subset of arguments is currently supported to reduce the likelihood of breaking
// the installation.
//
// PLEASE DO NOT CHANGE WITHOUT UNDERSTANDING THE IMPACT
{
	// Use software rendering instead of hardware accelerated rendering.
	// "disable-hardware-acceleration": true,

	// Allows to disable crash reporting.
	"enable-crash-reporter": true,

	// Unique id used for correlating crash reports sent from this instance.
	"crash-reporter-id": "7e3b1e52-0000-4000-8000-000000000000"
}
`;

test('argv.json missing: created with the string "0"', (t) => {
  const file = path.join(tempDir(t), '.vscode', 'argv.json');
  assert.deepEqual(argvStatus(file), { kind: 'missing' });
  const r = enableNativeCdp(file);
  assert.equal(r.changed, true);
  assert.equal(r.backup, undefined, 'nothing to back up');
  const text = fs.readFileSync(file, 'utf8');
  assert.equal(valueIn(text), '0');
  assert.deepEqual(argvStatus(file), { kind: 'enabled', value: '0', ours: true });
  assert.equal(text, `{\n\t${MARKER}\n\t"remote-debugging-port": "0"\n}\n`, 'marked as the extension\'s');
});

test('argv.json empty: gets an object with the key, and a backup', (t) => {
  const file = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(file, '');
  const r = enableNativeCdp(file);
  assert.equal(r.changed, true);
  assert.equal(fs.readFileSync(r.backup!, 'utf8'), '');
  assert.equal(valueIn(fs.readFileSync(file, 'utf8')), '0');
});

test("VS Code's default argv.json: comments, tabs and other keys survive; only one property is added", (t) => {
  const file = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(file, vscodeDefault);
  const r = enableNativeCdp(file);
  assert.equal(r.changed, true);
  const text = fs.readFileSync(file, 'utf8');
  assert.equal(valueIn(text), '0');
  assert.ok(text.endsWith(`,\n\t${MARKER}\n\t"remote-debugging-port": "0"\n}\n`), `added with the file's tab indentation, marked:\n${text}`);
  // Everything that was there is still there, in order: removing the new lines gives the original back.
  const withoutNew = text.replace(`,\n\t${MARKER}\n\t"remote-debugging-port": "0"`, '');
  assert.equal(withoutNew, vscodeDefault);
  assert.equal(fs.readFileSync(r.backup!, 'utf8'), vscodeDefault, 'the backup is the file before the edit');
});

test('argv.json with a BOM: the BOM is kept, the edit works', (t) => {
  const file = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(file, '\ufeff{\n  "enable-crash-reporter": false\n}\n');
  enableNativeCdp(file);
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.startsWith('\ufeff{'), 'BOM kept');
  assert.equal(text, `\ufeff{\n  "enable-crash-reporter": false,\n  ${MARKER}\n  "remote-debugging-port": "0"\n}\n`, 'two-space indent kept');
});

test('argv.json with trailing commas and block comments: parsed and kept', (t) => {
  const file = path.join(tempDir(t), 'argv.json');
  const before = '{\n    /* keep me */\n    "locale": "de",\n}\n';
  fs.writeFileSync(file, before);
  assert.deepEqual(argvStatus(file), { kind: 'absent' });
  enableNativeCdp(file);
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.includes('/* keep me */'));
  assert.ok(text.includes('"locale": "de"'));
  assert.equal(valueIn(text), '0');
  assert.deepEqual(jsonc.parse(text, [], { allowTrailingComma: true }), { locale: 'de', 'remote-debugging-port': '0' });
});

test('CRLF line ends are kept', (t) => {
  const file = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(file, '{\r\n\t"locale": "en"\r\n}\r\n');
  enableNativeCdp(file);
  const text = fs.readFileSync(file, 'utf8');
  assert.equal(text, `{\r\n\t"locale": "en",\r\n\t${MARKER}\r\n\t"remote-debugging-port": "0"\r\n}\r\n`);
});

test('remote-debugging-port as a number (VS Code ignores it): replaced by the string "0"', (t) => {
  const file = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(file, '{\n\t// mine\n\t"remote-debugging-port": 9222\n}\n');
  assert.deepEqual(argvStatus(file), { kind: 'ignored', value: 9222 });
  const r = enableNativeCdp(file);
  assert.equal(r.changed, true);
  assert.match(r.message, /9222, a number, which VS Code ignores/);
  assert.equal(fs.readFileSync(file, 'utf8'), `{\n\t// mine\n\t${MARKER}\n\t"remote-debugging-port": "0"\n}\n`);
});

test('a string value already there is left alone (no write, no backup)', (t) => {
  const file = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(file, '{ "remote-debugging-port": "9333" }');
  const mtime = fs.statSync(file).mtimeMs;
  const r = enableNativeCdp(file);
  assert.equal(r.changed, false);
  assert.equal(fs.readFileSync(file, 'utf8'), '{ "remote-debugging-port": "9333" }');
  assert.equal(fs.statSync(file).mtimeMs, mtime);
  assert.equal(fs.existsSync(`${file}${BACKUP_SUFFIX}`), false);
});

test('argv.json that does not parse: untouched, the error names line and column', (t) => {
  const file = path.join(tempDir(t), 'argv.json');
  const broken = '{\n\t"locale": "en"\n\t"enable-crash-reporter": true\n}\n';
  fs.writeFileSync(file, broken);
  assert.throws(() => enableNativeCdp(file), (err: unknown) => {
    assert.ok(err instanceof ArgvParseError);
    assert.equal(err.line, 3);
    assert.equal(err.column, 2);
    assert.match(err.message, /argv\.json:3:2: not valid JSON with comments \(CommaExpected\)/);
    assert.match(err.message, /was not changed/);
    return true;
  });
  assert.throws(() => disableNativeCdp(file), ArgvParseError);
  assert.throws(() => argvStatus(file), ArgvParseError);
  assert.equal(fs.readFileSync(file, 'utf8'), broken);
  assert.equal(fs.existsSync(`${file}${BACKUP_SUFFIX}`), false, 'no backup either: nothing was written');
});

test('argv.json whose top level is not an object: untouched', (t) => {
  const file = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(file, '[1, 2]\n');
  assert.throws(() => enableNativeCdp(file), /argv\.json:1:1: the top level is array, not an object/);
  assert.equal(fs.readFileSync(file, 'utf8'), '[1, 2]\n');
});

test('disable removes the key and keeps the rest; a file without it is not written', (t) => {
  const file = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(file, vscodeDefault);
  enableNativeCdp(file);
  const r = disableNativeCdp(file);
  assert.equal(r.changed, true);
  assert.equal(fs.readFileSync(file, 'utf8'), vscodeDefault, 'enable then disable gives the original back');
  assert.equal(disableNativeCdp(file).changed, false);
  const missing = path.join(tempDir(t), 'none', 'argv.json');
  assert.equal(disableNativeCdp(missing).changed, false);
  assert.equal(fs.existsSync(missing), false);
});

test('the file mode is kept (atomic replace)', (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'argv.json');
  fs.writeFileSync(file, '{}');
  fs.chmodSync(file, 0o600);
  enableNativeCdp(file);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['argv.json', `argv.json${BACKUP_SUFFIX}`], 'no temp file left behind');
});

test('a symlinked argv.json stays a link; the file it points to is edited and backed up', (t) => {
  const dotfiles = fs.realpathSync(tempDir(t)); // macOS: /var is a link to /private/var
  const real = path.join(dotfiles, 'argv.json');
  fs.writeFileSync(real, vscodeDefault);
  const link = path.join(tempDir(t), 'argv.json');
  fs.symlinkSync(real, link);
  const r = enableNativeCdp(link);
  assert.equal(r.changed, true);
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is not replaced by a plain file');
  assert.equal(valueIn(fs.readFileSync(real, 'utf8')), '0');
  assert.equal(r.backup, `${real}${BACKUP_SUFFIX}`);
  assert.equal(fs.readFileSync(r.backup, 'utf8'), vscodeDefault);
  disableNativeCdp(link);
  assert.ok(fs.lstatSync(link).isSymbolicLink());
  assert.equal(fs.readFileSync(real, 'utf8'), vscodeDefault);
});

test('the backup keeps the original: later edits never overwrite it', (t) => {
  const file = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(file, vscodeDefault);
  const first = enableNativeCdp(file);
  assert.equal(fs.readFileSync(first.backup!, 'utf8'), vscodeDefault);
  const enabled = fs.readFileSync(file, 'utf8');
  const second = disableNativeCdp(file);
  assert.equal(second.backup, first.backup);
  assert.equal(fs.readFileSync(second.backup!, 'utf8'), vscodeDefault, 'still the file before the extension touched it, not the enabled one');
  assert.notEqual(enabled, vscodeDefault);
  enableNativeCdp(file);
  assert.equal(fs.readFileSync(first.backup!, 'utf8'), vscodeDefault);
});

test('removeOwnKey (the uninstall hook): removes the key the extension set, never one the user wrote', (t) => {
  const ours = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(ours, vscodeDefault);
  enableNativeCdp(ours);
  const r = removeOwnKey(ours);
  assert.equal(r.changed, true, r.message);
  assert.equal(fs.readFileSync(ours, 'utf8'), vscodeDefault, 'the key and its comment are gone, nothing else changed');
  assert.equal(removeOwnKey(ours).changed, false);

  const users = path.join(tempDir(t), 'argv.json');
  const mine = '{\n\t// I debug VS Code itself\n\t"remote-debugging-port": "9222"\n}\n';
  fs.writeFileSync(users, mine);
  assert.deepEqual(argvStatus(users), { kind: 'enabled', value: '9222', ours: false });
  const kept = removeOwnKey(users);
  assert.equal(kept.changed, false);
  assert.match(kept.message, /was not set by Browser Coordinator/);
  assert.equal(fs.readFileSync(users, 'utf8'), mine);

  const broken = path.join(tempDir(t), 'argv.json');
  fs.writeFileSync(broken, '{ nope');
  assert.equal(removeOwnKey(broken).changed, false, 'a file that does not parse is left alone, without throwing');
  assert.equal(removeOwnKey(path.join(tempDir(t), 'missing.json')).changed, false);
});
