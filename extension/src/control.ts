// The coordinator's control API on its proxy port (DESIGN.md, "Control API"):
// GET /coordinator/status, POST /coordinator/launch|stop|restart, each with
// `Authorization: Bearer <controlToken>` from the state file. Answers are the
// status JSON; errors are {"error": "..."} with 401, 400 or 502.
import * as http from 'node:http';
import type { CoordinatorState } from './stateFile';

export interface LaunchOptions {
  headless?: boolean;
  browserType?: string;
  browserPath?: string;
  url?: string;
}

/** The status the control API answers (the fields of coordinator_status; more may come). */
export interface Status {
  state: string;
  backend: string;
  browser?: { type: string; version?: string; pid?: number; headless: boolean } | null;
  proxyPort: number;
  cdpEndpoint: string;
  currentUrl?: string;
  lastError?: string;
  [field: string]: unknown;
}

export class ControlError extends Error {
  constructor(message: string, readonly status: number, readonly body?: unknown) {
    super(message);
    this.name = 'ControlError';
  }
}

export type Action = 'launch' | 'stop' | 'restart';

export class ControlClient {
  constructor(readonly port: number, private readonly token: string, private readonly timeoutMs = 120_000) {}

  static of(state: Pick<CoordinatorState, 'proxyPort' | 'controlToken'>): ControlClient {
    return new ControlClient(state.proxyPort, state.controlToken);
  }

  status(): Promise<Status> {
    return this.request('GET', '/coordinator/status');
  }

  launch(options: LaunchOptions = {}): Promise<Status> {
    return this.request('POST', '/coordinator/launch', options);
  }

  stop(): Promise<Status> {
    return this.request('POST', '/coordinator/stop', {});
  }

  restart(): Promise<Status> {
    return this.request('POST', '/coordinator/restart', {});
  }

  private request(method: string, urlPath: string, body?: unknown): Promise<Status> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: urlPath,
          method,
          agent: false, // one connection per action: nothing idles in a pool
          timeout: this.timeoutMs,
          headers: {
            Authorization: `Bearer ${this.token}`,
            ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => { text += c; });
          res.on('end', () => {
            let json: any;
            try {
              json = JSON.parse(text);
            } catch {
              return reject(new ControlError(`${method} ${urlPath}: HTTP ${res.statusCode}, not JSON: ${text.slice(0, 200)}`, res.statusCode ?? 0));
            }
            if (res.statusCode !== 200) {
              const why = typeof json?.error === 'string' ? json.error : `HTTP ${res.statusCode}`;
              return reject(new ControlError(why, res.statusCode ?? 0, json));
            }
            resolve(json as Status);
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath}: no answer within ${this.timeoutMs} ms`)));
      req.on('error', (err) => reject(err instanceof ControlError ? err : new ControlError(`${method} ${urlPath} on port ${this.port}: ${err.message}`, 0)));
      req.end(payload);
    });
  }
}
