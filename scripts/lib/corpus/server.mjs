// The corpus's web server: real apps from npm packages (served as their
// packages ship them), the pages that put a design system's components in a
// form, the API the API explorer calls, and a log of every request, so a
// task's check reads what the server received, never a tool's answer.
// Node's http server is concurrent (Chromium's preconnects hang a
// one-at-a-time server).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { listen } from '../pageserver.mjs';
import { root } from '../paths.mjs';

const modules = path.join(root, 'node_modules');

const types = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.eot': 'application/vnd.ms-fontobject',
};

/** The npm packages served, by URL prefix: the apps exactly as their packages ship them. */
export const mounts = {
  '/todomvc/': path.join(modules, 'todomvc'),
  '/govuk-frontend/': path.join(modules, 'govuk-frontend', 'dist', 'govuk'),
  '/accessible-autocomplete/': path.join(modules, 'accessible-autocomplete'),
  '/flatpickr/': path.join(modules, 'flatpickr'),
  '/sb-admin-2/': path.join(modules, 'startbootstrap-sb-admin-2'),
  '/swagger-ui/': path.join(modules, 'swagger-ui-dist'),
};

/**
 * Starts the server on a free port of each of hosts (one log for all: two
 * origins for two agents whose apps must not share storage). routes: { 'METHOD /path': (req, body) =>
 * { status, type, body } } for generated pages and APIs (a path ending in * matches a
 * prefix). Resolves to { url (the first host's), urls, close(), mark(), since(mark) }: mark() is the number of
 * requests received so far, since(mark) those received after it, each { method,
 * path, query, fields, json, headers, status (static files) } with fields [[name, value]] (a file: value
 * { filename, size }).
 */
export async function startCorpusServer({ hosts = ['127.0.0.1'], routes = {} } = {}) {
  const log = [];
  const handle = async (req, res) => {
    const u = new URL(req.url, 'http://x');
    const pathname = decodeURIComponent(u.pathname);
    let raw;
    try {
      raw = await readBody(req);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const entry = { method: req.method, path: pathname, query: [...u.searchParams], headers: req.headers, ...parseBody(req.headers['content-type'], raw) };
    if (pathname !== '/favicon.ico') log.push(entry);
    const route = findRoute(routes, req.method, pathname);
    if (route) {
      let out;
      try {
        out = await route(entry, u);
      } catch (err) {
        out = { status: 500, type: 'text/plain', body: String(err?.stack ?? err) };
      }
      res.writeHead(out.status ?? 200, { 'content-type': out.type ?? 'text/html; charset=utf-8', 'cache-control': 'no-store', ...out.headers });
      res.end(out.body ?? '');
      return;
    }
    entry.status = serveStatic(req, res, pathname);
  };
  const listening = [];
  try {
    for (const host of hosts) listening.push(await listen(http.createServer(handle), host));
  } catch (err) {
    for (const l of listening) await l.close();
    throw err;
  }
  return {
    url: listening[0].url,
    urls: listening.map((l) => l.url),
    close: () => Promise.all(listening.map((l) => l.close())),
    mark: () => log.length,
    since: (m) => log.slice(m),
  };
}

function findRoute(routes, method, pathname) {
  const exact = routes[`${method} ${pathname}`];
  if (exact) return exact;
  for (const [key, fn] of Object.entries(routes)) {
    const [m, p] = key.split(' ');
    if ((m === method || m === '*') && p.endsWith('*') && pathname.startsWith(p.slice(0, -1))) return fn;
  }
  return undefined;
}

function serveStatic(req, res, pathname) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    // A form that posts to a static page of a template (a login that
    // "submits" to the dashboard): the page, as a static server would give it
    // after the log above has kept what was sent.
    req.method = 'GET';
  }
  const prefix = Object.keys(mounts).find((p) => pathname.startsWith(p));
  let file;
  if (prefix) {
    const dir = mounts[prefix];
    file = path.join(dir, path.normalize(pathname.slice(prefix.length)));
    if (!file.startsWith(dir)) file = undefined;
    else if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
  }
  if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(pathname === '/favicon.ico' ? 204 : 404, { 'content-type': 'text/plain' }).end(pathname === '/favicon.ico' ? undefined : 'not found');
    return 404;
  }
  res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
  if (req.method === 'HEAD') res.end();
  else fs.createReadStream(file).pipe(res);
  return 200;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > 8 << 20) reject(new Error('body too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The fields of a request body: urlencoded, multipart (files as { filename, size }) or JSON. */
export function parseBody(type = '', raw) {
  if (!raw.length) return { fields: [] };
  if (type.startsWith('application/x-www-form-urlencoded')) return { fields: [...new URLSearchParams(raw.toString('utf8'))] };
  if (type.startsWith('application/json')) {
    try {
      return { fields: [], json: JSON.parse(raw.toString('utf8')) };
    } catch {
      return { fields: [], text: raw.toString('utf8') };
    }
  }
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type);
  if (type.startsWith('multipart/form-data') && boundary) return { fields: multipart(raw.toString('latin1'), boundary[1] ?? boundary[2]) };
  return { fields: [], text: raw.toString('utf8') };
}

function multipart(body, boundary) {
  const fields = [];
  for (const part of body.split(`--${boundary}`)) {
    const head = part.indexOf('\r\n\r\n');
    if (head < 0) continue;
    const headers = part.slice(0, head);
    const name = /name="([^"]*)"/.exec(headers)?.[1];
    if (name === undefined) continue;
    const value = part.slice(head + 4).replace(/\r\n$/, '');
    const filename = /filename="([^"]*)"/.exec(headers)?.[1];
    fields.push([name, filename === undefined ? Buffer.from(value, 'latin1').toString('utf8') : { filename, size: value.length }]);
  }
  return fields;
}

/** The values the request sent for field name. */
export const valuesOf = (entry, name) => entry.fields.filter(([n]) => n === name).map(([, v]) => v);
