// The page-tools fixture site's server: every page, concurrently, and
// nothing outside the site's folder.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { siteDir, startSiteServer } from '../lib/siteserver.mjs';

test('the fixture site serves its pages, concurrently, and nothing else', async () => {
  const site = await startSiteServer();
  try {
    const pages = fs.readdirSync(siteDir);
    assert.ok(pages.includes('flights.html') && pages.includes('stores.json'));
    const answers = await Promise.all(pages.map((p) => fetch(`${site.url}/${p}`)));
    for (const [i, r] of answers.entries()) assert.equal(r.status, 200, pages[i]);
    const flights = await (await fetch(`${site.url}/flights.html`)).text();
    assert.match(flights, /<button type="submit">Search flights<\/button>/);
    assert.equal((await fetch(`${site.url}/stores.json`)).headers.get('content-type'), 'application/json');
    assert.match(await (await fetch(`${site.url}/`)).text(), /Page tools fixture site/);
    for (const bad of ['/../package.json', '/%2e%2e/package.json', '/..%2fpackage.json', '/missing.html']) {
      assert.equal((await fetch(site.url + bad)).status, 404, bad);
    }
    assert.equal((await fetch(`${site.url}/flights.html`, { method: 'POST' })).status, 405);
  } finally {
    await site.close();
  }
});
