// The clients' task (see task/task.go) with Playwright or Puppeteer as a
// library, as their users connect to a browser someone else runs:
//   node libclient.mjs playwright|puppeteer ENDPOINT PAGE SHOT
// ENDPOINT is http:// (browserURL, connectOverCDP's discovery) or ws://.
// Prints what it read as one JSON line; exits 1 with the error.
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';

const [lib, endpoint, pageURL, shot] = process.argv.slice(2);
const click = "document.getElementById('out').textContent.startsWith('Clicked')";

async function withPlaywright() {
  const browser = await chromium.connectOverCDP(endpoint, { timeout: 60_000 });
  try {
    const context = browser.contexts()[0] ?? await browser.newContext();
    const page = await context.newPage();
    await page.goto(pageURL);
    const title = await page.title();
    await page.click('#b');
    await page.waitForFunction(click);
    const result = { title, after: await page.textContent('#out'), png: await page.screenshot() };
    await page.close();
    return result;
  } finally {
    await browser.close(); // connected, not launched: this disconnects
  }
}

async function withPuppeteer() {
  const browser = await puppeteer.connect(endpoint.startsWith('ws') ? { browserWSEndpoint: endpoint } : { browserURL: endpoint });
  try {
    const page = await browser.newPage();
    await page.goto(pageURL);
    const title = await page.title();
    await page.click('#b');
    await page.waitForFunction(click);
    const result = { title, after: await page.$eval('#out', (e) => e.textContent), png: await page.screenshot() };
    await page.close();
    return result;
  } finally {
    await browser.disconnect();
  }
}

try {
  const { title, after, png } = await (lib === 'playwright' ? withPlaywright() : withPuppeteer());
  fs.writeFileSync(shot, png);
  console.log(JSON.stringify({ title, after, shotBytes: png.length }));
} catch (err) {
  console.error('error:', err.message);
  process.exit(1);
}
