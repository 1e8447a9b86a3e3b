// A small page server for tests, the demo and benchmarks. Node's http server
// is concurrent, which Chromium's preconnects need (a one-at-a-time server hangs).
import http from 'node:http';

const page = (title, body) => `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title></head>
<body>${body}</body></html>`;

const pages = {
  '/': page('Coordinator test page', `
<h1>Coordinator test page</h1>
<button id="b" onclick="document.getElementById('out').textContent = 'Clicked ' + (++window.clicks) + ' time(s)'">Click me</button>
<p id="out">Not clicked yet</p>
<script>window.clicks = 0</script>`),
  '/second': page('Second page', '<h1>Second page</h1><p>Reached through the same CDP endpoint.</p>'),
  // Random pixels do not compress: a screenshot of this page is large (about
  // 3 bytes a pixel), for throughput benchmarks.
  '/noise': page('Noise', `<style>body{margin:0}</style><canvas id="c" width="1600" height="2400"></canvas><script>
const c = document.getElementById('c'), g = c.getContext('2d'), img = g.createImageData(c.width, c.height);
const px = new Uint32Array(img.data.buffer);
let x = 2463534242;
for (let i = 0; i < px.length; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; px[i] = x | 0xff000000; }
g.putImageData(img, 0, 0);</script>`),
};

/** Starts the server with a free port on host (default 127.0.0.1); resolves to { url, close }. */
export function startPageServer({ host = '127.0.0.1' } = {}) {
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url, 'http://x').pathname;
    if (pathname === '/favicon.ico') {
      res.writeHead(204).end(); // no console error in every snapshot
      return;
    }
    const body = pages[pathname];
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  return listen(server, host);
}

/** Listens with server on a free port of host; resolves to { url, close }. */
export function listen(server, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      resolve({
        url: `http://${host}:${port}`,
        close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
      });
    });
  });
}
