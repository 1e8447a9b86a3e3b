// Publishing a built release (dist/release/, scripts/lib/release.mjs) to one
// store. .github/workflows/release.yml runs one job per store, each with the
// one secret it needs from the repository's settings. A store whose secret
// is not set is skipped with a line that says which secret and where to set
// it, and the job succeeds: the other stores publish regardless. A re-run
// skips what a store already has.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './paths.mjs';
import { releaseDir, REPO } from './release.mjs';

/** Pinned: Open VSX's CLI (run with npx in the release job, on Node 22 as it requires). */
export const OVSX_VERSION = '1.4.0';

const npmCmd = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const where = 'the repository\'s Settings → Secrets and variables → Actions';

function sh(cmd, args, { env = process.env, capture = false } = {}) {
  const r = spawnSync(cmd, args, { cwd: root, env, encoding: 'utf8', stdio: capture ? 'pipe' : 'inherit', shell: process.platform === 'win32' && cmd.endsWith('.cmd') });
  if (r.error) throw r.error;
  return r;
}

function must(r, what) {
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status})${r.stderr ? `:\n${r.stderr}` : ''}`);
  return r;
}

const built = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'release.json'), 'utf8'));

async function github({ dir, env, log }) {
  const b = built(dir);
  const files = [...b.assets, 'SHA256SUMS'].map((f) => path.join(dir, f));
  const ghEnv = { ...env, GH_TOKEN: env.GITHUB_TOKEN, GH_REPO: env.GITHUB_REPOSITORY ?? REPO };
  if (sh('gh', ['release', 'view', b.tag], { env: ghEnv, capture: true }).status === 0) {
    log(`the GitHub release ${b.tag} exists: uploading its files again (--clobber)`);
    must(sh('gh', ['release', 'upload', b.tag, '--clobber', ...files], { env: ghEnv }), 'gh release upload');
    return;
  }
  must(sh('gh', ['release', 'create', b.tag, '--verify-tag', '--title', b.tag, '--notes-file', path.join(dir, 'notes.md'), ...files], { env: ghEnv }), 'gh release create');
}

async function npm({ dir, env, log }) {
  const b = built(dir);
  const provenance = env.GITHUB_ACTIONS === 'true' ? ['--provenance'] : [];
  for (const pkg of b.npm) {
    const seen = sh(npmCmd, ['view', `${pkg.name}@${pkg.version}`, 'version'], { env, capture: true });
    if (seen.status === 0 && seen.stdout.trim() === pkg.version) {
      log(`npm: ${pkg.name}@${pkg.version} is already published`);
      continue;
    }
    must(sh(npmCmd, ['publish', path.join(dir, pkg.tarball), '--access', 'public', '--ignore-scripts', ...provenance], { env }), `npm publish ${pkg.name}@${pkg.version}`);
  }
}

async function marketplace({ dir, env }) {
  const b = built(dir);
  const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  must(sh(process.execPath, [vsce, 'publish', '--skip-duplicate', '--packagePath', ...b.vsixes.map((v) => path.join(dir, v))], { env }), 'vsce publish');
}

async function openVsx({ dir, env }) {
  const b = built(dir);
  must(sh(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['--yes', `ovsx@${OVSX_VERSION}`, 'publish', '--skip-duplicate', '--packagePath', ...b.vsixes.map((v) => path.join(dir, v))], { env }), 'ovsx publish');
}

/** POSTs (or GETs) JSON to the Chrome Web Store API; throws with its answer on an error. */
async function cws(url, token, { method = 'POST', body, type } = {}) {
  const res = await fetch(url, { method, body, headers: { Authorization: `Bearer ${token}`, ...(type ? { 'Content-Type': type } : {}) }, signal: AbortSignal.timeout(120_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : {};
}

async function chromeWebStore({ dir, env, log }) {
  const b = built(dir);
  const auth = await fetch('https://oauth2.googleapis.com/token', {
    method: 'POST',
    body: new URLSearchParams({ client_id: env.CWS_CLIENT_ID, client_secret: env.CWS_CLIENT_SECRET, refresh_token: env.CWS_REFRESH_TOKEN, grant_type: 'refresh_token' }),
    signal: AbortSignal.timeout(60_000),
  });
  if (!auth.ok) throw new Error(`the Chrome Web Store's OAuth token: HTTP ${auth.status}: ${(await auth.text()).slice(0, 300)} (check CWS_CLIENT_ID, CWS_CLIENT_SECRET, CWS_REFRESH_TOKEN)`);
  const token = (await auth.json()).access_token;
  const item = `publishers/${env.CWS_PUBLISHER_ID}/items/${env.CWS_ITEM_ID}`;
  let up = await cws(`https://chromewebstore.googleapis.com/upload/v2/${item}:upload`, token, { body: fs.readFileSync(path.join(dir, b.storeZip)), type: 'application/zip' });
  for (let i = 0; up.uploadState === 'UPLOAD_IN_PROGRESS' && i < 60; i++) {
    await new Promise((r) => setTimeout(r, 5000)); // the store processes the upload; it has no event to wait for
    up = await cws(`https://chromewebstore.googleapis.com/v2/${item}:fetchStatus`, token, { method: 'GET' });
    up = { uploadState: up.lastAsyncUploadState ?? up.uploadState };
  }
  if (up.uploadState !== 'SUCCEEDED') throw new Error(`the Chrome Web Store did not take ${b.storeZip}: ${JSON.stringify(up)}`);
  const published = await cws(`https://chromewebstore.googleapis.com/v2/${item}:publish`, token, { body: '{}', type: 'application/json' });
  log(`the Chrome Web Store: ${b.storeZip} uploaded and submitted for review (${JSON.stringify(published.state ?? published)})`);
}

export const STORES = {
  github: { name: 'GitHub release', secrets: ['GITHUB_TOKEN'], publish: github },
  npm: { name: 'npm', secrets: ['NODE_AUTH_TOKEN'], publish: npm },
  marketplace: { name: 'VS Code Marketplace', secrets: ['VSCE_PAT'], publish: marketplace },
  'open-vsx': { name: 'Open VSX', secrets: ['OVSX_PAT'], publish: openVsx },
  'chrome-web-store': { name: 'Chrome Web Store', secrets: ['CWS_CLIENT_ID', 'CWS_CLIENT_SECRET', 'CWS_REFRESH_TOKEN', 'CWS_PUBLISHER_ID', 'CWS_ITEM_ID'], publish: chromeWebStore },
};

/**
 * Publishes the release in dir to store. Resolves to 'published', or to
 * 'skipped' when a secret is missing (said on the log, as a workflow
 * notice, and in the job's summary).
 */
export async function publish(store, { dir = releaseDir, env = process.env, log = console.log } = {}) {
  const s = STORES[store];
  if (!s) throw new Error(`unknown store ${store}: use ${Object.keys(STORES).join(', ')}`);
  const missing = s.secrets.filter((k) => !env[k]);
  if (missing.length) {
    const line = `${s.name}: skipped, ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set (${where}); the other stores publish regardless`;
    log(env.GITHUB_ACTIONS === 'true' ? `::notice title=${s.name} skipped::${line}` : line);
    if (env.GITHUB_STEP_SUMMARY) fs.appendFileSync(env.GITHUB_STEP_SUMMARY, `- ${line}\n`);
    return 'skipped';
  }
  await s.publish({ dir, env, log });
  const line = `${s.name}: published ${built(dir).tag} (https://github.com/${REPO})`;
  log(line);
  if (env.GITHUB_STEP_SUMMARY) fs.appendFileSync(env.GITHUB_STEP_SUMMARY, `- ${line}\n`);
  return 'published';
}
