// The coordinator's control API on its proxy port (docs/interfaces.md,
// "Control API"): GET /coordinator/status, POST /coordinator/launch|stop|restart,
// each with `Authorization: Bearer <controlToken>` from the state file.
// Answers are the status JSON; errors are {"error": "..."} with 401, 400 or 502.
import type { CoordinatorState } from './stateFile';
import { request } from './http';

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

/** A launch may wait for a browser to start (and a relaunch for one to stop first). */
const ACTION_TIMEOUT_MS = 120_000;

export class ControlClient {
  constructor(readonly port: number, private readonly token: string, private readonly timeoutMs = ACTION_TIMEOUT_MS) {}

  static of(state: Pick<CoordinatorState, 'proxyPort' | 'controlToken'>, timeoutMs?: number): ControlClient {
    return new ControlClient(state.proxyPort, state.controlToken, timeoutMs);
  }

  status(): Promise<Status> {
    return this.call('GET', '/coordinator/status');
  }

  launch(options: LaunchOptions = {}): Promise<Status> {
    return this.call('POST', '/coordinator/launch', options);
  }

  stop(): Promise<Status> {
    return this.call('POST', '/coordinator/stop', {});
  }

  restart(): Promise<Status> {
    return this.call('POST', '/coordinator/restart', {});
  }

  private async call(method: string, urlPath: string, body?: unknown): Promise<Status> {
    let res;
    try {
      res = await request({
        method,
        port: this.port,
        path: urlPath,
        headers: { Authorization: `Bearer ${this.token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: this.timeoutMs,
      });
    } catch (err) {
      throw new ControlError(`the coordinator on port ${this.port} did not answer: ${(err as Error).message}`, 0);
    }
    let json: { error?: unknown; state?: unknown } | null;
    try {
      json = JSON.parse(res.text) as typeof json;
    } catch {
      throw new ControlError(`${method} ${urlPath}: HTTP ${res.status}, not JSON: ${res.text.slice(0, 200)}`, res.status);
    }
    if (res.status !== 200) {
      const why = typeof json?.error === 'string' ? json.error : `HTTP ${res.status}`;
      throw new ControlError(why, res.status, json);
    }
    if (typeof json !== 'object' || json === null || typeof json.state !== 'string') {
      throw new ControlError(`${method} ${urlPath}: the answer is not a status (no "state"): ${res.text.slice(0, 200)}`, res.status, json);
    }
    return json as Status;
  }
}
