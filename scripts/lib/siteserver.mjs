// Serves the page-tools fixture site (scripts/fixtures/site/) for the
// end-to-end tests, the demo and benchmarks: static files only, from Node's
// concurrent http server (Chromium's preconnects hang a one-at-a-time
// server). The Go tests of sidecar/internal/pagetools serve the same folder.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { listen } from './pageserver.mjs';
import { root } from './paths.mjs';

export const siteDir = path.join(root, 'scripts', 'fixtures', 'site');

const types = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
};

/** Starts the server on a free port of host (default 127.0.0.1); resolves to { url, close }. */
export function startSiteServer({ host = '127.0.0.1' } = {}) {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    let pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (pathname === '/') pathname = '/index.html';
    const file = path.join(siteDir, path.normalize(pathname));
    if (!file.startsWith(siteDir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(pathname === '/favicon.ico' ? 204 : 404, { 'content-type': 'text/plain' }).end(pathname === '/favicon.ico' ? undefined : 'not found');
      return;
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
    if (req.method === 'HEAD') res.end();
    else fs.createReadStream(file).pipe(res);
  });
  return listen(server, host);
}
