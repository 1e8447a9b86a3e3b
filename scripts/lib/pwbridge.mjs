// Playwright MCP's own bridge to a running browser (`--extension`), for the
// everyday benchmark: a Chromium with the "Playwright Extension" loaded
// unpacked, and Playwright MCP started with --extension on that browser's
// profile. The extension is not ours and is not in this repository: the user
// builds it from microsoft/playwright's packages/extension (README,
// Performance) and names its dist/ in BENCH_PW_EXTENSION.
//
// How Playwright MCP reaches it: on its first tool call it starts a relay
// WebSocket server on 127.0.0.1, then spawns the browser's executable with
// `--user-data-dir=DIR chrome-extension://<id>/connect.html?mcpRelayUrl=…&token=…`.
// The connect page joins the relay, and the extension drives the tab with
// chrome.debugger. Without a token the page waits for the user to click
// Allow; with PLAYWRIGHT_MCP_EXTENSION_TOKEN equal to the token the extension
// keeps in its localStorage, it connects at once. The harness writes a fresh
// token there over the browser's debugging port (what a user does by copying
// the token the connect page shows), and passes openinbrowser.mjs as the
// executable (a headless Chromium cannot be handed a URL by a second process).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cdp } from './cdpclient.mjs';
import { startChromium } from './chromium.mjs';
import { connect } from './mcp.mjs';
import { childMCPs } from './paths.mjs';
import { waitUntil } from './procs.mjs';

/** The Playwright Extension's id, fixed by the key in its manifest. */
export const playwrightExtensionId = 'mmlmfjhmonkocbjadbfplnigmagldckm';

const opener = path.join(path.dirname(fileURLToPath(import.meta.url)), 'openinbrowser.mjs');

/** Why dir is not a built Playwright Extension, or '' if it is one. */
export function notPlaywrightExtension(dir) {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  } catch (err) {
    return `${dir}: no readable manifest.json (${err.message}); build microsoft/playwright's packages/extension and give its dist/`;
  }
  const worker = manifest.background?.service_worker;
  if (!worker || !fs.existsSync(path.join(dir, worker))) {
    return `${dir}: manifest.json names the service worker ${worker} but it is not there: this is the source folder, give the built dist/`;
  }
  if (!fs.existsSync(path.join(dir, 'connect.html'))) return `${dir}: no connect.html: this is not the Playwright Extension (${manifest.name})`;
  if (!manifest.key) return `${dir}: manifest.json has no "key", so the extension would not get the id ${playwrightExtensionId} Playwright MCP opens`;
  return '';
}

/**
 * Starts Chromium with the built Playwright Extension in dir (its own profile
 * under profileRoot), gives the extension a token, and starts Playwright MCP
 * with --extension on it (in cwd). Resolves to { client, close() }.
 */
export async function startPlaywrightBridge({ dir, profileRoot, cwd }) {
  const why = notPlaywrightExtension(dir);
  if (why) throw new Error(`BENCH_PW_EXTENSION: ${why}`);
  const profile = fs.mkdtempSync(path.join(profileRoot, 'pwx-'));
  const browser = await startChromium({ profile, args: ['--headless=new', '--disable-gpu', `--load-extension=${dir}`, `--disable-extensions-except=${dir}`] });
  const closers = [() => browser.kill()];
  const close = async () => {
    for (const c of closers) await c();
  };
  try {
    const token = crypto.randomBytes(16).toString('base64url');
    const b = await cdp(browser.ws);
    closers.unshift(() => b.close());
    const page = `chrome-extension://${playwrightExtensionId}/status.html`;
    const { result: { targetId } } = await b.call('Target.createTarget', { url: page, background: true });
    const { result: { sessionId } } = await b.call('Target.attachToTarget', { targetId, flatten: true });
    const evaluate = async (expression) => (await b.call('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result?.result?.value;
    await waitUntil(async () => (await evaluate("location.origin + ' ' + document.readyState")) === `chrome-extension://${playwrightExtensionId} complete`,
      { timeout: 30_000, what: `the Playwright Extension's page ${page} to load (is ${dir} loaded? its id must be ${playwrightExtensionId})` });
    const stored = await evaluate(`localStorage.setItem('auth-token', ${JSON.stringify(token)}); localStorage.getItem('auth-token')`);
    if (stored !== token) throw new Error(`could not give the Playwright Extension its token: localStorage answered ${JSON.stringify(stored)}`);
    await b.call('Target.closeTarget', { targetId });

    const pw = await connect(childMCPs.playwright[0], [...childMCPs.playwright.slice(1), '--extension', '--executable-path', opener, '--user-data-dir', profile],
      { cwd, env: { PLAYWRIGHT_MCP_EXTENSION_TOKEN: token } });
    closers.unshift(() => pw.close());
    return { client: pw.client, stderr: pw.stderr, close };
  } catch (err) {
    await close();
    throw err;
  }
}
