// The release script as the release workflow and a maintainer run it
// (scripts/release.mjs), on copies of the files it reads: it refuses a
// release whose versions disagree, whose tag names another version or whose
// changelog lacks the version, and a store whose secret is not set is
// skipped with a line that says which secret, without failing. The whole
// dry run (builds, npm publish --dry-run, the reproducibility check) is a
// step of npm test of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from '../lib/paths.mjs';
import { changelogSection } from '../lib/release.mjs';

const script = path.join(root, 'scripts', 'release.mjs');
const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;

/** A folder with copies of what the preflight reads: package.json, the browser extension's manifest, CHANGELOG.md. */
function sources(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-release-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const f of ['package.json', path.join('extension', 'browser', 'manifest.json'), 'CHANGELOG.md']) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(root, f), path.join(dir, f));
  }
  const edit = (f, change) => fs.writeFileSync(path.join(dir, f), change(fs.readFileSync(path.join(dir, f), 'utf8')));
  return { dir, edit };
}

function release(args, env = process.env) {
  const r = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8', env });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

test('the preflight passes on an unchanged copy of the sources (the failures below are the edits\' doing)', (t) => {
  const { dir } = sources(t);
  const r = release(['--preflight', '--root', dir, '--tag', `v${version}`]);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, new RegExp(`version ${version.replaceAll('.', '\\.')}: the sources agree, and the tag is v`));
});

test('the dry run refuses a browser extension manifest whose version is not package.json\'s, before building anything', (t) => {
  const { dir, edit } = sources(t);
  edit(path.join('extension', 'browser', 'manifest.json'), (s) => s.replace(`"version": "${version}"`, '"version": "9.9.9"'));
  const r = release(['--dry-run', '--root', dir]);
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, new RegExp(`extension/browser/manifest\\.json says 9\\.9\\.9, not ${version.replaceAll('.', '\\.')}: give it package\\.json's version`), 'says which file is off and what to do');
  assert.doesNotMatch(r.out, /built .*browser-coordinator/, 'nothing was built');
});

test('the dry run refuses a version without its section in CHANGELOG.md, and says what to add', (t) => {
  const { dir, edit } = sources(t);
  edit('package.json', (s) => s.replace(`"version": "${version}"`, '"version": "9.9.9"'));
  edit(path.join('extension', 'browser', 'manifest.json'), (s) => s.replace(`"version": "${version}"`, '"version": "9.9.9"'));
  const r = release(['--dry-run', '--root', dir]);
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /CHANGELOG\.md has no section for 9\.9\.9: add "## \[9\.9\.9\] - YYYY-MM-DD"/);
  assert.doesNotMatch(r.out, /says .* not 9\.9\.9/, 'the versions themselves agree');
});

test('a tag that names another version is refused', (t) => {
  const { dir } = sources(t);
  const r = release(['--preflight', '--root', dir, '--tag', 'v9.9.9']);
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, new RegExp(`the tag is v9\\.9\\.9, but the version is ${version.replaceAll('.', '\\.')}`));
});

test('the changelog section: dated, not empty, without the link definitions at the end', () => {
  const text = '# Changelog\n\n## [Unreleased]\n\n## [1.2.0] - 2026-01-02\n\n### Added\n\n- a thing\n\n## [1.1.0]\n\n- old\n\n## [1.0.0] - 2025-01-01\n\n[1.2.0]: https://example.com/1.2.0\n';
  assert.equal(changelogSection(text, '1.2.0'), '### Added\n\n- a thing');
  assert.match(changelogSection(text, '1.1.0').message, /has no date/);
  assert.match(changelogSection(text, '1.0.0').message, /is empty/);
  assert.match(changelogSection(text, '1.3.0').message, /no section for 1\.3\.0/);
  assert.match(changelogSection(text, '1.2').message, /no section for 1\.2:/, 'a prefix of a version is not the version');
});

test('a store whose secret is not set is skipped with a line naming the secret, and the job succeeds', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-publish-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const summary = path.join(dir, 'summary.md');
  const env = { ...process.env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };
  for (const k of ['VSCE_PAT', 'OVSX_PAT', 'NODE_AUTH_TOKEN', 'CWS_CLIENT_ID', 'CWS_CLIENT_SECRET', 'CWS_REFRESH_TOKEN', 'CWS_PUBLISHER_ID', 'CWS_ITEM_ID']) delete env[k];
  for (const [store, secret] of [['marketplace', 'VSCE_PAT'], ['open-vsx', 'OVSX_PAT'], ['npm', 'NODE_AUTH_TOKEN'], ['chrome-web-store', 'CWS_CLIENT_ID, CWS_CLIENT_SECRET']]) {
    const r = release(['--publish', store, '--dir', dir], env); // dir has no release in it: a skip must not look
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, new RegExp(`::notice title=[^:]+ skipped::.*${secret}`), `${store}: a workflow notice`);
  }
  const lines = fs.readFileSync(summary, 'utf8').trim().split('\n');
  assert.equal(lines.length, 4, 'one summary line per skipped store');
  assert.match(lines[0], /VS Code Marketplace: skipped, VSCE_PAT is not set \(the repository's Settings → Secrets and variables → Actions\)/);

  const r = release(['--publish', 'marketplace', '--dir', dir], { ...env, VSCE_PAT: 'set' });
  assert.equal(r.code, 1, 'with its secret the store is tried, and fails here: there is nothing built to publish');
  assert.match(r.out, /release\.json/);
});
