#!/usr/bin/env node
// The benchmark's stand-in for "open this URL in the browser that is already
// running on this profile". Playwright MCP's --extension mode reaches the
// user's browser by spawning the browser's executable with
// `--user-data-dir=DIR URL` (and --no-sandbox as root), which a desktop
// Chrome hands to its running instance through the profile's process
// singleton. A headless Chromium listens on no singleton (a second process
// on its profile aborts: "Failed to create a ProcessSingleton"), so the
// benchmark passes this script as Playwright MCP's --executable-path: it opens
// the URL as a new tab over the running browser's debugging port, found in
// DIR/DevToolsActivePort, and exits. Playwright MCP sees what it sees with a
// real Chrome: a spawned command that returns, then the extension's connect
// page joining its relay.
import fs from 'node:fs';
import path from 'node:path';
import { cdp } from './cdpclient.mjs';

const dirArg = process.argv.find((a) => a.startsWith('--user-data-dir='));
const url = process.argv.at(-1);
if (!dirArg || !url || url.startsWith('--')) {
  process.stderr.write('usage: openinbrowser.mjs --user-data-dir=DIR [flags] URL (the browser on DIR must run with --remote-debugging-port)\n');
  process.exit(2);
}
const dir = dirArg.slice('--user-data-dir='.length);
const [port, wsPath] = fs.readFileSync(path.join(dir, 'DevToolsActivePort'), 'utf8').split('\n');
const browser = await cdp(`ws://127.0.0.1:${port}${wsPath}`);
const answer = await browser.call('Target.createTarget', { url });
browser.close();
if (answer.error) {
  process.stderr.write(`Target.createTarget ${url}: ${answer.error.message}\n`);
  process.exit(1);
}
