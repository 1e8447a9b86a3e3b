// One small HTTP client for the two loopback conversations the extension has:
// asking a CDP port for /json/version (cdpPort.ts) and the coordinator's
// control API (control.ts). Every way a request or its answer can fail ends
// the promise exactly once, with an error that says what happened: the
// connection refused or reset, no complete answer within the deadline (a
// whole-request timer, not only an idle one: a peer that trickles bytes is
// cut off too), an answer larger than allowed, or an answer cut short.
import * as http from 'node:http';

export interface HttpRequest {
  method?: string;
  port: number;
  path: string;
  headers?: Record<string, string | number>;
  body?: string;
  /** The whole exchange, connect to last byte. */
  timeoutMs: number;
  /** Answers longer than this are refused (the body is not kept). */
  maxBytes?: number;
}

export interface HttpResponse {
  status: number;
  text: string;
}

/** An HTTP exchange that failed; code is the socket error's code (ECONNREFUSED …) or TIMEOUT, TOO_LARGE, ABORTED. */
export class HttpError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
    this.name = 'HttpError';
  }
}

export function request(r: HttpRequest): Promise<HttpResponse> {
  const method = r.method ?? 'GET';
  const host = '127.0.0.1';
  const maxBytes = r.maxBytes ?? 1 << 20;
  const what = `${method} http://${host}:${r.port}${r.path}`;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | undefined, res?: HttpResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        req.destroy();
        reject(err);
      } else {
        resolve(res!);
      }
    };
    const req = http.request(
      {
        host,
        port: r.port,
        path: r.path,
        method,
        agent: false, // one connection per exchange: nothing idles in a pool
        headers: {
          Host: `${host}:${r.port}`, // Chromium answers only a loopback or IP Host
          ...(r.body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(r.body) } : {}),
          ...r.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            finish(new HttpError(`${what}: the answer is larger than ${maxBytes} bytes`, 'TOO_LARGE'));
            return;
          }
          chunks.push(chunk);
        });
        const cut = () => new HttpError(`${what}: the connection closed before the answer was complete`, 'ABORTED');
        res.on('error', (err) => {
          // Node reports a peer that hangs up mid-body as "aborted" (ECONNRESET).
          const code = (err as NodeJS.ErrnoException).code;
          finish(err.message === 'aborted' || code === 'ECONNRESET' ? cut() : new HttpError(`${what}: reading the answer failed: ${err.message}`, code ?? 'ERROR'));
        });
        res.on('close', () => {
          if (!res.complete) finish(cut());
        });
        res.on('end', () => finish(undefined, { status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    const timer = setTimeout(() => finish(new HttpError(`${what}: no complete answer within ${r.timeoutMs} ms`, 'TIMEOUT')), r.timeoutMs);
    req.on('error', (err) => {
      const code = (err as NodeJS.ErrnoException).code ?? 'ERROR';
      finish(new HttpError(`${what}: ${err.message}`, code));
    });
    req.end(r.body);
  });
}
